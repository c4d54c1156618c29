// Frames in which only time moved, in headless Chromium against the release
// build: while the clock runs, the page writes its markup only when the run
// records something, and otherwise at most four times a second of the
// reader's time (time's words: the clock, the countdowns). Between those
// renders the lease bars and the playhead glide, carried on by the browser's
// compositor (each a whole <svg> or a box, never a part of a drawing);
// with the clock stopped, or with reduced motion asked for, nothing glides
// and the markup alone shows the run.
//
// While the clock runs with nothing due, the page asks for a frame only to
// draw time's words: no animation frame runs its script between them.
//
// Every write to the markup is seen by a MutationObserver and stamped with
// its animation frame's time (`document.timeline.currentTime`). A frame
// that wrote the status strip's clock drew time's words; any other frame
// that wrote was drawn for an event, and there are no more of those than
// lines that joined the event log (which shows the network messages too,
// and draws its new lines with time's words). Nothing here is timed: the
// test waits for the clock to pass a mark and then reads what was written,
// frame by frame.
//
// Run: `trunk build --release --offline && node --test tests/e2e/time_frames.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { card, cardButton, clockSeconds, pauseClock, poll, startClock, waitForCardState, waitForClock } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
/** Time's words are drawn at most this often: four times a second, with a frame's slack. */
const WORDS_APART_MS = 250 - 17;

const suite = browserSuite();

/**
 * Runs in the page: notes each frame that wrote the markup, whether it
 * wrote the status strip's clock (time's words), and how many lines it
 * logged; and counts the timeline's veils over a future made meanwhile.
 */
function watchWrites() {
  const frames = new Map();
  window.__writes = frames;
  // Veils over a future drawn: a live run has none.
  window.__veiled = 0;
  const clock = document.querySelector(".status .tick__text");
  new MutationObserver((records) => {
    const at = document.timeline.currentTime;
    const frame = frames.get(at) ?? { words: false, logged: 0 };
    for (const r of records) {
      if (clock.contains(r.target)) frame.words = true;
      if (r.type !== "childList") continue;
      frame.logged += [...r.addedNodes].filter((n) => n.classList?.contains("log__line")).length;
      window.__veiled += [...r.addedNodes].filter((n) => n.classList?.contains("tl-future")).length;
    }
    frames.set(at, frame);
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  window.__frameCount = 0;
  const count = () => {
    window.__frameCount += 1;
    requestAnimationFrame(count);
  };
  requestAnimationFrame(count);
}

/** The frames that wrote the markup, `[time, { words, logged }]`, in order. */
const writes = (page) => page.evaluate(() => [...window.__writes.entries()].sort((a, b) => a[0] - b[0]));

/** The glides running on the lease bars' drawings and the playhead. */
const glides = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll(".lease-bar__glide, .tl-playhead")].reduce(
      (n, el) => n + el.getAnimations().length,
      0,
    ),
  );

describe("frames in which only time moved", { timeout: TEST_TIMEOUT_MS }, () => {
  test("write nothing, except time's words at most four times a second", async (t) => {
    const page = await suite.page(t);
    // Every record of the run a line of the log, its messages too.
    await page.getByLabel("Show network messages").check();
    await cardButton(page, "A", "Acquire").click();
    await startClock(page);
    await waitForCardState(page, "A", "holding");
    await page.evaluate(watchWrites);
    const from = await clockSeconds(page);
    await waitForClock(page, from + 3);
    const frames = await page.evaluate(() => window.__frameCount);
    const written = await writes(page);
    const timeAlone = written.filter(([, f]) => f.words).map(([at]) => at);
    assert.ok(frames > 2 * timeAlone.length, `${frames} frames, ${timeAlone.length} of them drew time's words`);
    for (let i = 1; i < timeAlone.length; i += 1) {
      const apart = timeAlone[i] - timeAlone[i - 1];
      assert.ok(apart >= WORDS_APART_MS, `two frames of time alone wrote ${apart.toFixed(1)} ms apart`);
    }
    assert.ok(timeAlone.length >= 2, `time's words were drawn meanwhile, ${timeAlone.length} times`);
    // Every other frame that wrote was drawn for something the run
    // recorded: a line each at least. An event's lines join the log at the
    // next render of time's words, so the frames counted are those between
    // the first and the last time's words, and the lines those logged after
    // the first up to the last.
    const [first, last] = [timeAlone[0], timeAlone[timeAlone.length - 1]];
    const between = written.filter(([at]) => at > first && at <= last);
    const forEvents = between.filter(([at, f]) => !f.words && at < last).length;
    const logged = between.reduce((n, [, f]) => n + f.logged, 0);
    const seen = written.map(([at, f]) => `${at.toFixed(0)}${f.words ? "w" : ""}+${f.logged}`).join(" ");
    assert.ok(forEvents <= logged, `${forEvents} frames wrote without time's words, for ${logged} lines logged: ${seen}`);
    // A frame drawn for an event leaves the playhead where time's words
    // put it, a little before the clock: no veil from there to the clock.
    assert.equal(await page.evaluate(() => window.__veiled), 0, "a live run's frame veiled a future it has not got");
    assert.ok((await glides(page)) >= 2, "A's lease bars and the playhead glide while the clock runs");
    // A motion of an element inside a drawing is not composited: the main
    // thread would paint the whole drawing again every frame.
    const inside = await page.evaluate(() =>
      document
        .getAnimations()
        .map((a) => a.effect.target)
        .filter((el) => el.ownerSVGElement)
        .map((el) => el.getAttribute("class") ?? el.tagName),
    );
    assert.deepEqual(inside, [], "what glides is a whole <svg> or a box, never a part of a drawing");

    await pauseClock(page);
    assert.equal(await glides(page), 0, "with the clock stopped nothing glides: the markup shows the run");
    const words = await card(page, "A").locator(".lease-bar__words").first().innerText();
    const width = await card(page, "A").locator(".lease-bar__fill").first().getAttribute("width");
    const left = Number(words.match(/([\d.]+) s left/)?.[1]);
    assert.ok(Number.isFinite(left), `A's lease words: "${words}"`);
    // The fill and the words are drawn from the same moment (TTL 5 s).
    assert.ok(Math.abs(Number(width) - left * 20) <= 2, `fill ${width}% against ${left} s left`);
  });

  test("the running clock asks for a frame only when something is due", async (t) => {
    const page = await suite.page(t);
    // Nothing scheduled: the clock wakes only to draw time's words.
    await startClock(page);
    const from = await clockSeconds(page);
    await page.evaluate(() => {
      window.__asked = 0;
      const ask = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (callback) => {
        window.__asked += 1;
        return ask(callback);
      };
    });
    await waitForClock(page, from + 2);
    const asked = await page.evaluate(() => window.__asked);
    const seconds = (await clockSeconds(page)) - from;
    // At 1x a second of the clock is about a second of wall time: four
    // renders of time's words a second (a frame ticked every refresh
    // would ask for 60).
    assert.ok(asked >= 4, `${asked} frames asked for in ${seconds} s of the clock`);
    assert.ok(asked <= 6 * Math.ceil(seconds + 1), `${asked} frames asked for in ${seconds} s of the clock`);
  });

  test("with reduced motion asked for, nothing glides", async (t) => {
    const page = await suite.page(t);
    await page.emulateMedia({ reducedMotion: "reduce" });
    await cardButton(page, "A", "Acquire").click();
    await startClock(page);
    await waitForCardState(page, "A", "holding");
    const from = await clockSeconds(page);
    await waitForClock(page, from + 1);
    await poll(async () => (await glides(page)) === 0, { what: "no glide with reduced motion" });
  });
});
