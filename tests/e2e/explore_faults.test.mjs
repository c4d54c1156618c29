// The hazard explorer with faults besides pauses and the system as the
// grid's second axis: a row per system, each cell naming its system, the
// faults stated beside the result, and settings that do not apply to a
// system refused by name.
//
// Run: `trunk build --release --offline && node --test tests/e2e/explore_faults.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, explorer, explorerBar, named, openView, poll } from "./ui.mjs";

const LONG = { timeout: 4 * PATIENCE_MS };

async function openExplorer(page) {
  await openView(page, "How likely?");
  await explorer(page).getByRole("button", named("Open the hazard explorer")).click();
  await explorer(page).getByLabel("TTLs (s)").waitFor(LONG);
}

describe("the explorer's faults and system axis", () => {
  const suite = browserSuite();

  test("partitions with the system as an axis give a cell per system, each naming its system", async (t) => {
    const page = await suite.page(t, "");
    await openExplorer(page);
    const section = explorer(page);
    // No pauses: whatever goes wrong is the partitions' doing.
    await section.getByLabel("Pause profile").selectOption("custom");
    await section.getByLabel("Custom: pauses per hour").fill("0");
    await section.getByLabel("Hold time (ms)").fill("20000");
    await section.getByLabel("Partitions from the lock service per client-hour").fill("120");
    await section.getByLabel("Longest fault (s)").fill("60");
    await section.getByLabel("PostgreSQL keepalives").selectOption("tuned");
    await section.locator('select[name="axis"]').selectOption("system");
    await section.getByLabel("Second axis values").fill("redlock, etcd, PostgreSQL");
    // PostgreSQL has no lease: a TTL axis is refused, naming the field.
    await section.getByLabel("TTLs (s)").fill("5, 10");
    await section.getByLabel("Trials per cell").fill("12");
    await section.getByRole("button", named("Run")).click();
    await poll(async () => /TTL \(ms\) does not apply here: PostgreSQL's lock has no lease/.test(await section.innerText()), {
      what: "the TTL axis refused for PostgreSQL",
      ...LONG,
    });
    await section.getByLabel("TTLs (s)").fill("10");
    await section.getByRole("button", named("Run")).click();
    await explorerBar(page).waitFor(LONG);
    assert.equal(await explorerBar(page).getAttribute("aria-valuemax"), "3", "one cell per system");
    await poll(async () => (await explorerBar(page).getAttribute("aria-valuenow")) === "3", { what: "all three cells", ...LONG });

    const names = await section
      .locator(".explorer__cell")
      .evaluateAll((els) => els.map((e) => e.getAttribute("title") ?? ""));
    assert.equal(names.length, 3, `a cell per system: ${names.join("\n")}`);
    for (const [i, system] of ["Redlock", "etcd", "PostgreSQL"].entries()) {
      assert.match(names[i], new RegExp(`^TTL 10 s, ${system}: corrupted write per hold`), "the cell names its system");
    }
    // A partitioned PostgreSQL holder corrupts once tuned keepalives free its lock.
    assert.doesNotMatch(names[2], /corrupted write per hold none/, `PostgreSQL: ${names[2]}`);
    const text = await section.innerText();
    assert.match(text, /Redlock, etcd and PostgreSQL \(one a row\)/, "the summary names the systems");
    assert.match(text, /Faults: partitions from the lock service 120\/h per client; each lasting 1 ms to 60 s, evenly\. PostgreSQL keepalives: tuned/);
    const rows = section.locator(".explorer__table tbody tr");
    assert.equal(await rows.count(), 3, "a table row per system");
    // The settings travel in the address.
    assert.match(page.url(), /axis=system/);
    assert.match(page.url(), /partitions=120/);
  });
});
