// The real page, in headless Chromium, against the release build in dist/.
// Every step is a click, a key press or a choice a visitor could make, found
// through accessible names. Waits poll the page; nothing sleeps blindly.
//
// Run: `trunk build --release --offline && node --test tests/e2e/`
// (DIST_DIR=some/dir serves another build instead of dist/).

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import {
  CLIENTS,
  PATIENCE_MS,
  card,
  cardButton,
  cardText,
  chooseBackend,
  clockSeconds,
  eventLines,
  pauseClock,
  playScenarioToRunFirst,
  poll,
  rejectedCount,
  setFencing,
  setMaxSpeed,
  setTtl,
  startClock,
  statusText,
  stepUntil,
  visibleCount,
  waitForCardState,
  waitForClock,
} from "./ui.mjs";

// The status strip's verdict, which stays in view wherever the page is.
const CORRUPTED = /Counter corrupted|increments? (?:was|were) lost/;
const SAVED = /Fencing stopped/;
const TEST_TIMEOUT_MS = 90_000;

const suite = browserSuite();
/** Everything the page did wrong during the whole suite; checked last. */
const problems = suite.problems;
const freshPage = (t) => suite.page(t);

/** Lines in `now` that were not in `earlier` (as multisets, order-free). */
function newLines(earlier, now) {
  const seen = new Map();
  for (const line of earlier) seen.set(line, (seen.get(line) ?? 0) + 1);
  return now.filter((line) => {
    const left = seen.get(line) ?? 0;
    if (left === 0) return true;
    seen.set(line, left - 1);
    return false;
  });
}

/**
 * A line saying a keepalive went through: a keepalive sent, or the lease it
 * renewed ("A renewed its lease until t=9.1 s"). Lines that mention
 * keepalives only to say they are missing (dropped by the partition, lease
 * expired for want of one) do not count.
 */
const isKeepalive = (line) =>
  /keep-?alive|\brenew(ed|s)\b/i.test(line) &&
  !/drop|lost|block|partition|expir|missed|no keep-?alive|fail|time[sd]? ?out/i.test(line);

describe("the page in a real browser", () => {
  test("the scenario to run first, fencing off: A's late write corrupts the counter", { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await freshPage(t);
    const shownBefore = { corrupted: await visibleCount(page, CORRUPTED), saved: await visibleCount(page, SAVED) };

    await playScenarioToRunFirst(page, { fencing: false });

    await poll(async () => (await visibleCount(page, CORRUPTED)) > shownBefore.corrupted, {
      what: `the verdict ${CORRUPTED}`,
    });
    assert.equal(await visibleCount(page, SAVED), shownBefore.saved, "no fencing verdict with fencing off");
    assert.equal(await rejectedCount(page), 0, `nothing rejected with fencing off; status: ${await statusText(page)}`);
  });

  test("the scenario to run first, fencing on: the stale write is rejected", { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await freshPage(t);
    const shownBefore = { corrupted: await visibleCount(page, CORRUPTED), saved: await visibleCount(page, SAVED) };

    await playScenarioToRunFirst(page, { fencing: true });

    await poll(async () => (await visibleCount(page, SAVED)) > shownBefore.saved, {
      what: `the verdict ${SAVED}`,
    });
    await poll(async () => (await rejectedCount(page)) === 1, { what: "rejected count 1 in the status strip" });
    assert.equal(await visibleCount(page, CORRUPTED), shownBefore.corrupted, "no corruption verdict with fencing on");
    assert.match(await statusText(page), /holder/i);
    assert.match(await statusText(page), /token/i);
  });

  test("switching backends resets the run", { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await freshPage(t);
    await chooseBackend(page, "Redlock");
    await setMaxSpeed(page);

    for (const next of ["ZooKeeper", "etcd", "Redlock"]) {
      await cardButton(page, "A", "Acquire").click();
      await cardButton(page, "C", "Acquire").click();
      await startClock(page);
      // A and C ask at the same instant: which is granted first is the
      // seeded network's draw, and differs by system.
      await poll(async () => /HOLDER\s+[AC]\b/.test(await statusText(page)), {
        what: `A or C holding before the switch to ${next}`,
      });
      await waitForClock(page, 1);
      await pauseClock(page);
      assert.ok((await clockSeconds(page)) >= 1, "the clock moved before the switch");

      await chooseBackend(page, next);

      await poll(async () => /t\s*=\s*0\.0\s*s/.test(await statusText(page)), {
        what: `the clock back at t=0.0 s after switching to ${next}`,
      });
      for (const id of CLIENTS) await waitForCardState(page, id, "idle");
    }
  });

  test("Partition cuts A off: its card says partitioned and its keepalives stop", { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await freshPage(t);
    await chooseBackend(page, "etcd");
    await setTtl(page, 5);
    await setMaxSpeed(page);

    // Only A is active, so every keepalive in the log is A's.
    await cardButton(page, "A", "Acquire").click();
    await startClock(page);
    await waitForCardState(page, "A", "holding");
    await poll(async () => (await eventLines(page)).some(isKeepalive), {
      what: "a keepalive line in the event log before the partition",
    });

    await pauseClock(page);
    await cardButton(page, "A", "Partition").click();
    await waitForCardState(page, "A", "partitioned");
    await cardButton(page, "A", "Heal").waitFor({ state: "visible", timeout: PATIENCE_MS });

    const partitionedAt = await clockSeconds(page);
    const linesAtPartition = await eventLines(page);
    await startClock(page);
    // Longer than the TTL: several keepalive periods would have passed.
    await waitForClock(page, partitionedAt + 6);
    await pauseClock(page);

    const fresh = newLines(linesAtPartition, await eventLines(page));
    assert.deepEqual(
      fresh.filter(isKeepalive),
      [],
      `no keepalive lines after the partition at t=${partitionedAt} s; new lines were:\n${fresh.join("\n")}`,
    );
    assert.match(await cardText(page, "A"), /\bpartitioned\b/i, "A stays partitioned until healed");
  });

  // Runs last: it checks what the page did during every test above.
  test("no console errors or warnings and no request leaves the page's origin", async () => {
    assert.deepEqual(problems, [], problems.join("\n"));
  });
});
