// The hazard explorer's numbers as a design document quotes them: a
// longest pause and a histogram of observed pauses set in the form or a
// link, the workload written beside the results, and each cell's
// interval (over trials) on its face.
//
// Run: `trunk build --release --offline && node --test tests/e2e/explore_stats.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, explorer, explorerBar, named, openView, poll } from "./ui.mjs";

const LONG = { timeout: 4 * PATIENCE_MS };
const cellsDone = async (page) => Number(await explorerBar(page).getAttribute("aria-valuenow"));
const workload = (page) => explorer(page).locator(".explorer__workload");
const flat = (text) => text.replace(/\s+/g, " ");

describe("the explorer's pauses and numbers", () => {
  const suite = browserSuite();

  test("a histogram and a longest pause typed in the form run, with the workload and intervals shown", async (t) => {
    const page = await suite.page(t, "", { acceptDownloads: true });
    await openView(page, "How likely?");
    await explorer(page).getByRole("button", named("Open the hazard explorer")).click();
    const section = explorer(page);
    await section.getByLabel("TTLs (s)").waitFor(LONG);
    await section.getByLabel("Pause profile").selectOption("histogram");
    // Pasted from a spreadsheet as CSV lines, with its header.
    await section.getByLabel("Histogram: pause lengths (ms)").fill("length_ms,count\n5000,3\n40000,1");
    await section.getByLabel("Histogram: pauses per hour").fill("3600");
    await section.getByLabel("Longest pause (ms), blank for none").fill("20000");
    await section.getByLabel("Think time between holds (s)").fill("2");
    await section.getByLabel("TTLs (s)").fill("1, 30");
    await section.locator("select[name=axis]").selectOption("rate");
    await section.getByLabel("Second axis values").fill("3600");
    await section.getByLabel("Trials per cell").fill("60");
    await section.getByRole("button", named("Run")).click();
    await explorerBar(page).waitFor();
    await poll(async () => (await cellsDone(page)) === 2, { what: "both cells", ...LONG });

    // The workload behind "per hold", beside the numbers.
    const words = flat(await workload(page).innerText());
    for (const said of [
      "Workload per hold: 3 clients",
      "holds it 500 ms",
      "Pauses (histogram): 3,600 an hour per client, lengths drawn from a histogram of 4 observed (5 s ×3, 40 s ×1)",
      "none longer than 20 s",
      "60 s of virtual time",
      "60 trials per cell",
    ]) {
      assert.ok(words.includes(said), `${said}: ${words}`);
    }
    // Each cell's face carries its interval; its name says what the
    // interval counts when failures clustered.
    const faces = await section.locator(".explorer__map .explorer__cell").allInnerTexts();
    assert.equal(faces.length, 2);
    for (const face of faces) assert.match(flat(face), /95%: /, face);
    const failing = section.getByRole("button", { name: /^TTL 1 s, 3,600\/h: corrupted write per hold about/ });
    await poll(async () => (await failing.count()) === 1, { what: "the failing cell at TTL 1 s" });
    // The link carries the histogram; opened, it restores the form.
    const url = page.url();
    assert.match(url, /hist=length_ms%2Ccount/, url);
    assert.match(url, /max=20000/, url);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      section.getByRole("link", named("Download CSV")).click(),
    ]);
    const csv = await readFile(await download.path(), "utf8");
    const comments = csv.split("\n").filter((l) => l.startsWith("#"));
    // The settings first, as the answer's first line names them, then the workload.
    assert.match(comments[0], /^# Settings: etcd, TTL .*, histogram pauses, .*, seed 1, /);
    assert.match(comments[1], /^# Workload per hold: 3 clients/);
    assert.ok(comments.some((l) => l === "# pause histogram (ms:count): 5000:3;40000:1"), comments.join("\n"));
    const rows = csv.trim().split("\n").filter((l) => !l.startsWith("#"));
    assert.match(rows[0], /,max_pause_us,pause_histogram_ms,p_corrupted_design_effect,p_two_holders_design_effect,think_ms,.*,latency_scale,network_rtt_ms,pg_keepalives,.*,longest_fault_ms,fence_mode,threshold_pause_ms,pair_pause_ms,cannot_happen,estimator,/);
    assert.equal(rows.length, 3);
    // Each row ends with the settings it ran at: here one zone, the OS's
    // keepalives, no faults besides pauses, the longest fault 30 s, and no
    // fencing mode (fencing off), then the rare-event columns.
    assert.match(rows[1], /,20000000,5000:3;40000:1,\d+\.\d{3},\d+\.\d{3},\d+,\d+,\d+,1,0,7200\/75\/9,0,0,0,0,0,0,30000,,/);

    const again = await suite.page(t, url.slice(url.indexOf("?")));
    await poll(async () => (await explorer(again).getByLabel("TTLs (s)").count()) === 1, { what: "the restored form" });
    assert.equal(
      await explorer(again).getByLabel("Histogram: pause lengths (ms)").inputValue(),
      "length_ms,count\n5000,3\n40000,1",
    );
  });

  test("a link in the compact form runs the longest pause as an axis, and a bad entry is named as typed", async (t) => {
    const query =
      "?explore&pauses=histogram&hist-per-hour=3600&hist=5000:3;40000:1&think=2&ttls=1&axis=max&values=2%2C+30&trials=6";
    const page = await suite.page(t, query);
    await poll(async () => (await explorerBar(page).count()) === 1 && (await cellsDone(page)) === 2, {
      what: "the linked run's two cells",
      ...LONG,
    });
    const rows = await explorer(page).locator(".explorer__map tbody th").allInnerTexts();
    assert.deepEqual(rows, ["max 2 s", "max 30 s"]);
    assert.match(flat(await workload(page).innerText()), /each row sets the longest pause/);
    // Pauses of 5 s and more (capped at 30 s) outlast a 1 s lease.
    const faces = await explorer(page).locator(".explorer__map .explorer__cell").allInnerTexts();
    assert.match(flat(faces[1]), /about /, "pauses up to 30 s break a 1 s lease");

    const bad = await suite.page(t, "?explore&pauses=histogram&hist=20:5;abc;100,x&ttls=1&axis=rate&values=1");
    const alert = explorer(bad).getByRole("alert");
    await alert.waitFor(LONG);
    const said = flat(await alert.innerText());
    assert.match(said, /Histogram: pause lengths \(ms\): "abc" is not a length in ms/, said);
    assert.match(said, /Histogram: pause lengths \(ms\): "100,x": the count "x" is not a whole number/, said);
  });
});
