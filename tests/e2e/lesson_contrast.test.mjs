// WCAG AA contrast in both colour schemes, in headless Chromium against the
// release build: axe-core's color-contrast rule (4.5:1 for text, 3:1 for
// large text) finds nothing on the full page, at the moment of corruption
// (the status strip's alarm, the cards, the resource's verdict), on the
// embedded page, on the comparison after it has run, on the hazard
// explorer's results, the Spanner story and the shortest failure found.
// The timeline's own words, which axe leaves undecided (shapes overlap in
// an SVG), are measured against what lies under them.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_contrast.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, clockSeconds, explorer, named, openPage, openView, playScenarioToRunFirst, poll, statusText, stepUntil, timeline } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const suite = browserSuite();
const AXE = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * A page in a fresh context in `scheme`. The page's Content-Security-Policy
 * refuses injected scripts; the context bypasses it so axe can run.
 */
/** The tabs of the views a `?view=` address opens. */
const VIEW_TABS = { compare: "Compare the systems", explore: "How likely?", spanner: "Spanner", find: "Properties and finder" };

async function openIn(t, scheme, path, problems) {
  const context = await suite.context(t, { bypassCSP: true, colorScheme: scheme }, problems);
  const view = path.match(/^\?view=(\w+)$/)?.[1];
  const page = await openPage(context, `${suite.server.url}${view ? "" : path}`);
  if (view) await openView(page, VIEW_TABS[view]);
  await page.emulateMedia({ colorScheme: scheme });
  return page;
}

/** axe-core's color-contrast findings on the whole document, one line each. */
async function contrastViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: "rule", values: ["color-contrast"] },
      resultTypes: ["violations"],
    });
    return result.violations.flatMap((v) =>
      v.nodes.map((n) => `${n.target.join(" ")}: ${n.any.map((c) => c.message).join("; ")} (${n.html.slice(0, 120)})`),
    );
  });
}

/**
 * Runs in the page: every word drawn in the timeline's picture against
 * what lies under its middle, which axe leaves undecided (shapes overlap
 * in an SVG). The fills under a word are composed with their opacity down
 * to the opaque ground; a hatch pattern counts as clear. Lists the words
 * under 4.5:1.
 */
