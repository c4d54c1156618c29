// Two crashes on every card, in headless Chromium against the release
// build: "Crash (process exits)" and "Power off (host dies)", both words
// on each button. On PostgreSQL a process exit frees the advisory lock for
// the waiter within a second of simulated time (the backend reads EOF),
// while a dead host's lock waits for the keepalives (2 h 11 min at Linux's
// defaults), and each card says what the server noticed.
//
// Every run is driven with Step, one event at a time, with the clock
// stopped: how fast the machine draws frames changes nothing here.
//
// Run: `trunk build --release --offline && node --test tests/e2e/crash_kinds.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { CLIENTS, card, cardButton, cardText, chooseBackend, clockSeconds, stepUntil } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const EXIT = "Crash (process exits)";
const POWER_OFF = "Power off (host dies)";

const suite = browserSuite();

/** Clicks `command` on `id`'s card, then Steps until its card shows `word`. */
async function clickThenStep(page, id, command, word) {
  await cardButton(page, id, command).click();
  const pattern = new RegExp(`\\b${word}\\b`, "i");
  await stepUntil(page, async () => pattern.test(await cardText(page, id)), `Client ${id} ${word}`);
}

/** PostgreSQL: A holds advisory lock 42 and B waits behind it. */
async function aHoldsBWaits(page) {
  await chooseBackend(page, "PostgreSQL");
  await clickThenStep(page, "A", "Acquire", "holding");
  await clickThenStep(page, "B", "Acquire", "waiting");
}

describe("two crash faults", { timeout: TEST_TIMEOUT_MS }, () => {
  test("every card offers both crashes, process and host named on the buttons", async (t) => {
    const page = await suite.page(t);
    for (const id of CLIENTS) {
      for (const name of [EXIT, POWER_OFF]) {
        const button = cardButton(page, id, name);
        assert.equal(await button.count(), 1, `${name} on client ${id}`);
        assert.ok(await button.isVisible(), `${name} on client ${id} is in view`);
        assert.ok(await button.isEnabled());
      }
    }
    for (const word of ["process exits", "host dies"]) {
      assert.match(await cardText(page, "A"), new RegExp(word), `"${word}" is written on the card`);
    }
    // The rarer faults open from a button of the grid, and close again.
    const more = cardButton(page, "A", "More faults");
    const lose = cardButton(page, "A", "Lose messages");
    assert.equal(await more.getAttribute("aria-expanded"), "false");
    assert.ok(!(await lose.isVisible()), "the rarer faults start folded");
    await more.click();
    assert.equal(await more.getAttribute("aria-expanded"), "true");
    assert.ok(await lose.isVisible(), "More faults shows them");
    await more.click();
    assert.ok(!(await lose.isVisible()), "and folds them again");
  });

  test("x crashes the selected client's process and o powers its host off; either again restarts it", async (t) => {
    const page = await suite.page(t);
    // The reader chooses B (the focus passing through its card would not).
    await page.keyboard.press("2");
    await page.keyboard.press("x");
    assert.match(await cardText(page, "B"), /\bcrashed\b/i);
    assert.equal(await cardButton(page, "B", "Restart").count(), 1);
    await page.keyboard.press("x");
    assert.equal(await cardButton(page, "B", POWER_OFF).count(), 1, "restarted");
    await page.keyboard.press("o");
    assert.match(await cardText(page, "B"), /\bcrashed\b/i);
    await page.keyboard.press("o");
    assert.equal(await cardButton(page, "B", EXIT).count(), 1, "restarted");
  });

  test("on PostgreSQL a process exit frees the lock for B within a second; its card says the server read EOF", async (t) => {
    const page = await suite.page(t);
    await aHoldsBWaits(page);
    const exitedAt = await clockSeconds(page);
    await cardButton(page, "A", EXIT).click();
    assert.equal(await cardButton(page, "A", "Restart").count(), 1, "a crashed client offers Restart");
    await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "B")), "B holding", 50);
    const heldAt = await clockSeconds(page);
    assert.ok(heldAt - exitedAt < 1, `B holds ${heldAt - exitedAt} s after A's process exited`);
    assert.match(await cardText(page, "A"), /the server read EOF: its session \(pid \d+\) ended, lock 42 freed/);
  });

  test("on PostgreSQL a dead host keeps the lock: its card says the server waits for the keepalives", async (t) => {
    const page = await suite.page(t);
    await aHoldsBWaits(page);
    await cardButton(page, "A", POWER_OFF).click();
    const text = await cardText(page, "A");
    assert.match(text, /the server hears nothing: it keeps session pid \d+ and lock 42 until TCP keepalives give up/);
    assert.match(text, /2 h 11 min at Linux's defaults/);
    // Steps run what is due now, then the next keepalive is hours away: B waits on.
    for (let i = 0; i < 5; i += 1) await page.getByRole("button", { name: "Step", exact: true }).click();
    assert.match(await cardText(page, "B"), /\bwaiting\b/i, "B still waits");
    assert.match(await card(page, "A").innerText(), /crashed/i);
  });
});
