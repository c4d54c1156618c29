// The release build's first screen is drawn at build time
// (examples/prerender.rs), so it is on screen before the page's wasm has
// arrived, and looks the same as the started page's. What a visitor presses
// or types on it meanwhile is done again once the page starts
// (assets/boot.js), not lost. In headless Chromium against the release build.
//
// Run: `trunk build --release --offline && node --test tests/e2e/prerender.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { card, started } from "./ui.mjs";

const TEST_TIMEOUT_MS = 90_000;
const named = (name) => ({ name, exact: true });
const PAGE_WASM = /distlock-[0-9a-f]+_bg\.wasm$/;

const suite = browserSuite();

/** A context whose page wasm waits until `release()` is called. */
async function heldContext(t) {
  const context = await suite.context(t);
  let release;
  const released = new Promise((done) => (release = done));
  await context.route(PAGE_WASM, async (route) => {
    await released;
    await route.continue();
  });
  return { context, release };
}

test("the first screen is on show before the wasm, and what is pressed on it is done once the page starts", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));
  const { context, release } = await heldContext(t);
  const page = await context.newPage();
  await page.goto(suite.server.url);

  // Before the wasm: the four clients, the service and the resource.
  const first = page.locator("#distlock-first");
  assert.equal(await first.getAttribute("aria-busy"), "true");
  for (const id of ["A", "B", "C", "D"]) assert.ok(await card(page, id).isVisible(), `client ${id} is drawn`);
  assert.match(await page.locator(".stage").innerText(), /nobody holds the lock/);

  // Pressed and typed before the page runs.
  await page.getByRole("button", named("Keyboard shortcuts (?)")).click();
  await page.getByRole("spinbutton", named("TTL (s)")).fill("9");
  assert.equal(await first.count(), 1, "the page has not started yet");

  release();
  await started(page);
  assert.equal(await page.locator("[aria-busy]").count(), 0, "nothing says it is loading");
  await page.getByRole("button", named("Hide keyboard shortcuts")).and(page.locator('[aria-expanded="true"]')).waitFor();
  const ttl = page.getByRole("spinbutton", named("TTL (s)"));
  assert.equal(await ttl.inputValue(), "9");
});

test("a link's run is applied once the page starts, over the default first screen", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));
  const context = await suite.context(t);
  const page = await context.newPage();
  await page.goto(`${suite.server.url}?preset=gc-pause`);
  await started(page);
  await page.getByRole("group", named("Tour")).waitFor();
});
