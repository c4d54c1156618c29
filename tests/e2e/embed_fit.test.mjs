// The embed in frames of every size a course page gives it, in headless
// Chromium against the release build: from 320 x 400 to 1200 x 900 nothing
// scrolls sideways and, under 600 px wide, the tour's bar stacks its
// buttons under its words and takes at most 40% of the frame's height; at
// 700 x 500 the status strip, each card's name, state and token, and what
// the caption points at are in the frame, clear of the tour, at every key
// moment of every story.
//
// Run: `trunk build --release --offline && node --test tests/e2e/embed_fit.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { CLIENTS, PATIENCE_MS, card, clockButton, named, openPage, poll, setMaxSpeed, statusStrip, tour, tourNext } from "./ui.mjs";

const TEST_TIMEOUT_MS = 300_000;

const suite = browserSuite();

async function box(locator, what) {
  const b = await locator.boundingBox();
  assert.ok(b, `${what} is on the page`);
  return { ...b, bottom: b.y + b.height, right: b.x + b.width };
}

/**
 * Plays the tour on from key moment `from` (questions off: Next plays
 * straight on) and returns the key moment it stops at: two moments at the
 * same instant are reached together.
 */
async function nextMoment(page, from) {
  await tourNext(tour(page));
  return poll(
    async () => {
      const reached = Number((await tour(page).innerText()).match(/Key moment (\d+) of/)?.[1] ?? 0);
      return reached > from && (await clockButton(page, "Start").count()) === 1 && reached;
    },
    // Next plays the clock to the moment: slow frames stretch it.
    { what: `the key moment after ${from}`, timeout: 4 * PATIENCE_MS },
  );
}

for (const [width, height] of [
  [320, 400],
  [358, 500],
  [390, 500],
  [480, 500],
  [599, 600],
  [700, 500],
  [1200, 900],
]) {
  test(`in a ${width} x ${height} frame nothing scrolls sideways and the tour's bar fits`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openPage(
      await suite.context(t, { viewport: { width, height } }),
      `${suite.server.url}?embed=1&preset=gc-pause&system=etcd&questions=off&moment=3`,
    );
    const bar = tour(page);
    await poll(async () => /Key moment 3 of/.test(await bar.innerText()), { what: "key moment 3" });
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= width, "no sideways scrolling");
    const tourBox = await box(bar, "the tour");
    assert.ok(tourBox.y >= 0 && tourBox.bottom <= height + 1, `the tour in the frame (${tourBox.y}-${tourBox.bottom})`);
    const caption = await box(bar.locator(".tour__caption"), "the caption");
    const buttons = await box(bar.getByRole("button", named("Next")), "Next");
    assert.ok(buttons.right <= width && caption.right <= width, "the tour's words and buttons within the frame's width");
    if (width < 600) {
      assert.ok(tourBox.height <= 0.4 * height + 1, `the tour takes ${tourBox.height} px of ${height}`);
      assert.ok(buttons.y >= caption.bottom - 1, `Back and Next under the words (${buttons.y} vs ${caption.bottom})`);
    }
    // The speed slider stays in its box.
    const slider = page.getByRole("slider", { name: /speed/i }).first();
    if ((await slider.count()) === 1 && (await slider.isVisible())) {
      const s = await box(slider, "the speed slider");
      assert.ok(s.right <= width, `the speed slider ends at ${s.right}`);
    }
  });
}

test("at 700 x 500 the status strip, each card's state and token, and what each caption points at are in the frame at every key moment of every story", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  // Every story, and every system that tells it its own way ("id/system").
  const told = Object.keys(JSON.parse(await readFile(new URL("../../assets/stories.json", import.meta.url), "utf8")));
  assert.ok(told.length >= 10, `${told.length} stories`);
  const context = await suite.context(t, { viewport: { width: 700, height: 500 } });
  for (const key of told) {
    const [id, system] = key.split("/");
    const query = `?embed=1&preset=${id}${system ? `&system=${system}` : ""}&questions=off`;
    const page = await openPage(context, `${suite.server.url}${query}`);
    await setMaxSpeed(page);
    const count = Number((await tour(page).innerText()).match(/(\d+) key moments/)?.[1]);
    assert.ok(count >= 1, `${key}: its key moments`);
    for (let n = 0; n < count; ) {
      n = await nextMoment(page, n);
      const where = `${key}, key moment ${n}`;
      const top = (await box(tour(page), `${where}: the tour`)).y;
      const inFrame = async (locator, what) => {
        const b = await box(locator, `${where}: ${what}`);
        assert.ok(b.y >= 0 && b.bottom <= top + 1, `${where}: ${what} (${b.y}-${b.bottom}) above the tour (${top})`);
      };
      await inFrame(statusStrip(page), "the status strip");
      // A card's lines a reader needs at a glance: its name and state, its token.
      for (const c of CLIENTS) {
        await inFrame(card(page, c).locator(".client-card__head"), `client ${c}'s name and state`);
        await inFrame(card(page, c).locator(".client-card__token"), `client ${c}'s token`);
      }
      const spot = page.locator(".is-spotlit").first();
      if ((await spot.count()) === 1) {
        const named = await spot.getAttribute("aria-label");
        const line = named?.startsWith("Client ") ? spot.locator(".client-card__head") : spot;
        await inFrame(line, `what the caption points at (${named ?? "the status strip"})`);
      }
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 700, `${where}: no sideways scrolling`);
    }
    await page.close();
  }
});
