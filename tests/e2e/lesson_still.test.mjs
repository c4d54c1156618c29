// A screen that holds still, in headless Chromium against the release
// build: through the scenario to run first, played by hand as the hint
// says (Acquire on A, GC pause A, Write on A; after the lease runs out
// Acquire and Write on B; then Step to t=12 s), every control of the
// simulator's view that is on the page before and after a click or a Step
// is where it was, to within a few pixels: from the lead to the timeline,
// the books (folded, and opened) and the event log's own controls, at
// 1280 x 800 and on a 390 x 844 phone (fencing off and on), at 700, 900
// and 1100 px, and in a 700 x 500 frame (`?embed=1`, the clicks inside
// the frame).
// A card keeps its size whatever its client's state, the status strip its
// height whatever the verdict and the stage's lines theirs whatever they
// say, so nothing moves under a pointer that did not touch it.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_still.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { card, cardButton, cardText, chooseBackend, clockButton, named, poll, setFencing, setMaxSpeed, setTtl, statusText } from "./ui.mjs";

const TEST_TIMEOUT_MS = 240_000;
/** How far a button may move and still count as where it was. */
const SLACK_PX = 4;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));

/**
 * Every visible control of the simulator's view (buttons, selects, inputs),
 * by its name (a button whose
 * name changes with the state keeps one key: Write and Write on wake,
 * Start and Pause, Partition and Heal), with its box in page coordinates.
 */
async function buttonBoxes(page) {
  return page.evaluate(() => {
    const same = { "Write on wake": "Write", Pause: "Start", Heal: "Partition" };
    const boxes = {};
    // Everything the view shows: a button in a folded panel is not on show.
    for (const b of document.querySelectorAll(":is(.view--simulator, .page--embed) :is(button, summary, select, input)")) {
      const r = b.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || b.closest("[hidden]") || !b.checkVisibility()) continue;
      const words = b.getAttribute("aria-label") || (b.matches("select, input") ? b.id || b.name : b.textContent);
      let name = words.replace(/\s+/g, " ").trim();
      for (const [from, to] of Object.entries(same)) name = name.replace(new RegExp(`^${from}\\b`), to);
      let key = name;
      for (let n = 2; key in boxes; n += 1) key = `${name} #${n}`;
      boxes[key] = { x: Math.round(r.x + window.scrollX), y: Math.round(r.y + window.scrollY), w: Math.round(r.width), h: Math.round(r.height) };
    }
    return boxes;
  });
}

/** The buttons that moved between two measures, in words. */
function moved(before, now) {
  const out = [];
  for (const [name, a] of Object.entries(before)) {
    const b = now[name];
    if (!b) continue;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    if (Math.abs(dx) > SLACK_PX || Math.abs(dy) > SLACK_PX || Math.abs(b.w - a.w) > SLACK_PX) {
      out.push(`"${name}" by (${dx}, ${dy}) px, ${a.w} -> ${b.w} wide`);
    }
  }
  return out;
}

/** Plays the scenario to run first by hand, measuring after every press. */
async function playMeasured(page, fencing) {
  const problems = [];
  let last = await buttonBoxes(page);
  let what = "the page as it opened";
  const measure = async (done) => {
    // Two frames: the page draws what the press changed.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const now = await buttonBoxes(page);
    for (const line of moved(last, now)) problems.push(`${what} -> ${done}: ${line}`);
    last = now;
    what = done;
  };
  const press = async (locator, done) => {
    await locator.click();
    await measure(done);
  };
  const stepUntil = async (ready, goal, limit = 400) => {
    for (let i = 0; i < limit && !(await ready()); i += 1) {
      await press(clockButton(page, "Step"), `Step towards ${goal}`);
    }
    assert.ok(await ready(), `${goal}: reached by Step`);
  };
  await press(cardButton(page, "A", "Acquire"), "Acquire on A");
  await stepUntil(async () => /\bholding\b/i.test(await cardText(page, "A")), "A holding");
  await press(cardButton(page, "A", "GC pause"), "GC pause on A");
  await poll(async () => /\bpaused\b/i.test(await cardText(page, "A")), { what: "A paused" });
  await measure("A paused");
  await press(cardButton(page, "A", "Write on wake"), "Write on wake on A");
  await stepUntil(async () => /\bholder\s+nobody\b/i.test(await statusText(page)), "A's lease gone");
  await press(cardButton(page, "B", "Acquire"), "Acquire on B");
  await stepUntil(async () => /\bholding\b/i.test(await cardText(page, "B")), "B holding");
  await press(cardButton(page, "B", "Write"), "Write on B");
  const verdict = fencing ? /Fencing stopped/ : /increments? (?:was|were) lost/i;
  await stepUntil(async () => verdict.test(await statusText(page)), "the verdict");
  await stepUntil(async () => !/\bpaused\b/i.test(await cardText(page, "A")) && /t=1[2-9]/.test(await statusText(page)), "t=12 s");
  return problems;
}

const RUNS = [
  [1280, 800, false],
  [1280, 800, true],
  [1280, 800, false, "", "open"],
  [390, 844, false],
  [390, 844, true],
  [390, 844, true, "", "open"],
  [700, 800, false],
  [900, 800, false],
  [1100, 800, false],
  [700, 500, false, "?embed=1&system=etcd"],
];

for (const [width, height, fencing, query = "", books = ""] of RUNS) {
  test(`${query ? "in a frame " : ""}at ${width} x ${height}, fencing ${fencing ? "on" : "off"}${books ? ", the books open" : ""}, no control moves under the pointer through the scenario to run first`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await suite.page(t, query, { viewport: { width, height } });
    if (query) {
      // The frame keeps the full page's defaults (TTL 5 s, a pause of 8 s);
      // its settings are folded away.
      assert.match(await page.locator(".controls__summary").innerText(), /TTL 5 s/);
    } else {
      await chooseBackend(page, "etcd");
      await setFencing(page, fencing);
      await setTtl(page, 5);
      await card(page, "A").getByRole("combobox", named("Pause (s), client A")).selectOption("8");
    }
    if (books) {
      // The folded books opened: the service's tables and the resource's
      // banner grow below the controls they hold, never above them.
      await page.locator(".books__summary").click();
    }
    await setMaxSpeed(page);
    const problems = await playMeasured(page, fencing);
    const shown = problems.slice(0, 40).join("\n");
    assert.deepEqual(problems, [], `${problems.length} moves of a control, the first:\n${shown}`);
  });
}
