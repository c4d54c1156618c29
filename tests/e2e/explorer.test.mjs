// The hazard explorer ("How likely is it?") in the real page: its form
// and results come from background workers, its cells open runs in the
// main view, and its settings travel in the page's link.
//
// Run: `trunk build --release --offline && node --test tests/e2e/explorer.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, explorer, explorerBar, named, openView, poll } from "./ui.mjs";

/** Waits long enough for any machine: the grids below are small. */
const LONG = { timeout: 4 * PATIENCE_MS };

/** Opens the explorer: the first worker's start may be slow on a busy machine. */
async function openExplorer(page) {
  await openView(page, "How likely?");
  await explorer(page).getByRole("button", named("Open the hazard explorer")).click();
  try {
    await explorer(page).getByLabel("TTLs (s)").waitFor(LONG);
  } catch (err) {
    const shown = await explorer(page).innerText();
    throw new Error(`the explorer's form did not arrive; the section shows: ${shown}\n${err.message}`);
  }
}

/** Long pauses, often: nearly every trial corrupts a write at these TTLs. */
async function fillSmallGrid(page, trials) {
  const section = explorer(page);
  await section.getByLabel("Pause profile").selectOption("custom");
  await section.getByLabel("Custom: pauses per hour").fill("3600");
  await section.getByLabel("Custom: median pause (ms)").fill("5000");
  await section.getByLabel("Custom: p99 pause (ms)").fill("20000");
  await section.getByLabel("Think time between holds (s)").fill("2");
  await section.getByLabel("TTLs (s)").fill("1, 2");
  await section.getByLabel("Second axis values").fill("5, 20");
  await section.getByLabel("Trials per cell").fill(String(trials));
}

const cellsDone = async (page) => Number(await explorerBar(page).getAttribute("aria-valuenow"));

