// Described for every reader: the narrator speaks at a pace a person can
// follow, the keyboard alone runs the scenario to run first, the timeline
// is one Tab stop, focus never falls to the body, and the page reflows at
// 200% and 400% zoom (issue 47).

import { test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import {
  axeViolations,
  card,
  cardButton,
  cardText,
  named,
  playScenarioToRunFirst,
  poll,
  setMaxSpeed,
  startClock,
  started,
  statusText,
  stepUntil,
  timeline,
  tour,
  waitForCardState,
} from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const suite = browserSuite();

/** Counts and keeps every sentence the narrator's two live regions say. */
async function listen(page) {
  await page.evaluate(() => {
    window.__said = [];
    for (const id of ["narrator", "narrator-alert"]) {
      const region = document.querySelector(`[data-testid="${id}"]`);
      let last = region.textContent;
      new MutationObserver(() => {
        const now = region.textContent;
        if (now && now !== last) window.__said.push({ id, text: now, at: performance.now() });
        last = now;
      }).observe(region, { childList: true, characterData: true, subtree: true });
    }
  });
}

const said = (page) => page.evaluate(() => window.__said);

/** Where the focus is: its tag, whether it is the body, and whether it is in sight. */
const focusSeen = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { body: true };
    const box = el.getBoundingClientRect();
    const inView = box.bottom > 0 && box.top < innerHeight && box.right > 0 && box.left < innerWidth;
    // Not hidden under the sticky status strip (unless it is the strip).
    const strip = document.querySelector(".status-dock");
    const stripBox = strip?.getBoundingClientRect();
    const sticky = strip && getComputedStyle(strip).position === "sticky";
    const under =
      sticky && !strip.contains(el) && stripBox.top <= 0 && box.bottom <= stripBox.bottom && box.top >= stripBox.top;
    return { body: false, tag: el.tagName, name: el.getAttribute("aria-label") ?? el.textContent.trim().slice(0, 40), inView, under };
  });

async function assertFocusVisible(page, what) {
  const seen = await focusSeen(page);
  assert.ok(!seen.body, `${what}: the focus fell to the body`);
  assert.ok(seen.inView && !seen.under, `${what}: the focus is out of sight (${JSON.stringify(seen)})`);
}

test("over 10 s of a running story at 8x the narrator speaks at most 6 times, and says the corruption", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t, "?preset=gc-pause&system=etcd&fencing=0&tour=off");
  await setMaxSpeed(page);
  await listen(page);
  await startClock(page);
  await page.waitForTimeout(10_000);
  const heard = await said(page);
  assert.ok(heard.length <= 6, `${heard.length} sentences in 10 s:\n${heard.map((s) => s.text).join("\n")}`);
  const alarm = heard.find((s) => s.id === "narrator-alert");
  assert.ok(alarm, `the corruption is said assertively:\n${heard.map((s) => s.text).join("\n")}`);
  assert.match(alarm.text, /corrupted|overwrote/);
  assert.equal(heard.filter((s) => s.id === "narrator-alert").length, 1, "once");
  for (const s of heard) assert.doesNotMatch(s.text, /0x[0-9a-f]+|\b[0-9a-f]{8,}\b/i, `no ids: ${s.text}`);
  // Polite sentences at least two seconds apart, whatever the speed.
  const polite = heard.filter((s) => s.id === "narrator").map((s) => s.at);
  for (let i = 1; i < polite.length; i += 1) assert.ok(polite[i] - polite[i - 1] >= 1_900, `${polite[i] - polite[i - 1]} ms apart`);
});

test("Describe (d) says who holds the lock, who believes it and what the resource accepted", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  await playScenarioToRunFirst(page, { fencing: false, start: false });
  await page.keyboard.press("d");
  const text = await poll(() => page.locator('[data-testid="narrator"]').textContent(), { what: "the description" });
  // etcd's tokens are its revisions.
  assert.match(text, /the service says B holds the lock with token \d+\./);
  assert.match(text, /A and B both believe they hold it\./);
  assert.match(text, /The resource (last accepted|has accepted)/);
  // The event log is for reading: no longer a live region.
  assert.equal(await page.getByRole("list", named("Event log")).getAttribute("aria-live"), null);
});

test("the narration setting is kept in the address and offered beside the shortcuts", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  // With the shortcuts: the narration's setting and Describe.
  await page.keyboard.press("?");
  await page.getByRole("combobox", named("What the narrator says aloud")).selectOption("full");
  await poll(() => /[?&]narration=full\b/.test(page.url()), { what: "narration=full in the address" });
  await page.reload();
  await started(page);
  await page.keyboard.press("?");
  assert.equal(await page.getByRole("combobox", named("What the narrator says aloud")).inputValue(), "full");
  assert.match(await page.getByRole("region", named("Keyboard shortcuts")).innerText(), /\bd\b[\s\S]*describe/);
});

