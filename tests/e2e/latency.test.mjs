// Latency as a setting, in headless Chromium against the release build: the
// field beside the TTL names the default as slowed tenfold, a preset changes
// how long a message takes, and every view that prints a time in ms says at
// what latency (the comparison's acquisition column; the explorer has its own
// choice, one zone by default).
//
// Run: `trunk build --release --offline && node --test tests/e2e/latency.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, cardButton, named, openPage, openView, poll } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();

const latency = (page) => page.getByRole("combobox", named("Latency"));
const messages = (page) => page.getByRole("region", named("Messages in flight"));

/**
 * Clicks A's Acquire with the clock stopped and reads when its request
 * arrives, in ms, from the strip's words for a screen reader.
 */
async function acquireArrivesMs(page) {
  await cardButton(page, "A", "Acquire").click();
  const words = await poll(
    async () => {
      const text = await messages(page).getByRole("listitem").first().textContent({ timeout: 500 });
      return /arrives at t=/.test(text ?? "") && text;
    },
    { what: "A's request in flight" },
  );
  const [, s, ms] = words.match(/arrives at t=(\d+)\.(\d{3}) s/);
  return Number(s) * 1000 + Number(ms);
}

describe("latency as a setting", { timeout: TEST_TIMEOUT_MS }, () => {
  test("the default is named for what it is, and a preset changes a message's time", async (t) => {
    const page = await suite.page(t);
    const field = latency(page);
    assert.equal(await field.count(), 1, "a Latency field among the settings");
    const chosen = async () => (await field.locator("option:checked").innerText()).trim();
    assert.equal(await chosen(), "Slowed 10x");
    assert.match(await messages(page).innerText(), /latency 10x real/);
    const slowed = await acquireArrivesMs(page);
    // etcd's own round trip is 2.5-10 ms a hop; tenfold, 25-100 ms.
    assert.ok(slowed >= 25 && slowed <= 100, `slowed 10x: ${slowed} ms`);

    await field.selectOption({ label: "One zone" });
    await poll(async () => (await chosen()) === "One zone", { what: "the preset chosen" });
    await poll(async () => /latency real/.test(await messages(page).innerText()), { what: "the strip's new latency" });
    const zone = await acquireArrivesMs(page);
    assert.ok(zone >= 2 && zone <= 10, `one zone: ${zone} ms`);

    await field.selectOption({ label: "Cross-region" });
    await poll(async () => /real \+ 70 ms round trip/.test(await messages(page).innerText()), {
      what: "the strip's cross-region latency",
    });
    const region = await acquireArrivesMs(page);
    assert.ok(region >= 37 && region <= 45, `cross-region: ${region} ms (35 ms one way plus etcd's own)`);
  });

  test("a link keeps the latency it was made at", async (t) => {
    const context = await suite.context(t, { permissions: ["clipboard-read", "clipboard-write"] });
    const page = await openPage(context, suite.server.url);
    await latency(page).selectOption({ label: "Cross-zone" });
    await poll(async () => /\+ 2 ms round trip/.test(await messages(page).innerText()), { what: "cross-zone" });
    await cardButton(page, "A", "Acquire").click();
    await openView(page, "Share and embed");
    await page.getByRole("button", named("Copy link")).click();
    const field = page.getByRole("textbox", named("Link to this run"));
    await field.waitFor();
    const url = await field.inputValue();
    const other = await openPage(await suite.context(t), url);
    const chosen = (await latency(other).locator("option:checked").innerText()).trim();
    assert.equal(chosen, "Cross-zone", url);
  });

  test("the comparison's acquisition column and the explorer say at what latency", async (t) => {
    const page = await suite.page(t);
    await openView(page, "Compare the systems");
    await page.getByRole("button", { name: /Run the comparison/ }).click();
    const table = page.locator(".compare__table");
    await poll(async () => (await table.locator("tbody tr").count()) === 8, { what: "a row per system", timeout: 4 * PATIENCE_MS });
    const etcd = await table.locator('tr[data-backend="etcd"] th').innerText();
    assert.match(etcd, /acquire: \d+ ms at latency 10x real, \d+x the fastest/);
    const slowed = Number(etcd.match(/acquire: (\d+) ms/)[1]);

    // At a preset the comparison runs again at it, and its times change.
    await openView(page, "Simulator");
    await latency(page).selectOption({ label: "Cross-region" });
    await openView(page, "Compare the systems");
    await page.getByRole("button", named("Run at my settings")).click();
    const row = table.locator('tr[data-backend="etcd"] th');
    await poll(async () => /latency real \+ 70 ms round trip/.test(await row.innerText()), {
      what: "the etcd row at the cross-region latency",
      timeout: 4 * PATIENCE_MS,
    });
    const far = Number((await row.innerText()).match(/acquire: (\d+) ms/)[1]);
    assert.notEqual(far, slowed, `etcd acquired in ${far} ms cross-region, ${slowed} ms slowed 10x`);
    assert.ok(far >= 70, `a cross-region acquisition takes at least a round trip: ${far} ms`);

    await openView(page, "How likely?");
    const explorer = page.getByRole("region", named("Hazard explorer"));
    await explorer.getByRole("button", named("Open the hazard explorer")).click();
    await explorer.getByLabel("TTLs (s)").waitFor({ timeout: 4 * PATIENCE_MS });
    // The explorer has the page's presets too, at one zone (real) unless chosen.
    const field = explorer.getByLabel("Latency");
    assert.equal(await field.inputValue(), "one-zone");
    const options = await field.locator("option").allInnerTexts();
    assert.ok(options.includes("Cross-region: real + 70 ms round trip"), options.join(" | "));
  });
});
