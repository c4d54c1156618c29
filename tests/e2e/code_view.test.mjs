// The Code view: closed on the first screen, opened by its button, it
// shows the run's system's client code and marks, in text, the line each
// client is at as the run is stepped: A inside write() for its whole GC
// pause, B inside acquire() while it asks.
//
// Run: `trunk build --release --offline && node --test tests/e2e/code_view.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { cardButton, cardText, chooseBackend, clockButton, named, playScenarioToRunFirst, poll } from "./ui.mjs";

const TEST_TIMEOUT_MS = 180_000;
const TOGGLE = "Show the code";

const suite = browserSuite();

const codeRegion = (page) => page.getByRole("region", named("Code"));
/** The client listing's line for an operation (`data-op`). */
const line = (page, op) => codeRegion(page).locator(`pre[aria-label^="Client code"] [data-op="${op}"]`);
/** The clients whose letters the line shows: its gutter's visible text. */
const lettersAt = async (page, op) => ((await line(page, op).innerText()).match(/^[A-D ]*(?=▸)/) ?? [""])[0].replace(/\s/g, "");

async function openCode(page, listing) {
  const toggle = page.getByRole("button", named(TOGGLE));
  assert.equal(await toggle.getAttribute("aria-expanded"), "false", "closed at first");
  await toggle.focus();
  await page.keyboard.press("Enter");
  assert.equal(await toggle.getAttribute("aria-expanded"), "true");
  await poll(async () => (await codeRegion(page).getByLabel(`Client code: ${listing}`, { exact: true }).count()) === 1, {
    what: `the ${listing} listing`,
  });
}

test("the Code view follows the system and marks A inside write() for its whole pause", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  assert.equal(await codeRegion(page).locator("pre").count(), 0, "no listing before it is asked for");
  await openCode(page, "etcd clientv3/concurrency");
  // The view follows the system: redis-py for Redis, then etcd's Go
  // client again for the scenario.
  await chooseBackend(page, "Redis");
  await poll(async () => (await codeRegion(page).getByLabel("Client code: redis-py", { exact: true }).count()) === 1, {
    what: "redis-py's listing",
  });
  await playScenarioToRunFirst(page, { fencing: false, start: false });
  await poll(async () => (await codeRegion(page).getByLabel("Client code: etcd clientv3/concurrency", { exact: true }).count()) === 1, {
    what: "etcd's listing",
  });
  assert.match(await cardText(page, "A"), /\bpaused\b/i);
  assert.ok((await lettersAt(page, "write")).includes("A"), "A is inside write() while frozen");
  // Step through the rest of the pause: A never leaves write().
  let steps = 0;
  while (/\bpaused\b/i.test(await cardText(page, "A"))) {
    assert.ok((await lettersAt(page, "write")).includes("A"), `A inside write() at step ${steps}`);
    for (const op of ["acquire", "check", "renew", "release", "idle"]) {
      assert.ok(!(await lettersAt(page, op)).includes("A"), `A is not at ${op} at step ${steps}`);
    }
    await clockButton(page, "Step").click();
    steps += 1;
    assert.ok(steps < 400, "A wakes within 400 steps");
  }
  // Woken, its queued write has left: still inside write() until the reply.
  assert.ok((await lettersAt(page, "write")).includes("A"), "A's write leaves as it wakes");
});

test("B is shown blocked in acquire() while it asks, and C and D at their job's entry", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  await chooseBackend(page, "Redis");
  await openCode(page, "redis-py");
  assert.equal(await lettersAt(page, "idle"), "ABCD", "all four idle at first");
  await cardButton(page, "A", "Acquire").click();
  await cardButton(page, "B", "Acquire").click();
  await poll(async () => (await lettersAt(page, "acquire")).includes("B"), { what: "B inside acquire()" });
  assert.equal(await lettersAt(page, "idle"), "CD");
  // The marked lines are the ones a reader can name: the listing is a
  // labelled, focusable region.
  const pre = codeRegion(page).getByLabel("Client code: redis-py", { exact: true });
  assert.equal(await pre.getAttribute("tabindex"), "0");
});
