// The client cards tell the lesson where the eye is, in headless Chromium
// against the release build: a frozen holder's Write says it is queued
// until the client wakes; once the client library knows its lease is gone
// its card says why it will not write; a waiter shows no lease bar; the
// PostgreSQL advisory lock says "no token" on the card, the status strip
// and the log; the TTL field applies on Enter or Tab, and a refused value
// says why and puts the field back.
//
// Every run is driven with Step, one event at a time, with the clock
// stopped: how fast the machine draws frames changes nothing here.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_cards.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, card, cardButton, cardText, chooseBackend, clockButton, eventLog, named, playScenarioToRunFirst, poll, setTtl, statusText, stepUntil, waitForCardState } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();

const ttlField = (page) => page.getByRole("spinbutton", named("TTL (s)"));

/** Acquire on `id`'s card, then Step until the card says "holding". */
async function acquireByStep(page, id) {
  await cardButton(page, id, "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, id)), `Client ${id} holding`);
}

describe("the client cards", { timeout: TEST_TIMEOUT_MS }, () => {
  test("a frozen holder's Write reads \"Write on wake\", then its card says why it will not write", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "etcd");
    await setTtl(page, 5);
    await acquireByStep(page, "A");
    await card(page, "A").getByRole("combobox", named("Pause (s), client A")).selectOption("8");
    await cardButton(page, "A", "GC pause").click();
    await waitForCardState(page, "A", "paused");

    const onWake = cardButton(page, "A", "Write on wake");
    assert.ok(await onWake.isVisible(), "the paused holder's Write is named for what it does");
    assert.ok(await onWake.isEnabled());
    assert.equal(await cardButton(page, "A", "Write").count(), 0, "no plain Write while A is frozen");
    const note = card(page, "A").getByText(
      /^A is frozen until t=\d+\.\d s: a write clicked now leaves the instant it wakes\.$/,
    );
    assert.ok(await note.isVisible(), "the card says so in a line, not only a tooltip");

    // Clicked now, it goes out the instant A wakes. Step until A has woken
    // and heard its lease is gone.
    await onWake.click();
    const reason = card(page, "A").getByText(/A's client library now knows it lost the lock: it sends no more writes\./);
    await stepUntil(page, async () => (await reason.count()) === 1, "A's card to say its lease is gone");
    assert.ok(await reason.isVisible(), "the reason is visible on the card");
    const write = cardButton(page, "A", "Write");
    assert.ok(await write.isDisabled(), "A's Write is disabled once it knows");
    assert.match(await write.getAttribute("title"), /knows it lost the lock \(.+\)/);
    assert.match(await eventLog(page).textContent(), /A sends a write, .*with token \d+/, "the queued write went out");
  });

  test("a waiting etcd client shows no lease bar", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "etcd");
    await acquireByStep(page, "A");
    await cardButton(page, "B", "Acquire").click();
    await stepUntil(page, async () => /\bwaiting\b/i.test(await cardText(page, "B")), "Client B waiting");
    const text = await cardText(page, "B");
    assert.doesNotMatch(text, /etcd says/, "no word of a lease B does not hold");
    assert.doesNotMatch(text, /it believes/, "no bar of its belief either");
    assert.ok(await card(page, "B").getByText("no lease yet: waiting in the queue").isVisible());
    // The holder keeps both bars.
    assert.match(await cardText(page, "A"), /etcd says \d+\.\d s left/);
  });

  test("PostgreSQL says \"no token\" on the card, the status strip and the log", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "PostgreSQL");
    await acquireByStep(page, "A");
    const cardA = await cardText(page, "A");
    assert.match(cardA, /\bno token\b/);
    assert.doesNotMatch(cardA, /\btoken \d/, "the row's version is no token");
    assert.match(cardA, /WHERE version = 0/, "the card names the resource's own check");
    // The strip's labels may be set in capitals by the style sheet.
    await poll(async () => /\btoken no token\b/i.test(await statusText(page)), {
      what: "the status strip's token field to say no token",
    });
    const log = await eventLog(page).textContent();
    assert.match(log, /A acquired the lock, no token, row version 0/);
    assert.doesNotMatch(log, /\btoken \d/);
  });

  test("TTL applies on Enter or Tab; a refused value says why and the field shows the run's TTL", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "etcd");
    const field = ttlField(page);
    assert.equal(await field.inputValue(), "5");

    await field.fill("999999");
    await field.press("Enter");
    const alert = page.getByRole("alert");
    await alert.waitFor({ state: "visible", timeout: PATIENCE_MS });
    assert.match(await alert.innerText(), /A TTL of 999999 s is out of range: type a number of seconds from 1 to 60\. The run is unchanged\./);
    assert.equal(await field.inputValue(), "5", "the field is put back to the run's TTL");

    // Typed digit by digit and left with Tab: one value, applied once.
    await field.fill("");
    await field.pressSequentially("7");
    await field.press("Tab");
    await poll(async () => (await field.inputValue()) === "7", { what: "the field to show 7" });
    assert.equal(await page.getByRole("alert").count(), 0, "a value taken clears the refusal");
    await acquireByStep(page, "A");
    await poll(async () => /lease ends at t=7\.\d s/.test(await page.locator("body").innerText()), {
      what: "A's lease to run 7 s",
    });
    assert.ok(await clockButton(page, "Start").isVisible(), "the clock stayed stopped");
  });

  test("the stale write A's card sent is not shown as harmless", async (t) => {
    const page = await suite.page(t);
    await playScenarioToRunFirst(page, { fencing: false, start: false });
    await stepUntil(
      page,
      async () => /last write: accepted although B held the lock \(stale\)/.test(await cardText(page, "A")),
      "A's card to say its write was stale",
    );
    assert.ok(
      await card(page, "A").getByText("last write: accepted although B held the lock (stale)").isVisible(),
    );
  });
});
