// The timeline in headless Chromium against the release build: moving the
// playhead back shows the whole page as it was, a command there forks the
// run, zoom works, and the picture and the run download.
//
// Run: `trunk build --release --offline && node --test tests/e2e/`

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { cardButton, cardText, clockSeconds, named, playScenarioToRunFirst, playhead, poll, stepUntil, timeline } from "./ui.mjs";

const TEST_TIMEOUT_MS = 90_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], "no console errors, warnings or failed requests"));

const freshPage = (t) => suite.page(t, "", { acceptDownloads: true });

const picture = (page) => timeline(page).locator("svg.timeline__svg");

/**
 * Page x of the time axis at `seconds`, read off the labelled ticks: any
 * two of them, since their step depends on how long the run is.
 */
async function axisX(page, seconds) {
  const ticks = await picture(page)
    .locator(".tl-tick")
    .evaluateAll((els) => els.map((e) => [e.textContent, e.getBoundingClientRect().left - 3]));
  const known = ticks
    .map(([text, x]) => [Number((text.match(/^(\d+(?:\.\d+)?) s$/) ?? [])[1]), x])
    .filter(([s]) => Number.isFinite(s));
  assert.ok(known.length >= 2, `two labelled ticks on the axis: ${JSON.stringify(ticks)}`);
  const [[s0, x0], [s1, x1]] = known;
  return x0 + ((x1 - x0) * (seconds - s0)) / (s1 - s0);
}

/** Drags along the time axis to `seconds`, as a visitor would. */
/**
 * Runs in the page: false while the page is still scrolled to `from`;
 * once it has moved, waits until it stays put for five frames, then true.
 */
async function scrollMovedAndRests(from) {
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  if (window.scrollY === from) {
    await frame();
    return false;
  }
  let y = window.scrollY;
  for (let still = 0; still < 5; ) {
    await frame();
    if (window.scrollY === y) still += 1;
    else [y, still] = [window.scrollY, 0];
  }
  return true;
}

async function dragPlayheadTo(page, seconds) {
  const box = await picture(page).boundingBox();
  const y = box.y + 10;
  await page.mouse.move(await axisX(page, Math.max(0, seconds - 1)), y);
  await page.mouse.down();
  await page.mouse.move(await axisX(page, seconds), y, { steps: 6 });
  await page.mouse.up();
}

/**
 * The scenario to run first, played on to t=10 s with Step: where the run
 * ends does not depend on how soon Pause lands on a busy machine.
 */
async function finishedScenario(t, fencing) {
  const page = await freshPage(t);
  await playScenarioToRunFirst(page, { fencing, start: false });
  await stepUntil(page, async () => (await clockSeconds(page)) >= 10, "the clock at 10 s");
  return page;
}

test("dragging the playhead to t=6 s shows A paused and B holding; a command there forks", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await finishedScenario(t, false);
  const end = await clockSeconds(page);
  await timeline(page).scrollIntoViewIfNeeded();
  assert.equal(await picture(page).locator(".tl-write--stale").count(), 1, "A's stale write is marked");
  assert.ok((await picture(page).locator(".tl-zone--alarm").count()) >= 1, "A's believed-holder band is drawn");

  await dragPlayheadTo(page, 6);
  const now = await clockSeconds(page);
  assert.ok(Math.abs(now - 6) <= 0.15, `the clock follows the playhead to 6 s, got ${now}`);
  assert.match(await cardText(page, "A"), /\bpaused\b/i, "A is frozen at 6 s");
  assert.match(await cardText(page, "B"), /\bholding\b/i, "B holds at 6 s");
  const note = timeline(page).getByRole("status");
  assert.match(await note.innerText(), /Looking back at t=(5\.9|6\.\d) s of a run that went on to/);

  // The keyboard on the playhead: End returns to the end of the run.
  await playhead(page).focus();
  await page.keyboard.press("End");
  await poll(async () => (await clockSeconds(page)) === end, { what: "the end of the run" });
  assert.match(await cardText(page, "B"), /\bholding\b/i);
  await page.keyboard.press("ArrowLeft");
  await poll(async () => (await clockSeconds(page)) === Math.round((end - 1) * 10) / 10, { what: "one second back" });

  await dragPlayheadTo(page, 6);
  await cardButton(page, "C", "Acquire").click();
  await poll(async () => /Forked at (5\.9|6\.\d) s/.test(await page.locator("body").innerText()), { what: "the fork note" });
  assert.equal(await timeline(page).getByText(/Looking back at/).count(), 0, "no future is left to look back from");
});

test("zoom in, pan and fit the whole run", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await finishedScenario(t, true);
  const labels = async () => picture(page).locator(".tl-tick").allTextContents();
  const whole = await labels();
  assert.ok(whole.includes("0 s") && whole.includes("10 s"), `the whole run is in view: ${whole}`);
  await timeline(page).getByRole("button", named("Zoom in")).click();
  await timeline(page).getByRole("button", named("Zoom in")).click();
  const zoomed = await labels();
  assert.ok(!zoomed.includes("0 s"), `zoomed in around the playhead: ${zoomed}`);
  await timeline(page).getByRole("button", named("Pan back in time")).click();
  assert.notDeepEqual(await labels(), zoomed, "panning moves the window");
  await timeline(page).getByRole("button", named("Fit the whole run")).click();
  assert.deepEqual(await labels(), whole);
  // Ctrl + wheel (a trackpad pinch) zooms around the pointer; a plain wheel
  // is left to the page.
  const box = await picture(page).boundingBox();
  await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
  const scrolledFrom = await page.evaluate(() => window.scrollY);
  await page.mouse.wheel(0, 300);
  assert.deepEqual(await labels(), whole, "a plain wheel does not zoom");
  // The plain wheel scrolls the page, and the scroll goes on after
  // `mouse.wheel` returns: wait until it has moved and stopped, then point
  // at the picture again.
  await poll(() => page.evaluate(scrollMovedAndRests, scrolledFrom), { what: "the plain wheel to scroll the page" });
  const moved = await picture(page).boundingBox();
  await page.mouse.move(moved.x + moved.width * 0.8, moved.y + moved.height / 2);
  await page.keyboard.down("Control");
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -100);
  await page.keyboard.up("Control");
  await poll(async () => !(await labels()).includes("0 s"), { what: "Ctrl + wheel to zoom in" });
  await timeline(page).getByRole("button", named("Fit the whole run")).click();
  assert.equal(await picture(page).locator(".tl-write--rejected").count(), 1, "fencing on: A's write is rejected");
});

test("the picture downloads as SVG and PNG, and the run as JSON", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await finishedScenario(t, false);
  const save = async (name) => {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      timeline(page).getByRole("button", named(name)).click(),
    ]);
    return [download.suggestedFilename(), await readFile(await download.path())];
  };
  const [svgName, svg] = await save("SVG");
  assert.equal(svgName, "distlock-run.svg");
  assert.match(svg.toString(), /^<\?xml[^>]*>\s*<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg.toString(), /believed holder/);
  const [pngName, png] = await save("PNG");
  assert.equal(pngName, "distlock-run.png");
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG file");
  const [jsonName, json] = await save("Run (JSON)");
  assert.equal(jsonName, "distlock-run.json");
  const run = JSON.parse(json.toString());
  assert.equal(run.config.backend, "etcd");
  assert.ok(run.actions.length >= 5, "every command with its time");
  assert.ok(
    run.history.some((r) => Number.isInteger(r.at_ms) && /the resource accepted/.test(r.text)),
    "the history, a timed sentence per record",
  );
});
