// The timeline answers the pointer as it answers the keyboard, in headless
// Chromium against the release build: at the stale write of the scenario
// to run first, the mark is what lies under the pointer at its centre
// (no message line, band or stripe over it), hovering it shows its
// sentence, pressing it does what Enter does (the playhead goes to its
// moment and the sentence stays), and the legend shows each client's
// colour.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_timeline.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { clockSeconds, named, playScenarioToRunFirst, playhead, poll, stepUntil, timeline } from "./ui.mjs";

const TEST_TIMEOUT_MS = 90_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], "no console errors, warnings or failed requests"));

/** A's stale write, by its sentence: accepted after B was granted the lock. */
const staleWrite = (page) => timeline(page).getByRole("img", { name: /stale|late write/i });
const caption = (page) => timeline(page).locator(".timeline__caption");

/** The scenario to run first, fencing off, stepped on to t=10 s. */
async function atTheStaleWrite(t) {
  const page = await suite.page(t);
  await playScenarioToRunFirst(page, { fencing: false, start: false });
  await stepUntil(page, async () => (await clockSeconds(page)) >= 10, "the clock at 10 s");
  await timeline(page).scrollIntoViewIfNeeded();
  await poll(async () => (await staleWrite(page).count()) === 1, { what: "A's stale write marked once" });
  return page;
}

/** The centre of a locator's box, in page pixels. */
async function centre(locator) {
  const box = await locator.boundingBox();
  assert.ok(box, "the mark is laid out");
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Whether the topmost element at (x, y) belongs to the mark `locator`. */
async function markIsTopmostAt(locator, { x, y }) {
  return locator.evaluate((mark, [px, py]) => {
    const top = document.elementFromPoint(px, py);
    return top !== null && mark.contains(top);
  }, [x, y]);
}

test("the stale-write mark answers the pointer: hover shows its sentence, a press does what Enter does", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await atTheStaleWrite(t);
  const mark = staleWrite(page);
  const sentence = (await mark.locator("title").textContent()).trim();
  assert.match(sentence, /\bA\b/, `the sentence names the writer: ${sentence}`);

  // Nothing drawn over the mark takes the pointer from it.
  const at = await centre(mark);
  assert.ok(await markIsTopmostAt(mark, at), "the mark is the topmost element at its centre");

  // Hover: the caption says what focus would say.
  const idle = (await caption(page).innerText()).trim();
  await page.mouse.move(at.x, at.y);
  await poll(async () => (await caption(page).innerText()).trim() === sentence, { what: "the mark's sentence on hover" });
  const hoverStroke = await mark.locator(":scope > :not(title):not(text):not(.tl-hit)").first()
    .evaluate((el) => getComputedStyle(el).strokeWidth);
  assert.equal(hoverStroke, "3px", "the hovered mark is outlined as a focused one is");

  // Moving away without pressing clears it.
  await page.mouse.move(5, 5);
  await poll(async () => (await caption(page).innerText()).trim() === idle, { what: "the caption back to its hint" });

  // A press: the playhead goes to the write's moment, the mark takes the
  // focus, and its sentence stays when the pointer leaves.
  const before = await clockSeconds(page);
  const again = await centre(mark);
  await page.mouse.click(again.x, again.y);
  await poll(async () => (await clockSeconds(page)) < before, { what: "the playhead at the write's moment" });
  const pressedAt = await clockSeconds(page);
  assert.ok(pressedAt >= 8 && pressedAt < 10, `the stale write lands after A wakes at 8 s: t=${pressedAt}`);
  assert.ok(await mark.evaluate((el) => el === document.activeElement), "the pressed mark has the focus");
  await page.mouse.move(5, 5);
  assert.equal((await caption(page).innerText()).trim(), sentence, "the pressed mark's sentence stays");

  // Enter on the focused mark does the same from elsewhere in time.
  await playhead(page).focus();
  await page.keyboard.press("End");
  await poll(async () => (await clockSeconds(page)) >= 10, { what: "the end of the run" });
  await mark.focus();
  assert.equal((await caption(page).innerText()).trim(), sentence, "focus shows the same sentence");
  await page.keyboard.press("Enter");
  await poll(async () => (await clockSeconds(page)) === pressedAt, { what: "Enter taking the playhead to the same moment" });
});

test("every write mark is the topmost element at its centre", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await atTheStaleWrite(t);
  const writes = timeline(page).getByRole("img", { name: /write/i });
  const count = await writes.count();
  assert.ok(count >= 2, `B's write and A's stale write are marked: ${count}`);
  for (let i = 0; i < count; i += 1) {
    const mark = writes.nth(i);
    const name = await mark.getAttribute("class");
    if (!/tl-write/.test(name)) continue;
    assert.ok(await markIsTopmostAt(mark, await centre(mark)), `the ${name} mark is topmost at its centre`);
  }
});

test("the legend shows each client's colour, four distinct ones", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  const legend = timeline(page).getByRole("list", named("Legend"));
  const clients = legend.getByRole("listitem").filter({ hasText: /each client's colour/ });
  assert.equal(await clients.count(), 1, "one legend item names the clients' colours");
  assert.match((await clients.innerText()).replace(/\s+/g, " "), /A\s*B\s*C\s*D/);
  const colours = await clients
    .locator("[aria-hidden=true]")
    .evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
  assert.equal(colours.length, 4, `a swatch per client: ${colours}`);
  assert.equal(new Set(colours).size, 4, `four distinct colours: ${colours}`);
  // The same colours as the clients' bars in the picture.
  const hex = (rgb) => "#" + rgb.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, "0")).join("");
  await playScenarioToRunFirst(page, { fencing: false, start: false });
  const bars = await timeline(page).locator(".tl-granted-shape").evaluateAll((els) => els.map((e) => e.getAttribute("fill")));
  for (const fill of bars) assert.ok(colours.map(hex).includes(fill), `bar colour ${fill} is in the legend: ${colours.map(hex)}`);
  assert.ok(bars.length >= 2, `A's and B's granted bars are drawn: ${bars}`);
});
