// The comparison at the visitor's settings, on the real page: TTL and seed
// set in the controls, the table says which settings it ran at and its
// times follow them; its CSV and Markdown exports, read from the page and
// from the clipboard, hold a line per story and system with each run's
// link; "Run at my settings" runs it again after the settings change. The
// bytes of the exports are checked in the core (src/tools/compare/draw.rs).
//
// Run: `trunk build --release --offline && node --test tests/e2e/compare_settings.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { named, openPage, openView, poll, started } from "./ui.mjs";

const TEST_TIMEOUT_MS = 240_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));

/** Types `value` into the control named `name` and applies it with Enter. */
async function setField(page, name, value) {
  const field = page.getByRole("spinbutton", named(name)).or(page.getByRole("textbox", named(name)));
  await field.fill(value);
  await field.press("Enter");
  await poll(async () => (await field.inputValue()) === value, { what: `${name} to read ${value}` });
}

const compare = (page) => page.getByRole("region", named("Compare the systems"));

/** Waits for the whole table and its settings line; returns the line. */
async function wholeTable(page, settings) {
  const line = compare(page).getByText(settings);
  await poll(async () => (await compare(page).getByRole("region", named("Export the table")).count()) === 1 && (await line.count()) === 1, {
    what: `the whole table at ${settings}`,
    timeout: 120_000,
  });
  return line;
}

/** How long B waited for etcd's dead holder, in seconds, as the cell says. */
async function etcdWait(page) {
  const cell = compare(page).getByRole("button", { name: /^etcd, Crash \(process exits\): waited [\d.]+ s\. Open this run$/ });
  const name = await cell.getAttribute("aria-label");
  return Number(name.match(/waited ([\d.]+) s/)[1]);
}

test("the comparison runs at the page's TTL and seed, says so, and exports CSV and Markdown with each run's link", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const context = await suite.context(t, { permissions: ["clipboard-read", "clipboard-write"] });
  const page = await openPage(context, suite.server.url);
  await setField(page, "TTL (s)", "30");
  await setField(page, "Seed", "7");
  await openView(page, "Compare the systems");
  await compare(page).getByRole("button", { name: /Run the comparison/ }).click();
  const line = await wholeTable(page, /This table is at: TTL 30 s, latency \d+x real, seed 7\./);
  assert.match(await line.innerText(), /stretched by 6x/, "the stories written for 5 s say they were stretched");
  // A dead holder's lease is the TTL: etcd's B waits about 30 s, not 5.
  const waited = await etcdWait(page);
  assert.ok(waited >= 29 && waited < 40, `etcd waited ${waited} s at TTL 30 s`);
  const etcdRow = compare(page).locator('tr[data-backend="etcd"] th');
  assert.match(await etcdRow.innerText(), /lease 30 s \(the application's choice\)/);
  assert.match(await compare(page).locator('tr[data-backend="chubby"] th').innerText(), /Chubby's times scaled by 5\/2/);

  // The CSV: read on the page, and the same text on the clipboard.
  const exported = compare(page).getByRole("region", named("Export the table"));
  const csvField = exported.getByRole("textbox", named("The comparison as CSV"));
  const csv = await csvField.inputValue();
  const lines = csv.trimEnd().split("\n");
  assert.equal(lines[0], "system,story,ttl_ms,latency_scale,network_rtt_ms,seed,lease,acquire_ms,fencing_off,fencing_on,tuned,depends_on,run_fencing_off,run_fencing_on,tuned_runs");
  assert.equal(lines.length, 1 + 8 * 7, "a line per story and system");
  const etcdLine = lines.find((l) => l.startsWith("etcd,Crash (process exits),30000,"));
  assert.ok(etcdLine, "etcd's crash line");
  assert.match(etcdLine, /,7,lease 30 s \(the application's choice\),\d+,waited [\d.]+ s,/);
  const base = new URL(suite.server.url);
  const link = etcdLine.match(/(http\S+?#v1\.[A-Za-z0-9_-]+)/)[1];
  assert.equal(link.split("#")[0], `${base.origin}${base.pathname}`, "the page's address, without its query");
  const copyButtons = exported.getByRole("button", named("Copy"));
  await copyButtons.first().click();
  await poll(async () => (await exported.getByRole("status").first().innerText()) === "Copied.", { what: "the CSV copied" });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), csv);

  // The Markdown: the settings above a table of the same lines, each verdict a link.
  const md = await exported.getByRole("textbox", named("The comparison as a Markdown table")).inputValue();
  assert.match(md, /^Distributed Lock Simulator comparison at: TTL 30 s, latency \d+x real, seed 7\./);
  assert.equal(md.split("\n").filter((l) => l.startsWith("| ")).length, 1 + 8 * 7);
  assert.match(md, /\n\| etcd \| Crash \(process exits\) \| \[waited [\d.]+ s\]\(http\S+#v1\.[A-Za-z0-9_-]+\) \| {2}\|/);
  await copyButtons.last().click();
  await poll(async () => (await page.evaluate(() => navigator.clipboard.readText())) === md, { what: "the Markdown copied" });

  // The exported link opens its run at the settings it ran with.
  await page.goto(link);
  await started(page);
  await page.getByRole("region", named("Client A")).waitFor();
  assert.equal(await page.getByRole("spinbutton", named("TTL (s)")).inputValue(), "30");
});

test("Run at my settings runs the table again at the settings changed since", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  await openView(page, "Compare the systems");
  await compare(page).getByRole("button", { name: /Run the comparison/ }).click();
  await wholeTable(page, /This table is at: TTL 5 s, latency \d+x real, seed 1\. Each system at its real defaults/);
  const at5 = await etcdWait(page);
  assert.ok(at5 < 10, `etcd waited ${at5} s at TTL 5 s`);
  await openView(page, "Simulator");
  await setField(page, "TTL (s)", "12");
  await openView(page, "Compare the systems");
  await compare(page).getByRole("button", named("Run at my settings")).click();
  await wholeTable(page, /This table is at: TTL 12 s, /);
  const at12 = await etcdWait(page);
  assert.ok(at12 > at5 + 5, `etcd waited ${at12} s at TTL 12 s, ${at5} s at 5 s`);
});
