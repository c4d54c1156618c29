// The page's wasm in two parts (scripts/build/split.mjs): the plain page
// starts on the first part alone and fetches the rest once started; a page
// opened on a story fetches both at once; and a click that reaches moved
// code before the rest is in still works, the rest loaded there and then.
//
// Run: `trunk build --release --offline && node --test tests/e2e/split.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { cardButton, openPage, poll, startClock, statusText, waitForCardState } from "./ui.mjs";

const suite = browserSuite();
const files = await readdir(process.env.DIST_DIR || "dist");
const first = files.find((f) => /^distlock-[0-9a-f]+_bg\.wasm$/.test(f));
const rest = files.find((f) => /^distlock-[0-9a-f]+_split\.wasm$/.test(f));

/** The page's wasm requests of `context`, in order, as file names. */
function wasmRequests(context) {
  const seen = [];
  context.on("request", (req) => {
    const name = new URL(req.url()).pathname.slice(1);
    if (name === first || name === rest) seen.push(name);
  });
  return seen;
}

test("the release build's page wasm comes in two parts", () => {
  assert.ok(first, `no page wasm in ${files.join(", ")}`);
  assert.ok(rest, "no rest of the page's wasm: the build did not split it (scripts/build/split.sh says why)");
});

test("the plain page starts on the first part and fetches the rest once, after", async (t) => {
  const context = await suite.context(t);
  const seen = wasmRequests(context);
  const page = await openPage(context, suite.server.url);
  await poll(async () => seen.includes(rest), { what: "the rest of the wasm fetched" });
  assert.deepEqual(seen, [first, rest]);
  // The page runs on it: A takes the lock and the clock runs.
  await cardButton(page, "A", "Acquire").click();
  await startClock(page);
  await waitForCardState(page, "A", "holding");
  assert.deepEqual(seen, [first, rest], "fetched once");
});

test("a page opened on a story fetches both parts at once and plays it", async (t) => {
  const context = await suite.context(t);
  const seen = wasmRequests(context);
  const page = await openPage(context, `${suite.server.url}?preset=gc-pause&autoplay=1`);
  assert.deepEqual([...seen].sort(), [first, rest].sort());
  await poll(async () => /t=[1-9]/.test(await statusText(page)), { what: "the story's clock running" });
  assert.equal(seen.length, 2, seen.join(", "));
});

test("a click before the rest is in loads it there and then, and works", async (t) => {
  const problems = [];
  const context = await suite.context(t, {}, problems);
  const seen = wasmRequests(context);
  // The background fetch of the rest is held until the click is done.
  let release;
  const held = new Promise((done) => (release = done));
  let holding = true;
  await context.route(`**/${rest}`, async (route) => {
    if (holding) {
      holding = false;
      await held;
    }
    await route.continue();
  });
  const page = await openPage(context, suite.server.url);
  await cardButton(page, "A", "Acquire").click();
  await startClock(page);
  await waitForCardState(page, "A", "holding");
  release();
  assert.equal(seen.filter((name) => name === rest).length, 2, "the rest loaded synchronously, beside the held fetch");
  // Chromium warns of any synchronous request on the page's thread; that
  // is the one thing this path may say.
  const others = problems.filter((p) => !/Synchronous XMLHttpRequest on the main thread/.test(p));
  assert.deepEqual(others, []);
});

test("a story page whose rest fails to come starts all the same, and loads the rest when it needs it", async (t) => {
  const problems = [];
  const context = await suite.context(t, {}, problems);
  const seen = wasmRequests(context);
  let failed = false;
  await context.route(`**/${rest}`, async (route) => {
    if (failed) return route.continue();
    failed = true;
    await route.abort();
  });
  const page = await openPage(context, `${suite.server.url}?preset=gc-pause&autoplay=1`);
  await poll(async () => /t=[1-9]/.test(await statusText(page)), { what: "the story's clock running" });
  assert.equal(seen.filter((name) => name === rest).length, 2, "fetched beside the first part, then again when needed");
  // What it may say: the failed fetch, why, and Chromium's word on the
  // synchronous request that brought the rest.
  const expected = /request failed: .*_split\.wasm|Failed to load resource.*_split\.wasm|the rest of the page's wasm|Synchronous XMLHttpRequest on the main thread/;
  assert.deepEqual(problems.filter((p) => !expected.test(p)), []);
  assert.ok(problems.some((p) => /the rest of the page's wasm/.test(p)), problems.join("\n"));
});
