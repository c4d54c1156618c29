// The eight lock systems and their comparison, in headless Chromium against
// the release build: each system plays the scenario to run first and tells
// its own truth; one cell of the comparison opens its run.
//
// Run: `trunk build --release --offline && node --test tests/e2e/`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, chooseBackend, named, openView, poll, rejectedCount, setMaxSpeed, statusText, tour, tourNext, tourText } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();
const freshPage = (t) => suite.page(t);

const SYSTEMS = ["Redis", "Redlock", "ZooKeeper", "etcd", "Chubby", "Consul", "DynamoDB", "PostgreSQL"];


/** Plays the loaded story's tour to its last key moment; returns its caption. */
async function playTour(page) {
  let text = await tourText(page);
  while (await tour(page).getByRole("button", named("Next")).isEnabled()) {
    const before = text;
    await tourNext(tour(page));
    text = await poll(
      async () => {
        const now = await tourText(page);
        const stopped = (await page.getByRole("button", named("Start")).count()) === 1;
        return stopped && now !== before && now;
      },
      // The tour plays up to its next key moment on the page's clock, so
      // a busy machine's slow frames stretch it: patience to match.
      { what: "the tour to stop on its next key moment", timeout: 4 * PATIENCE_MS },
    );
  }
  return text;
}

describe("eight lock systems", { timeout: TEST_TIMEOUT_MS }, () => {
  test("the backend switch names all eight, in one radio group", async (t) => {
    const page = await freshPage(t);
    const group = page.getByRole("radiogroup", named("Backend"));
    for (const name of SYSTEMS) assert.equal(await group.getByRole("radio", named(name)).count(), 1, name);
  });

  for (const system of SYSTEMS) {
    test(`${system}: the scenario to run first tells its truth`, async (t) => {
      const page = await freshPage(t);
      await chooseBackend(page, system);
      await setMaxSpeed(page);
      await page.getByRole("button", named("Stories")).click();
      await page.getByRole("button", named("A GC pause outlives the lease")).click();
      assert.ok(await page.getByRole("radio", named(system)).isChecked(), "the story keeps the system");
      // The tour's last key moment is A's late write landing.
      await playTour(page);
      if (system === "PostgreSQL") {
        // No lease: A never loses the lock, so nothing is corrupted.
        assert.equal(await page.getByText(/Two holders, one (?:corrupted counter|increment lost)/).count(), 0);
        assert.doesNotMatch(await statusText(page), /Counter corrupted|increments? (?:was|were) lost/);
        return;
      }
      await poll(async () => (await page.getByText(/Two holders, one (?:corrupted counter|increment lost)/).count()) > 0, {
        what: `the corruption banner on ${system}`,
      });
      // Try this: fencing on, and the late write is refused.
      await page.getByRole("button", named("Turn fencing on")).click();
      await playTour(page);
      await poll(async () => (await rejectedCount(page)) === 1, { what: `the rejected write on ${system}` });
    });
  }

  test("the comparison is a table of runs, and a cell opens its run", async (t) => {
    const page = await freshPage(t);
    assert.equal(page.workers().length, 0, "the worker is not loaded before it is asked for");
    // Counted from the page's "worker" events, which no poll can miss
    // between a worker's start and its end.
    let started = 0;
    page.on("worker", () => (started += 1));
    await openView(page, "Compare the systems");
    await page.getByRole("button", { name: /Run the comparison/ }).click();
    // The worker runs the systems one at a time and shows each row as it comes.
    const table = page.locator(".compare__table");
    await poll(async () => (await table.locator("tbody tr").count()) === 8, { what: "a row per system" });
    assert.equal(started, 1, "one worker ran the comparison");
    assert.equal(await page.locator(".compare__progress").count(), 0, "the progress line goes when the table is whole");
    const cell = page.getByRole("button", named("Chubby, GC pause, fencing on: rejected. Open this run"));
    await cell.click();
    await poll(async () => (await page.getByText(/Opened the comparison's run of GC pause on Chubby/).count()) > 0, {
      what: "the opened run's notice",
    });
    assert.ok(await page.getByRole("radio", named("Chubby")).isChecked(), "the run is Chubby's");
    assert.ok(await page.getByRole("region", named("Client A")).isVisible(), "the run opens in the simulator");
    assert.ok(await page.getByRole("checkbox", named("Fencing")).isChecked(), "with fencing on");
    await openView(page, "Compare the systems");
    const failover = page.getByRole("button", named("Redis, Failover, fencing on, no WAIT (redis-py's Lock): corrupted. Open this run"));
    assert.equal(await failover.count(), 1, "a repeated token defeats fencing on single Redis");
    const waited = page.getByRole("button", named("Redis, Failover, fencing on, Redisson's WAIT rule (its default): lock kept. Open this run"));
    assert.equal(await waited.count(), 1, "a WAIT for the replica keeps the lock, beside it");
  });

  test("the comparison shows both crashes, PostgreSQL's default and tuned keepalives, and what it cannot model", async (t) => {
    const page = await freshPage(t);
    await openView(page, "Compare the systems");
    await page.getByRole("button", { name: /Run the comparison/ }).click();
    const table = page.locator(".compare__table");
    await poll(async () => (await table.locator("tbody tr").count()) === 8 && (await page.locator(".compare__progress").count()) === 0, {
      what: "the whole table",
    });
    const headers = (await table.locator("thead th").allInnerTexts()).join(" | ");
    assert.match(headers, /Crash \(process exits\)/, "the process's exit is a column");
    assert.match(headers, /Power off \(host dies\)/, "the host's death is its own column");
    // PostgreSQL's dead host: Linux's keepalives first, the tuned ones beside them, each a run.
    const pg = table.locator('tr[data-backend="postgresql"]');
    const host = "PostgreSQL, Power off \\(host dies\\)";
    const real = pg.getByRole("button", { name: new RegExp(`^${host}, default keepalives: waited 2 h 11 min\\. Open this run$`) });
    const tuned = pg.getByRole("button", { name: new RegExp(`^${host}, tuned keepalives 10/5/3 s: waited 2\\d\\.\\d s\\. Open this run$`) });
    assert.equal(await real.count(), 1, "the real default's run");
    assert.equal(await tuned.count(), 1, "the tuned setting's run");
    assert.match(await pg.innerText(), /depends on: the server's TCP keepalive settings/);
    // Its process's exit: the server reads EOF and frees the lock at once (in ms, under 1 s).
    const exit = pg.getByRole("button", { name: /^PostgreSQL, Crash \(process exits\): waited \d{1,3} ms\. Open this run$/ });
    assert.equal(await exit.count(), 1, "the process exit frees the lock within a second");
    // Chubby's clock jump: the model cannot move a replica's clock, and says so.
    const chubby = await table.locator('tr[data-backend="chubby"]').innerText();
    assert.match(chubby, /not modelled/);
    assert.match(chubby, /cannot be crashed, slowed or have its clock moved/);
    assert.doesNotMatch(chubby, /not affected/);
    // The tuned run opens as itself.
    await tuned.click();
    await poll(async () => (await page.getByText(/Opened the comparison's run of Power off \(host dies\) on PostgreSQL, tuned keepalives 10\/5\/3 s/).count()) > 0, {
      what: "the tuned run's notice",
    });
    assert.ok(await page.getByRole("radio", named("PostgreSQL")).isChecked(), "the run is PostgreSQL's");
  });

  test("the Spanner story is drawn on request, and its switch shows the slow clock's stale read", async (t) => {
    const page = await freshPage(t);
    const section = page.getByRole("region", named("Spanner: clocks with an error bar"));
    await openView(page, "Spanner");
    await section.getByRole("button", { name: /Tell the story/ }).click();
    const truetime = section.locator(".spanner__outcome").filter({ hasText: /No stale read, no stale write/ });
    await truetime.waitFor();
    assert.ok(await truetime.isVisible(), "TrueTime is told first");
    const stale = section.locator(".spanner__outcome").filter({ hasText: /Stale read at 11.000 s/ });
    assert.equal(await stale.isVisible(), false, "the slow clock's telling is hidden");
    await section.getByRole("radio", named("runs 20% slow, no error bar")).check();
    assert.ok(await stale.isVisible(), "the switch shows the slow clock's stale read");
    assert.equal(await truetime.isVisible(), false);
  });
});
