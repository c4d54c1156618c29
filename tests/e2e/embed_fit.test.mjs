// The embed in frames of every size a course page gives it, in headless
// Chromium against the release build: from 320 x 400 to 1200 x 900 nothing
// scrolls sideways and, under 600 px wide, the tour's bar stacks its
// buttons under its words and takes at most 40% of the frame's height; at
// 700 x 500 the status strip, the four cards and what the caption points
// at are in the frame, clear of the tour, at every key moment of every
// story.
//
// Run: `trunk build --release --offline && node --test tests/e2e/embed_fit.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { CLIENTS, card, clockButton, named, openPage, poll, statusStrip, tour, tourNext } from "./ui.mjs";

const TEST_TIMEOUT_MS = 300_000;

const suite = browserSuite();

async function box(locator, what) {
  const b = await locator.boundingBox();
  assert.ok(b, `${what} is on the page`);
  return { ...b, bottom: b.y + b.height, right: b.x + b.width };
}

/** Plays the tour to key moment `n` (questions off: Next plays straight there). */
async function toMoment(page, n) {
  await tourNext(tour(page));
  await poll(async () => new RegExp(`Key moment ${n} of`).test(await tour(page).innerText()) && (await clockButton(page, "Start").count()) === 1, {
    what: `key moment ${n}`,
  });
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

test("at 700 x 500 the status, the four cards and what each caption points at are in the frame at every key moment of every story", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const ids = Object.keys(JSON.parse(await readFile(new URL("../../assets/stories.json", import.meta.url), "utf8")));
  assert.ok(ids.length >= 10, `${ids.length} stories`);
  const context = await suite.context(t, { viewport: { width: 700, height: 500 } });
  for (const id of ids) {
    const page = await openPage(context, `${suite.server.url}?embed=1&preset=${id}&questions=off`);
    const count = Number((await tour(page).innerText()).match(/(\d+) key moments/)?.[1]);
    assert.ok(count >= 1, `${id}: its key moments`);
    for (let n = 1; n <= count; n += 1) {
      await toMoment(page, n);
      const where = `${id}, key moment ${n}`;
      const top = (await box(tour(page), `${where}: the tour`)).y;
      const status = await box(statusStrip(page), `${where}: the status strip`);
      assert.ok(status.y >= 0 && status.bottom <= top + 1, `${where}: the status strip (${status.y}-${status.bottom}) above the tour (${top})`);
      for (const c of CLIENTS) {
        const b = await box(card(page, c), `${where}: client ${c}`);
        assert.ok(b.y >= 0 && b.bottom <= top + 1, `${where}: client ${c} (${b.y}-${b.bottom}) above the tour (${top})`);
      }
      const spot = page.locator(".is-spotlit").first();
      if ((await spot.count()) === 1) {
        const s = await box(spot, `${where}: what the caption points at`);
        assert.ok(s.y >= 0 && s.bottom <= top + 1, `${where}: what the caption points at (${s.y}-${s.bottom}) above the tour (${top})`);
      }
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 700, `${where}: no sideways scrolling`);
    }
    await page.close();
  }
});