describe("the hazard explorer", () => {
  const suite = browserSuite();

  test("a small grid runs to a heatmap whose cells open their failing trial, and downloads as CSV", async (t) => {
    const page = await suite.page(t, "", { acceptDownloads: true });
    assert.equal(page.workers().length, 0, "no worker before the explorer is opened");
    await openExplorer(page);
    await fillSmallGrid(page, 8);
    await explorer(page).getByRole("button", named("Run")).click();
    await explorerBar(page).waitFor();
    assert.equal(await explorerBar(page).getAttribute("aria-valuemax"), "4");
    await poll(async () => (await cellsDone(page)) === 4, { what: "all four cells", ...LONG });
    await poll(async () => /4 of 4 cells, [\d,]+ trials per second/.test(await explorer(page).innerText()), {
      what: "the trials per second",
    });
    const cells = explorer(page).getByRole("button", { name: /^TTL 1 s, p99 20 s: corrupted write per hold/ });
    await poll(async () => (await cells.count()) === 1, { what: "a heatmap cell with a failing trial" });
    const table = explorer(page).locator(".explorer__table tbody tr");
    assert.equal(await table.count(), 4, "the table view has a row per cell");

    // The numbers read as people read them: odds or a percentage, "about",
    // to two figures, each with its 95% interval, never "9.5e-5"; none seen
    // is an upper bound.
    const names = await explorer(page)
      .locator(".explorer__cell")
      .evaluateAll((els) => els.map((e) => e.getAttribute("title") ?? ""));
    assert.equal(names.length, 4, `a sentence per cell: ${names}`);
    const chance = String.raw`(?:\d+(?:\.\d+)?%|1 in [\d,.]+(?: million| billion| trillion)?)`;
    const estimate = new RegExp(
      `corrupted write per hold (?:about ${chance} \\(95%: ${chance} to ${chance}\\)|none in [\\d,]+ holds: at most about ${chance} \\(95%\\))`,
    );
    for (const name of names) {
      assert.match(name, estimate, "the chance in words with its interval");
      assert.doesNotMatch(name, /\de-\d/, "no scientific notation");
    }
    // With eight trials a cell the intervals are wide: where a cell's
    // overlaps its neighbour's, the cell says the difference is noise.
    assert.ok(
      names.some((n) => /overlaps (that of the cell|those of the cells) at TTL .*: the difference is sampling noise/.test(n)),
      `a cell says its difference from a neighbour is sampling noise: ${names.join("\n")}`,
    );
    const shown = await explorer(page).locator(".explorer__map").innerText();
    assert.match(shown, /95%: /, "each cell shows its interval");
    assert.match(shown, /within noise of (TTL|p99) /, "and the noise, in words");
    assert.match(await table.first().textContent(), /sampling noise: overlaps|no overlap with a neighbour/);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      explorer(page).getByRole("link", named("Download CSV")).click(),
    ]);
    const csv = await readFile(await download.path(), "utf8");
    // Comment lines (the workload) above the header, then the table.
    assert.match(csv, /^# Settings: etcd, [^\n]*\n# Workload per hold: /);
    const lines = csv.trim().split("\n").filter((l) => !l.startsWith("#"));
    assert.match(lines[0], /^cell,backend,fencing,/);
    assert.equal(lines.length, 5, "a header and a line per cell");
    const [png] = await Promise.all([
      page.waitForEvent("download"),
      explorer(page).getByRole("button", named("Download heatmap (PNG)")).click(),
    ]);
    assert.equal(png.suggestedFilename(), "distlock-hazard.png");
    const bytes = await readFile(await png.path());
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG file");

    // The settings are in the address while the explorer is on show:
    // opening it restores them and runs.
    const url = page.url();
    assert.match(url, /\?explore&.*ttls=1%2C\+2/);

    await cells.first().click();
    await poll(async () => (await page.getByText(/Opened trial \d+ of the explorer's cell TTL 1 s, p99 20 s/).count()) > 0, {
      what: "the opened trial's notice",
    });
    assert.ok(await page.getByRole("radio", named("etcd")).isChecked(), "the trial runs on etcd, in the simulator");
    const again = await suite.page(t, url.slice(url.indexOf("?")));
    await poll(async () => (await explorer(again).getByLabel("TTLs (s)").count()) === 1, { what: "the restored form" });
    assert.equal(await explorer(again).getByLabel("TTLs (s)").inputValue(), "1, 2");
    await poll(async () => (await cellsDone(again)) === 4, { what: "the linked run's cells", ...LONG });
    // A link made before the fields stood in the address as they are, all
    // of them encoded in the one value of `explore=`, opens the same form.
    const fields = url.slice(url.indexOf("&") + 1).split("#")[0];
    const older = await suite.page(t, `?explore=${encodeURIComponent(fields)}`);
    await poll(async () => (await explorer(older).getByLabel("TTLs (s)").count()) === 1, { what: "the form an older link restores" });
    assert.equal(await explorer(older).getByLabel("TTLs (s)").inputValue(), "1, 2");
  });

  test("bad settings say what is wrong and run nothing", async (t) => {
    const page = await suite.page(t);
    await openExplorer(page);
    await explorer(page).getByLabel("TTLs (s)").fill("1, soon");
    // Enter in a field runs the form as Run does, and the page stays.
    await explorer(page).getByLabel("TTLs (s)").press("Enter");
    const alert = explorer(page).getByRole("alert");
    await poll(async () => /TTLs \(s\): "soon" is not a number/.test(await alert.innerText()), { what: "the message" });
    assert.equal(await explorerBar(page).count(), 0, "nothing ran");
    assert.match(page.url(), /\?explore&.*ttls=1%2C\+soon/, "the settings are in the address, the form was not sent");
  });

  test("a link's refused fields are all named at once, as typed, and an unknown system stays unknown", async (t) => {
    const page = await suite.page(t, "?explore&system=%3Cimg+src%3Dx%3E&trials=999999999999&ttls=1");
    const alert = explorer(page).getByRole("alert");
    await alert.waitFor(LONG);
    const said = (await alert.innerText()).replace(/\s+/g, " ");
    assert.match(said, /2 fields were refused/, said);
    assert.match(said, /System: "<img src=x>" is not one of the choices/, said);
    assert.match(said, /Trials per cell: "999999999999" is out of range/, said);
    // By its accessible name's start: the second axis offers "the system" too.
    const system = explorer(page).getByRole("combobox", { name: /^System/ });
    assert.equal(await system.inputValue(), "<img src=x>", "the typed system is kept, not replaced by Redis");
    assert.equal(await explorer(page).locator("img").count(), 0, "nothing was injected");
  });

  test("Cancel stops the run at once and keeps the cells that arrived", async (t) => {
    const page = await suite.page(t);
    await openExplorer(page);
    await fillSmallGrid(page, 100000);
    await explorer(page).getByRole("button", named("Run")).click();
    await explorerBar(page).waitFor();
    await poll(async () => page.workers().length > 1, { what: "the workers that run cells" });
    await poll(async () => /[1-9][\d,]* trials per second/.test(await explorer(page).innerText()), {
      what: "trials counted while the first cells run",
    });
    await explorer(page).getByRole("button", named("Cancel")).click();
    await poll(async () => page.workers().length === 1, { what: "only the drawing worker left" });
    assert.match(await explorer(page).getByRole("alert").innerText(), /Cancelled: \d+ of 4 cells ran and are shown/);
    assert.equal(await explorer(page).getByRole("button", named("Cancel")).count(), 0);
    assert.ok((await cellsDone(page)) < 4, "the run stopped before its end");
  });
});
