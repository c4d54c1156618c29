// The lesson on one screen: a newcomer who follows the article's words by
// hand sees the lock break, and why, without scrolling; the status strip
// stays in view wherever the page is scrolled; the tools are views of
// their own, with their own addresses.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_stage.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { card, cardButton, cardText, chooseBackend, named, playScenarioToRunFirst, poll, setFencing, setTtl, statusStrip, statusText, stepUntil, waitForCardState } from "./ui.mjs";

const TEST_TIMEOUT_MS = 180_000;

const suite = browserSuite();

const serviceSummary = (page) => page.getByRole("group", named("Lock service at a glance"));
const resourceLine = (page) => page.getByRole("group", named("Resource at a glance"));

/** Whether `locator`'s box lies wholly inside the window as it is scrolled now. */
async function inView(locator) {
  const box = await locator.boundingBox();
  const { width, height } = locator.page().viewportSize();
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= height && box.x + box.width <= width;
}

/** Steps until the status strip gives the stale write's verdict. */
async function stepToVerdict(page) {
  await stepUntil(
    page,
    async () => /corrupted|increments? (?:was|were) lost|fencing stopped/i.test(await statusText(page)),
    "the resource's verdict on A's write",
    400,
  );
}

test("at 1280 x 800, at the moment of corruption, the status strip, the four cards, the lock service and the resource's verdict are in the first screen", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t, "", { viewport: { width: 1280, height: 800 } });
  await playScenarioToRunFirst(page, { fencing: false, start: false });
  await stepToVerdict(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const part of [statusStrip(page), card(page, "A"), card(page, "D"), serviceSummary(page), resourceLine(page)]) {
    assert.ok(await inView(part), `${part} is in the first screen`);
  }
  assert.match(await statusText(page), /corrupted|increments? (?:was|were) lost/i);
  assert.match(await resourceLine(page).innerText(), /corrupted|stale|lost/i, "the resource says what it accepted");
});

test("at 390 x 844 the verdict is in view the moment it happens, and the strip stays in view wherever the page is scrolled", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t, "", { viewport: { width: 390, height: 844 } });
  await playScenarioToRunFirst(page, { fencing: false, start: false });
  await stepToVerdict(page);
  // Wherever the last click left the page (B's card), the verdict shows.
  assert.ok(await inView(statusStrip(page).getByText(/corrupted|increments? (?:was|were) lost/i)), "the verdict is in view where the visitor is");
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  assert.ok(await inView(statusStrip(page)), "the strip sticks at the foot of the page too");
});

test("the simulator is short when idle, and the tools are views with their own addresses", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t, "", { viewport: { width: 1280, height: 800 } });
  const tall = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(tall <= 2.5 * 800, `the simulator view is ${tall} px tall, at most 2.5 screens`);

  const views = page.getByRole("navigation", named("Views"));
  await views.getByRole("link", named("Compare the systems")).click();
  await poll(() => page.url().includes("?view=compare"), { what: "the comparison's address" });
  await page.getByRole("button", { name: /Run the comparison/ }).waitFor({ state: "visible" });
  assert.equal(await card(page, "A").isVisible(), false, "the simulator is put away");
  await views.getByRole("link", named("Simulator")).click();
  await card(page, "A").waitFor({ state: "visible" });
  assert.ok(!page.url().includes("view="), "the simulator's address has no view");

  // An address opens its view; the explorer's own links open the explorer.
  const compare = await suite.page(t, "?view=compare");
  await compare.getByRole("button", { name: /Run the comparison/ }).waitFor({ state: "visible" });
  const explorer = await suite.page(t, "?explore&system=etcd");
  await explorer.getByRole("region", named("Hazard explorer")).waitFor({ state: "visible" });
  const unknown = await suite.page(t, "?view=nowhere");
  await card(unknown, "A").waitFor({ state: "visible" });
});

// The systems whose lock is a lease that a pause outlives, with the pause
// the card offers that does it (Chubby's session and lock-delay, and
// Consul's doubled TTL and lock-delay, outlast 8 s), and whether B asks
// only once the service says nobody holds the lock: Redlock's acquire is
// one try on the five nodes, which fails while A's keys live; the others'
// clients wait in line.
const LEASES = [
  ["Redis", 8, false],
  ["Redlock", 8, true],
  ["ZooKeeper", 8, false],
  ["etcd", 8, false],
  ["Chubby", 40, false],
  ["Consul", 40, false],
  ["DynamoDB", 8, false],
];

for (const [system, pauseS, askWhenFree] of LEASES) {
  test(`following the article's words by hand on ${system}: corrupted with fencing off, rejected with it on`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await suite.page(t, "", { viewport: { width: 1280, height: 800 } });
    await chooseBackend(page, system);
    await setTtl(page, 5);
    for (const fencing of [false, true]) {
      await setFencing(page, fencing);
      // "A acquires the lock."
      await cardButton(page, "A", "Acquire").click();
      await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "A")), `${system}: A holding`, 400);
      // "A takes a long GC pause."
      await card(page, "A").getByRole("combobox", named("Pause (s), client A")).selectOption(String(pauseS));
      await cardButton(page, "A", "GC pause").click();
      await waitForCardState(page, "A", "paused");
      // "...and writes": the write clicked during the pause leaves as A wakes.
      await cardButton(page, "A", "Write on wake").click();
      // "B acquires the lock once A's lease is gone, and writes."
      if (askWhenFree) {
        await stepUntil(page, async () => /\bholder\s+nobody\b/i.test(await statusText(page)), `${system}: A's lease gone`, 400);
      }
      await cardButton(page, "B", "Acquire").click();
      await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "B")), `${system}: B holding`, 2_000);
      await cardButton(page, "B", "Write").click();
      await stepToVerdict(page);
      const verdict = await statusText(page);
      if (fencing) assert.match(verdict, /fencing stopped/i, `${system} with fencing: ${verdict}`);
      else assert.match(verdict, /corrupted|increments? (?:was|were) lost/i, `${system} without fencing: ${verdict}`);
      if (!fencing) await page.getByRole("button", named("Reset")).click();
    }
  });
}