function timelineWordsBelowAA() {
  const rgb = (colour) => {
    const m = colour.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const lum = ({ r, g, b }) => {
    const lin = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const over = (top, a, under) => ({
    r: top.r * a + under.r * (1 - a),
    g: top.g * a + under.g * (1 - a),
    b: top.b * a + under.b * (1 - a),
  });
  const svg = document.querySelector(".timeline__svg");
  const low = [];
  for (const text of svg.querySelectorAll("text")) {
    const box = text.getBoundingClientRect();
    if (box.width === 0 || !text.textContent.trim()) continue;
    const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
    const under = document.elementsFromPoint(x, y).filter((e) => e !== text && svg.contains(e) && e !== svg);
    const layers = [];
    for (const el of under) {
      // A line has no inside to fill (its computed fill is the default
      // black all the same): a message's line crossing a word is drawn
      // over it, not under it.
      if (el.tagName === "text" || el.tagName === "title" || el.tagName === "line") continue;
      const style = getComputedStyle(el);
      const fill = rgb(style.fill);
      if (!fill || fill.a === 0) continue;
      const a = fill.a * Number(style.fillOpacity) * Number(style.opacity);
      layers.push([fill, a]);
      if (a >= 1) break;
    }
    let ground = { r: 255, g: 255, b: 255 };
    for (const [fill, a] of layers.reverse()) ground = over(fill, Math.min(a, 1), ground);
    const ink = rgb(getComputedStyle(text).fill);
    const [l1, l2] = [lum(ink), lum(ground)];
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < 4.5) low.push(`"${text.textContent}" ${ratio.toFixed(2)}:1 (${getComputedStyle(text).fill} on rgb(${Object.values(ground).map(Math.round)}))`);
  }
  return low;
}

async function assertContrast(page, where) {
  const found = await contrastViolations(page);
  assert.deepEqual(found, [], `${where}:\n${found.join("\n")}`);
}

for (const scheme of ["light", "dark"]) {
  test(`${scheme}: the full page, idle, passes axe's color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const problems = [];
    const page = await openIn(t, scheme, "", problems);
    await assertContrast(page, `${scheme}, idle page`);
    assert.deepEqual(problems, [], problems.join("\n"));
  });

  test(`${scheme}: at the moment of corruption, the alarm and the cards pass the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const problems = [];
    const page = await openIn(t, scheme, "", problems);
    await playScenarioToRunFirst(page, { fencing: false, start: false });
    await stepUntil(page, async () => /corrupt|increments? (?:was|were) lost/i.test(await statusText(page)), "the status strip's alarm");
    await assertContrast(page, `${scheme}, fencing off, corrupted`);
    // And the words in the timeline's picture, played on to the end.
    await stepUntil(page, async () => (await clockSeconds(page)) >= 10, "the clock at 10 s");
    await timeline(page).scrollIntoViewIfNeeded();
    const low = await page.evaluate(timelineWordsBelowAA);
    assert.deepEqual(low, [], `${scheme}, the timeline's words:\n${low.join("\n")}`);
    assert.deepEqual(problems, [], problems.join("\n"));
  });

  test(`${scheme}: with fencing on, the rejected write passes the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "", []);
    await playScenarioToRunFirst(page, { fencing: true, start: false });
    await stepUntil(page, async () => /rejected\s*[:=]?\s*1|1\s*rejected/i.test(await statusText(page)), "the rejected write");
    await assertContrast(page, `${scheme}, fencing on, rejected`);
    await timeline(page).scrollIntoViewIfNeeded();
    const low = await page.evaluate(timelineWordsBelowAA);
    assert.deepEqual(low, [], `${scheme}, the timeline's words:\n${low.join("\n")}`);
  });

  test(`${scheme}: the embedded page with its story passes the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "?embed=1&preset=gc-pause", []);
    await page.getByRole("button", named("Next")).click();
    await poll(async () => (await page.getByRole("button", named("Start")).count()) === 1, { what: "the first key moment" });
    await assertContrast(page, `${scheme}, embed`);
  });

  test(`${scheme}: the comparison, run, passes the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "?view=compare", []);
    await page.getByRole("button", { name: /Run the comparison/ }).click();
    const table = page.getByRole("table").filter({ has: page.getByRole("button", { name: /: corrupted\. Open this run$/ }) });
    await poll(async () => (await table.getByRole("row").count()) >= 9, { what: "a row per system", timeout: 4 * PATIENCE_MS });
    await poll(async () => (await page.getByRole("button", { name: /: rejected\. Open this run$/ }).count()) > 0, { what: "a rejected cell" });
    await assertContrast(page, `${scheme}, comparison`);
  });

  test(`${scheme}: the hazard explorer's results pass the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "?view=explore", []);
    const section = explorer(page);
    const open = section.getByRole("button", named("Open the hazard explorer"));
    if (await open.count()) await open.click();
    await section.getByLabel("TTLs (s)").waitFor({ timeout: 4 * PATIENCE_MS });
    // Long pauses, often: cells of several colours, failures among them.
    await section.getByLabel("Pause profile").selectOption("custom");
    await section.getByLabel("Custom: pauses per hour").fill("3600");
    await section.getByLabel("Custom: median pause (ms)").fill("5000");
    await section.getByLabel("Custom: p99 pause (ms)").fill("20000");
    await section.getByLabel("Think time between holds (s)").fill("2");
    await section.getByLabel("TTLs (s)").fill("1, 2, 30");
    await section.getByLabel("Second axis values").fill("5, 20");
    await section.getByLabel("Trials per cell").fill("8");
    await section.getByRole("button", named("Run")).click();
    const bar = section.getByRole("progressbar");
    await poll(async () => (await bar.count()) === 1 && (await bar.getAttribute("aria-valuenow")) === "6", {
      what: "all six cells",
      timeout: 4 * PATIENCE_MS,
    });
    await section.getByText("Table view").click();
    await assertContrast(page, `${scheme}, hazard explorer`);
  });

  test(`${scheme}: the Spanner story and the shortest failure found pass the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "?view=spanner", []);
    const spanner = page.getByRole("region", named("Spanner: clocks with an error bar"));
    await spanner.getByRole("button", { name: /Tell the story/ }).click();
    await poll(async () => (await spanner.getByRole("radio", named("runs 20% slow, no error bar")).count()) === 1, {
      what: "the Spanner story drawn",
      timeout: 4 * PATIENCE_MS,
    });
    await assertContrast(page, `${scheme}, Spanner (TrueTime)`);
    await spanner.getByRole("radio", named("runs 20% slow, no error bar")).check();
    await assertContrast(page, `${scheme}, Spanner (slow clock)`);

    const found = await openIn(t, scheme, "?view=find", []);
    const finder = found.getByRole("group", named("Find the shortest failure"));
    await finder.getByRole("button", named("Find the shortest failure")).click();
    await finder.getByText(/Broken in \d+ moves/).waitFor({ timeout: 4 * PATIENCE_MS });
    await assertContrast(found, `${scheme}, the shortest failure`);
  });
}
