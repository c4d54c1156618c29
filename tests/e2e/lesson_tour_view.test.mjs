// The tour points at what is on screen, in headless Chromium against the
// release build: through the scenario to run first's tour, with fencing off
// and then replayed with it on, the part each caption names (the spotlit
// card, the lock service's line, the resource's line, the status strip) is
// in the window the moment the caption shows, neither under the docked tour
// bar nor under the sticky status strip, at 1280 x 800 and 390 x 844; on
// the phone the strip and the bar together take at most 45% of the screen;
// and the bar's Back and Next stay where the pointer left them from one key
// moment to the next. The replay with fencing on is the one the last key
// moment offers ("Now turn fencing on"): setting the scenario up again
// would turn fencing off.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_tour_view.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { chooseBackend, named, setFencing, setTtl, stoppedOnNewMoment, tour, tourNext } from "./ui.mjs";

const TEST_TIMEOUT_MS = 180_000;
/** How far the tour's buttons may move between key moments. */
const SLACK_PX = 4;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));


/**
 * What the caption names and where it is, measured in the frame the
 * caption shows in (two animation frames on): the part's lines a reader
 * needs (a card's name, state, token and lease bars; a stage line whole),
 * the docked bar's top and the sticky strip's bottom.
 */
async function where(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.evaluate(() => {
    const spot = document.querySelector(".is-spotlit");
    if (spot === null) return null;
    const parts = spot.classList.contains("client-card")
      ? [".client-card__head", ".client-card__token", ".client-card__leases"].map((s) => spot.querySelector(s))
      : spot.classList.contains("spot") && spot.firstElementChild
        ? [spot.firstElementChild]
        : [spot];
    const boxes = parts.filter(Boolean).map((p) => p.getBoundingClientRect());
    const bar = document.querySelector(".tour--docked")?.getBoundingClientRect();
    const dock = document.querySelector(".status-dock");
    const strip = dock.getBoundingClientRect();
    // The strip covers what lies under it only while it is stuck at the top.
    const stuck = getComputedStyle(dock).position === "sticky" && strip.top <= 1;
    return {
      name: spot.getAttribute("aria-label") || spot.className,
      top: Math.min(...boxes.map((b) => b.top)),
      bottom: Math.max(...boxes.map((b) => b.bottom)),
      barTop: bar ? bar.top : innerHeight,
      barHeight: bar ? bar.height : 0,
      stripBottom: stuck ? strip.bottom : 0,
      stripHeight: strip.height,
      isStrip: dock.contains(spot) || spot.contains(dock),
    };
  });
}

/** The docked tour's Back and Next, their boxes in the window. */
async function backAndNext(page) {
  const boxes = {};
  for (const name of ["Back", "Next"]) {
    const b = await tour(page).getByRole("button", named(name)).boundingBox();
    if (b) boxes[name] = b;
  }
  return boxes;
}

for (const [width, height] of [
  [1280, 800],
  [390, 844],
]) {
  test(`at ${width} x ${height} each caption's part is in view, clear of the tour bar and the status strip, as the caption shows`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await suite.page(t, "", { viewport: { width, height } });
    await chooseBackend(page, "etcd");
    await setTtl(page, 5);
    const problems = [];
    await setFencing(page, false);
    await page.getByRole("button", named("Set up the scenario to run first")).click();
    let buttons = null;
    for (const fencing of [false, true]) {
      if (fencing) await tour(page).getByRole("button", named("Now turn fencing on")).click();
      let text = await stoppedOnNewMoment(page, "");
      assert.equal(await page.getByRole("checkbox", named("Fencing")).isChecked(), fencing, `the tour runs with fencing ${fencing ? "on" : "off"}`);
      for (;;) {
        const moment = text.match(/Key moment (\d+) of (\d+)/);
        const at = `fencing ${fencing ? "on" : "off"}, key moment ${moment[1]}`;
        const w = await where(page);
        if (w !== null) {
          const floor = w.isStrip ? 0 : w.stripBottom;
          if (w.top < floor - 1 || w.bottom > w.barTop + 1) {
            problems.push(`${at}: ${w.name} at ${Math.round(w.top)}-${Math.round(w.bottom)}, the window's room ${Math.round(floor)}-${Math.round(w.barTop)}`);
          }
        }
        if (width < 600) {
          const share = await page.evaluate(() => {
            const h = (s) => document.querySelector(s)?.getBoundingClientRect().height ?? 0;
            return (h(".status-dock") + h(".tour--docked")) / innerHeight;
          });
          if (share > 0.45) problems.push(`${at}: the strip and the tour take ${Math.round(share * 100)}% of the screen`);
        }
        const now = await backAndNext(page);
        if (buttons !== null) {
          for (const [name, box] of Object.entries(now)) {
            const was = buttons[name];
            if (was && (Math.abs(box.x - was.x) > SLACK_PX || Math.abs(box.y - was.y) > SLACK_PX)) {
              problems.push(`${at}: the tour's ${name} moved by (${Math.round(box.x - was.x)}, ${Math.round(box.y - was.y)}) px`);
            }
          }
        }
        buttons = now;
        if (!(await tour(page).getByRole("button", named("Next")).isEnabled())) break;
        await tourNext(tour(page));
        text = await stoppedOnNewMoment(page, text);
      }
    }
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}
