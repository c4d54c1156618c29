// The simulation in the first screen, in headless Chromium against the
// release build: on a laptop (1280 x 800) the status strip, the controls and
// the four cards (state, token and lease bars) show without scrolling, with
// the timeline right below; on a phone (390 x 844) the first card's name,
// state and token are in the first screen; embedded at 700 x 500 the status strip, the four cards
// fit the frame with the timeline starting in it, the controls take one row and a
// story's tour docks at the foot without covering the cards. The first
// render draws that first screen alone; the rest follows once it is painted.
//
// Run: `trunk build --release --offline && node --test tests/e2e/`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { CLIENTS, card, clockButton, named, openPage, poll, statusStrip, timeline } from "./ui.mjs";

const TEST_TIMEOUT_MS = 60_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));

const controls = (page) => page.getByRole("region", named("Controls"));

/** The box of `locator` in page coordinates, with its bottom. */
async function box(locator, what) {
  const b = await locator.boundingBox();
  assert.ok(b, `${what} is on the page`);
  return { ...b, bottom: b.y + b.height, right: b.x + b.width };
}

/** The lowest line of a card a person needs: its second lease bar. */
const leaseBars = (page, id) => card(page, id).locator(".client-card__leases");

async function pageAt(t, path, viewport) {
  const page = await suite.page(t, path, { viewport });
  await page.evaluate(() => window.scrollTo(0, 0));
  return page;
}

test("at 1280 x 800 the status, the controls and the four cards fit the first screen, the timeline right below", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await pageAt(t, "", { width: 1280, height: 800 });
  const height = 800;
  assert.ok((await box(controls(page), "the controls")).bottom <= height, "the controls in the first screen");
  assert.ok((await box(clockButton(page, "Start"), "Start")).bottom <= height);
  assert.ok((await box(page.getByRole("button", named("Set up the scenario to run first")), "the set-up button")).bottom <= height);
  assert.ok((await box(statusStrip(page), "the status strip")).bottom <= height, "the status strip in the first screen");
  for (const id of CLIENTS) {
    const bars = await box(leaseBars(page, id), `client ${id}'s lease bars`);
    assert.ok(bars.bottom <= height, `client ${id}'s state, token and lease bars in the first screen (bars end at ${bars.bottom})`);
  }
  const first = await box(card(page, "A"), "client A");
  const last = await box(card(page, "D"), "client D");
  assert.ok(Math.abs(first.y - last.y) < 2, "the four cards side by side");
  const top = (await box(timeline(page), "the timeline")).y;
  assert.ok(top < height, `the timeline starts in the first screen (at ${top})`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1280, "no sideways scrolling");
});

test("the first render draws the first screen; the timeline and the panels below follow once it is painted", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const context = await suite.context(t, { viewport: { width: 1280, height: 800 } });
  // Notes what is drawn when the four cards come, and once the frame that
  // shows them is painted (a timer set in a frame fires after its paint).
  await context.addInitScript(() => {
    const below = () => ["section.timeline", "section.log"].filter((s) => document.querySelector(s));
    const seen = new MutationObserver(() => {
      if (document.querySelectorAll(".client-card").length < 4) return;
      seen.disconnect();
      window.__withCards = below();
      requestAnimationFrame(() => setTimeout(() => (window.__afterPaint = below())));
    });
    seen.observe(document, { childList: true, subtree: true });
  });
  const page = await openPage(context, suite.server.url);
  await poll(async () => page.evaluate(() => window.__afterPaint !== undefined), { what: "the first frame with the cards" });
  assert.deepEqual(await page.evaluate(() => window.__withCards), [], "nothing below the cards is drawn with them");
  assert.deepEqual(await page.evaluate(() => window.__afterPaint), [], "the first frame is painted before the rest is drawn");
  await timeline(page).waitFor({ state: "visible" });
  await page.getByRole("region", named("Event log")).waitFor({ state: "attached" });
  const explorer = page.getByRole("region", { name: "Hazard explorer", exact: true, includeHidden: true });
  await explorer.waitFor({ state: "attached" });
  assert.equal(await explorer.isVisible(), false, "the tools wait in their own views");
});

