// The number for a design document: an engineer enters the pause
// histogram of their JVM services (rare multi-second stalls) and their
// fleet, and gets, per candidate system, either "cannot happen in this
// model, because ..." or corrupted writes per fleet-year with an
// interval, in the page and in the CSV; etcd's minimum lease is marked
// in its TTL column, and the SVG export is as wide as its title.
//
// Run: `trunk build --release --offline && node --test tests/e2e/explore_rare.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, explorer, explorerBar, named, poll } from "./ui.mjs";

const LONG = { timeout: 8 * PATIENCE_MS };
const flat = (text) => text.replace(/\s+/g, " ");

describe("rare events in the explorer", () => {
  const suite = browserSuite();

  test("a histogram and a fleet give each system a zero with its reason or a figure per fleet-year", async (t) => {
    // 50 ms pauses, some of 800 ms, one stall of 12 s in 10,000; one
    // pause an hour per client; etcd, Redis and PostgreSQL at TTL 10 s.
    const query = [
      "system=etcd", "pauses=histogram", "hist-per-hour=1", "hist=50%3A9099%3B800%3A900%3B12000%3A1",
      "ttls=10", "axis=system", "values=etcd%2C+redis%2C+postgresql", "trials=200",
      "workers=200", "per-minute=1", "hours=8760", "rare=20000",
    ].join("&");
    const page = await suite.page(t, `?explore&${query}`, { acceptDownloads: true });
    const section = explorer(page);
    await section.getByRole("button", named("Run")).waitFor(LONG);
    await section.getByRole("button", named("Run")).click();
    await explorerBar(page).waitFor();
    const design = section.getByRole("region", named("For the design document"));
    await poll(async () => (await section.locator(".explorer__design tbody tr").count()) === 3, {
      what: "a row for each system",
      ...LONG,
    });
    const rows = (await design.locator("tbody tr").allInnerTexts()).map(flat);
    const row = (name) => rows.find((r) => r.startsWith(`TTL 10 s, ${name}`));
    assert.match(row("PostgreSQL"), /cannot happen in this model, because PostgreSQL's lock lasts as long as the holder's connection/);
    assert.match(row("PostgreSQL"), /proven: no pause corrupts/);
    for (const name of ["etcd", "Redis"]) {
      // The 12 s stall outlives the lease: a figure per fleet-year.
      assert.match(row(name), /about [0-9.,]+ \(95%: [0-9.,]+ to [0-9.,]+\)/, row(name));
      assert.match(row(name), /about one every [0-9.,]+ years/, row(name));
      assert.match(row(name), /(importance|plain) sampling/, row(name));
    }
    const method = flat(await design.locator(".explorer__method").innerText());
    assert.match(method, /cannot corrupt: the shortest pause that can outlive/, method);
    assert.match(method, /Per fleet-year: the chance per hold times the fleet's [0-9.,]+ million holds a year \(200 workers, each locking 1 a minute, 8,760 hours a year\)/, method);
    assert.match(method, /Left out of the model/, method);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      section.getByRole("link", named("Download CSV")).click(),
    ]);
    const csv = (await readFile(await download.path(), "utf8")).split("\n").filter((l) => l && !l.startsWith("#"));
    assert.match(csv[0], /,fence_mode,threshold_pause_ms,pair_pause_ms,cannot_happen,estimator,p_hold,p_hold_low,p_hold_high,ess,estimator_trials,corrupted_per_fleet_year,corrupted_per_fleet_year_low,corrupted_per_fleet_year_high,years_between_corrupted_writes$/);
    const pg = csv.find((l) => l.split(",")[1] === "postgresql");
    assert.match(pg, /,,,true,none,0,0,0,,,0,0,0,$/, pg);
    const etcd = csv.find((l) => l.split(",")[1] === "etcd");
    // etcd at 10 s: a threshold, and no pair bound (no two of its pauses
    // under the threshold add up).
    assert.match(etcd, /,[0-9]+,,false,(importance|plain),[0-9.e-]+,/, etcd);
  });

  test("etcd's 1 s column is marked as its 2 s minimum lease, and the SVG holds its title", async (t) => {
    const query = "system=etcd&ttls=1%2C+2&axis=p99&values=2&trials=20&rare=0";
    const page = await suite.page(t, `?explore&${query}`, { acceptDownloads: true });
    const section = explorer(page);
    await section.getByRole("button", named("Run")).waitFor(LONG);
    await section.getByRole("button", named("Run")).click();
    await poll(async () => (await section.getByRole("link", named("Download heatmap (SVG)")).count()) === 1, {
      what: "the run's files",
      ...LONG,
    });
    const heads = (await section.locator(".explorer__map thead th").allInnerTexts()).map(flat);
    assert.equal(heads[0], "TTL 1 s etcd's minimum lease is 2 s: runs at 2 s");
    assert.equal(heads[1], "TTL 2 s");
    const href = await section.getByRole("link", named("Download heatmap (SVG)")).getAttribute("href");
    const svg = decodeURIComponent(href.replace(/^data:image\/svg\+xml;charset=utf-8,/, ""));
    const width = Number(svg.match(/width="([0-9]+)"/)[1]);
    const title = svg.match(/font-weight="bold" fill="#111827">([^<]*)</)[1];
    // At most 0.68 of the 12 px font a character in bold.
    assert.ok(width >= 8 + title.length * 12 * 0.68, `${width} px for ${title.length} characters`);
    assert.match(svg, /\* TTL 1 s: etcd(&#39;|')s minimum lease is 2 s: runs at 2 s/);
  });
});