test("the keyboard alone runs the scenario to run first in 12 keys from the top, focus in sight at each", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  await listen(page);
  let keys = 0;
  const press = async (key, what) => {
    keys += 1;
    await page.keyboard.press(key);
    await assertFocusVisible(page, `key ${keys} (${key}, ${what})`);
  };
  await press("Tab", "the first skip link");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Skip to the verdict");
  await press("Enter", "to the verdict");
  await press("a", "A acquires");
  await press(" ", "the clock starts");
  await waitForCardState(page, "A", "holding");
  await press("g", "A pauses 8 s");
  await press("2", "B is chosen");
  await press("a", "B acquires");
  await waitForCardState(page, "B", "holding", 30_000);
  await press("w", "B writes");
  await press("1", "A is chosen");
  await press("w", "A's write leaves as it wakes");
  await poll(async () => /corrupted|increments? (?:was|were) lost/i.test(await statusText(page)), { what: "the corruption", timeout: 30_000 });
  const alarm = (await said(page)).find((s) => s.id === "narrator-alert");
  assert.ok(alarm && /corrupted|overwrote/.test(alarm.text), "the lock breaking is said");
  await press("f", "fencing on");
  assert.ok(keys <= 12, `${keys} keys`);
  assert.ok(await page.getByRole("checkbox", named("Fencing")).isChecked(), "fencing is on");
  const heard = (await said(page)).map((s) => s.text);
  assert.ok(heard.some((s) => /Shortcut keys now act on client B/.test(s)), heard.join("\n"));
  assert.ok(heard.some((s) => /Fencing is on/.test(s)), heard.join("\n"));
});

test("the timeline is crossed in one Tab; arrows, Home and End move between its marks", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  await playScenarioToRunFirst(page, { fencing: false, start: false });
  await stepUntil(page, async () => /corrupted|increments? (?:was|were) lost/i.test(await statusText(page)), "the corruption");
  const marks = timeline(page).locator("svg g.tl-mark");
  assert.ok((await marks.count()) > 10, "many marks");
  // The last control before the picture, then one Tab into it and one out.
  const before = timeline(page).locator(".timeline__head button, .timeline__head a, .timeline__head select").last();
  await before.focus();
  await page.keyboard.press("Tab");
  const inside = () => page.evaluate(() => Boolean(document.activeElement.closest("svg.timeline__svg")));
  assert.ok(await inside(), "one Tab into the picture");
  const first = await page.evaluate(() => document.activeElement.getAttribute("data-t"));
  await page.keyboard.press("ArrowRight");
  assert.ok(await inside());
  const next = await page.evaluate(() => document.activeElement.getAttribute("data-t"));
  assert.ok(Number(next) >= Number(first), `${first} then ${next}`);
  await page.keyboard.press("End");
  const last = await page.evaluate(() => Number(document.activeElement.getAttribute("data-t")));
  await page.keyboard.press("Home");
  const home = await page.evaluate(() => Number(document.activeElement.getAttribute("data-t")));
  assert.ok(last > home, `End ${last}, Home ${home}`);
  assert.equal(await timeline(page).locator('svg [tabindex="0"]').count(), 1, "one Tab stop");
  await page.keyboard.press("Tab");
  assert.ok(!(await inside()), "one Tab out of it");
});

test("focus never falls to the body when its control goes away", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  // Write on wake on A goes when A wakes (or its lease is known lost).
  await cardButton(page, "A", "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "A")), "A holding");
  await cardButton(page, "A", "GC pause").click();
  await waitForCardState(page, "A", "paused");
  await cardButton(page, "A", "Write on wake").focus();
  await startClock(page);
  await setMaxSpeed(page);
  await cardButton(page, "A", "Write on wake").focus();
  // Read in one go: the button may go between two separate looks.
  const gone = () =>
    page.evaluate(() => {
      const button = document.querySelector('button[aria-label="Write on wake, client A"]');
      return !button || button.disabled;
    });
  await poll(gone, { what: "Write on wake gone", timeout: 30_000 });
  await poll(async () => !(await focusSeen(page)).body, { what: "focus off the body", timeout: 2_000 });
  assert.equal(await page.evaluate(() => document.activeElement.closest("section")?.getAttribute("aria-label")), "Client A");

  // Escape closes the tour: the focus goes to the button that shows it again.
  const story = await suite.page(t, "?preset=gc-pause");
  await tour(story).getByRole("button", named("Next")).focus();
  await story.keyboard.press("Escape");
  await poll(async () => !(await focusSeen(story)).body, { what: "focus off the body after Escape", timeout: 2_000 });
  assert.equal(await story.evaluate(() => document.activeElement.textContent), "Show the tour");
});

for (const scheme of ["light", "dark"]) {
  for (const [zoom, width, height] of [
    ["200%", 640, 450],
    ["400%", 320, 225],
  ]) {
    test(`${scheme}, ${zoom} zoom (${width}x${height} CSS px): axe finds nothing, nothing scrolls sideways, focus stays in sight`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const context = await suite.context(t, { bypassCSP: true, colorScheme: scheme, viewport: { width, height } });
      const { openPage } = await import("./ui.mjs");
      const page = await openPage(context, suite.server.url);
      const found = await axeViolations(page);
      assert.deepEqual(found, [], found.join("\n"));
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= width, `the page is ${wide} px wide in a ${width} px window`);
      if (height < 500) {
        assert.notEqual(await page.locator(".status-dock").evaluate((el) => getComputedStyle(el).position), "sticky");
      }
      for (let i = 0; i < 40; i += 1) {
        await page.keyboard.press("Tab");
        await assertFocusVisible(page, `Tab ${i + 1}`);
      }
    });
  }
}