test("at 390 x 844 the first card's name, state and token are in the first screen and the cards stay readable", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await pageAt(t, "", { width: 390, height: 844 });
  const a = await box(card(page, "A"), "client A");
  assert.ok(a.y < 844, `client A starts at ${a.y}`);
  const token = await box(card(page, "A").locator(".client-card__token"), "client A's token");
  assert.ok(token.bottom <= 844, `client A's name, state and token in the first screen (the token ends at ${token.bottom})`);
  for (const id of CLIENTS) {
    const c = await box(card(page, id), `client ${id}`);
    assert.ok(c.width >= 340, `client ${id} takes the width of the phone (${c.width} px)`);
  }
  const size = await card(page, "A").getByText("token", { exact: false }).first().evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(size >= 14, `the token's words are ${size} px`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, "no sideways scrolling");
  // The views' tabs scroll sideways in their own row; its right edge fades
  // over the tab there, a sign that more lie to the right.
  const tabs = await page.evaluate(() => {
    const row = document.querySelector(".views");
    const list = row.querySelector(".views__list");
    const fade = getComputedStyle(list, "::after");
    const edge = row.getBoundingClientRect().right;
    const under = [...list.querySelectorAll(".views__tab")].find((tab) => {
      const b = tab.getBoundingClientRect();
      return b.left < edge && b.right > edge - parseFloat(fade.width);
    });
    const at = [...list.querySelectorAll(".views__tab")].map((tab) => `${tab.textContent} ${Math.round(tab.getBoundingClientRect().left)}-${Math.round(tab.getBoundingClientRect().right)}`);
    return { more: row.scrollWidth > row.clientWidth, position: fade.position, image: fade.backgroundImage, under: under?.textContent, at: `${at.join(", ")}; edge ${edge}` };
  });
  assert.ok(tabs.more, "the views' tabs are more than a phone's width");
  assert.equal(tabs.position, "sticky", "the fade keeps to the row's right edge");
  assert.match(tabs.image, /linear-gradient/, "the row's right edge fades");
  assert.ok(tabs.under, `a tab under the fade at the row's edge (${tabs.at})`);
});

test("embedded at 700 x 500 the status and the four cards fit, the timeline starts in the first screen; the tour docks below the cards", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await pageAt(t, "?embed=1&preset=gc-pause", { width: 700, height: 500 });
  const height = 500;
  const tour = page.getByRole("group", named("Tour"));
  await tour.getByRole("button", named("Next")).click();
  await poll(async () => (await clockButton(page, "Start").count()) === 1, { what: "the first key moment" });
  await page.evaluate(() => window.scrollTo(0, 0));

  const bar = await box(controls(page), "the controls");
  const start = await box(clockButton(page, "Start"), "Start");
  assert.ok(bar.height <= 2.2 * start.height + 16, `the controls in one row (${bar.height} px high, Start ${start.height} px)`);
  assert.ok((await box(statusStrip(page), "the status strip")).bottom <= height);
  const docked = await box(tour, "the story's tour");
  assert.ok(docked.bottom <= height && docked.y >= height / 2, `the tour docked at the foot (${docked.y}-${docked.bottom})`);
  for (const id of CLIENTS) {
    const c = await box(card(page, id), `client ${id}`);
    assert.ok(c.bottom <= docked.y, `client ${id} whole above the tour (ends at ${c.bottom}, tour at ${docked.y})`);
  }
  // The cards keep one height and the strip the verdict's room, so the
  // timeline starts in the frame's first screen, behind the tour's bar
  // (scrolling or closing the tour shows it).
  const head = await box(timeline(page), "the timeline");
  assert.ok(head.y < height, `the timeline starts in the frame's first screen (at ${head.y})`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 700, "no sideways scrolling");
});
