// The comparison at the visitor's settings, on the real page: TTL and seed
// set in the controls, the table says which settings it ran at and its
// times follow them; its CSV and Markdown exports, read from the page and
// from the clipboard, hold a line per story and system with each run's
// short link, which opens its run; the settings go into the page's address,
// and that address runs the same table; "Run at my settings" runs it again
// after the settings change. A system's options set in the simulator go
// into the table's address too, and the cells of such a system link by
// their short address with those options: the table comes back the same
// (its words and every run) across views and a reload, and a cell's link
// opens the very run its button opens. The bytes of the exports are
// checked in the core (src/tools/compare/draw.rs).
//
// Run: `trunk build --release --offline && node --test tests/e2e/compare_settings.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { chooseBackend, named, openPage, openView, poll, started } from "./ui.mjs";

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
  const line = await wholeTable(page, /This table is at: TTL 30 s, latency \d+x real, seed 7, fencing mode as documented\./);
  // The table's settings are in the address: a link to it runs the same table.
  assert.match(page.url(), /\?view=compare&ttl=30&seed=7(#|$)/);
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
  assert.match(lines[0], /^# Distributed Lock Simulator comparison at: TTL 30 s, latency \d+x real, seed 7, fencing mode as documented$/);
  assert.equal(lines[1], "system,story,ttl_ms,latency_scale,network_rtt_ms,seed,fence_mode,lease,acquire_ms,fencing_off,fencing_on,tuned,depends_on,run_fencing_off,run_fencing_on,tuned_runs,write_time_runs");
  assert.equal(lines.length, 2 + 8 * 8, "a line per story and system");
  const etcdLine = lines.find((l) => l.startsWith('etcd,"Crash (process exits) ('));
  assert.ok(etcdLine, "etcd's crash line");
  assert.match(etcdLine, /,30000,\d+,0,7,documented,lease 30 s \(the application's choice\),\d+,waited [\d.]+ s,/);
  const base = new URL(suite.server.url);
  const link = etcdLine.match(/(http\S+?\?cell=process-exit&system=etcd&ttl=30&seed=7)/)[1];
  assert.equal(link.split("?")[0], `${base.origin}${base.pathname}`, "the page's address, then the cell's");
  const copyButtons = exported.getByRole("button", named("Copy"));
  await copyButtons.first().click();
  await poll(async () => (await exported.getByRole("status").first().innerText()) === "Copied.", { what: "the CSV copied" });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), csv);

  // The Markdown: the settings above a table of the same lines, each verdict a link.
  const md = await exported.getByRole("textbox", named("The comparison as a Markdown table")).inputValue();
  assert.match(md, /^Distributed Lock Simulator comparison at: TTL 30 s, latency \d+x real, seed 7, fencing mode as documented\./);
  assert.ok(md.split("\n").filter((l) => l.startsWith("| ")).length >= 1 + 8 * 8, "a row per story and system, and per tuned setting");
  const row = md.match(/\n\| etcd \| Crash \(process exits\) \([^|]*\) \| {2}\| \[waited [\d.]+ s\]\[(\d+)\] \| {2}\|/);
  assert.ok(row, "etcd's crash row, its verdict a reference link");
  assert.ok(md.includes(`\n[${row[1]}]: <${link}>`), "the link's address under the table");
  const longest = Math.max(...md.split("\n").map((l) => l.length));
  assert.ok(longest <= 400, `the longest Markdown line is ${longest} characters`);
  await copyButtons.last().click();
  await poll(async () => (await page.evaluate(() => navigator.clipboard.readText())) === md, { what: "the Markdown copied" });

  // The exported link runs the cell again and opens it at the settings it ran with.
  await page.goto(link);
  await started(page);
  await page.getByRole("region", named("Client A")).waitFor();
  const ttl = page.getByRole("spinbutton", named("TTL (s)"));
  await poll(async () => (await ttl.inputValue()) === "30", { what: "the cell's run opened at TTL 30 s", timeout: 60_000 });
  await page.getByText(/Opened the comparison's run of Crash \(process exits\) on etcd at TTL 30 s/).first().waitFor();
});

test("an address with the table's settings runs that table as the page opens, and keeps them across views", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const settings = "ttl=12&scale=1&rtt=70&fence=takeover";
  const page = await openPage(await suite.context(t), `${suite.server.url}?view=compare&${settings}`);
  const atTable = /This table is at: TTL 12 s, latency real \+ 70 ms round trip, seed 1, fencing mode new holder fences on takeover\./;
  await wholeTable(page, atTable);
  // The fencing modes side by side: the one on show marked, the others links to the table fenced so.
  const modes = compare(page).locator(".compare__modes");
  assert.equal(await modes.locator('[aria-current="true"]').innerText(), "new holder fences on takeover");
  const check = modes.getByRole("link", { name: "checked against the lock in the same transaction" });
  assert.match(await check.getAttribute("href"), /^\?view=compare&ttl=12&scale=1&rtt=70&fence=check$/);

  // Away to the simulator, the address is the simulator's; back, the table's settings are in it again.
  await openView(page, "Simulator");
  await poll(async () => !new URL(page.url()).search.includes("view=compare"), { what: "the simulator's address" });
  assert.ok(!new URL(page.url()).search.includes("ttl=12"), page.url());
  await openView(page, "Compare the systems");
  await poll(async () => new URL(page.url()).search === `?view=compare&${settings}`, { what: `?view=compare&${settings} back in the address, not ${page.url()}` });
  await wholeTable(page, atTable);
  // And that address, opened afresh, runs the same table.
  await page.goto(page.url());
  await started(page);
  await wholeTable(page, atTable);
});

test("Run at my settings runs the table again at the settings changed since", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await suite.page(t);
  await openView(page, "Compare the systems");
  await compare(page).getByRole("button", { name: /Run the comparison/ }).click();
  await wholeTable(page, /This table is at: TTL 5 s, latency \d+x real, seed 1, fencing mode as documented\. Each system at its real defaults/);
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

/** The table as shown: its words, and the run each of its buttons opens. */
async function tableShown(page) {
  return compare(page)
    .locator(".compare__table")
    .evaluate((t) => ({ text: t.innerText, runs: [...t.querySelectorAll("[data-open]")].map((b) => b.getAttribute("data-open")) }));
}

/** Opens the simulator's folded detail if `control` is not on show. */
async function shown(page, control) {
  if (!(await control.isVisible())) await page.getByText(/^In detail: /).click();
  await control.waitFor();
}

test("a system's options set in the simulator go into the table's address, come back with it, and their cells link by short address", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const context = await suite.context(t, { permissions: ["clipboard-read", "clipboard-write"] });
  const page = await openPage(context, suite.server.url);
  // PostgreSQL's tuned keepalives and Consul's lock-delay 0, as a visitor sets them.
  await chooseBackend(page, "PostgreSQL");
  const tuned = page.getByRole("radio", { name: /^Tuned: tcp_keepalives_idle 10 s/ });
  await shown(page, tuned);
  await tuned.check();
  await poll(() => tuned.isChecked(), { what: "PostgreSQL's tuned keepalives" });
  await chooseBackend(page, "Consul");
  const delay = page.getByRole("combobox", named("lock-delay"));
  await shown(page, delay);
  await delay.selectOption("0");
  await poll(async () => (await delay.inputValue()) === "0", { what: "Consul's lock-delay 0 s" });

  await openView(page, "Compare the systems");
  await compare(page).getByRole("button", { name: /Run the comparison/ }).click();
  const atTable = /This table is at: TTL 5 s, latency \d+x real, seed 1, fencing mode as documented\. Your options: Consul lock-delay 0 s, MonitorRetries 0, token modify-index, key cleanup keep; PostgreSQL keepalives 10 s \+ 3 x 5 s\./;
  await wholeTable(page, atTable);
  const settings = "ttl=5&consul-lock-delay=0&pg-keepalives-idle=10&pg-keepalives-interval=5&pg-keepalives-count=3";
  assert.equal(new URL(page.url()).search, `?view=compare&${settings}`);
  const table = await tableShown(page);
  assert.ok(table.runs.length > 200, `${table.runs.length} runs on show`);

  // Every link of the exports is a short address; the tuned systems' carry their options, the others' none.
  const exported = compare(page).getByRole("region", named("Export the table"));
  const md = await exported.getByRole("textbox", named("The comparison as a Markdown table")).inputValue();
  assert.ok(!md.includes("#v1."), "no whole run in the Markdown");
  const longest = Math.max(...md.split("\n").map((l) => l.length));
  assert.ok(longest <= 400, `the longest Markdown line is ${longest} characters`);
  const urls = [...md.matchAll(/^\[\d+\]: <(\S+)>$/gm)].map((m) => new URL(m[1]).search);
  assert.ok(urls.length > 100, `${urls.length} links`);
  for (const search of urls) {
    const system = new URLSearchParams(search).get("system");
    assert.equal(search.includes("&pg-keepalives-idle=10&pg-keepalives-interval=5&pg-keepalives-count=3"), system === "postgresql", search);
    assert.equal(search.includes("&consul-lock-delay=0"), system === "consul", search);
  }
  const csv = await exported.getByRole("textbox", named("The comparison as CSV")).inputValue();
  assert.ok(!csv.includes("#v1.") && csv.length < 100_000, `CSV of ${csv.length} bytes, short links`);
  const pgLink = md.match(/^\[\d+\]: <(\S+\?cell=crashed-holder&system=postgresql&ttl=5&pg-keepalives-idle=10&pg-keepalives-interval=5&pg-keepalives-count=3)>$/m);
  assert.ok(pgLink, "PostgreSQL's dead-host cell, linked with its keepalives");

  // Away to the simulator and back: the same address, the same table.
  await openView(page, "Simulator");
  await poll(async () => !new URL(page.url()).search.includes("pg-keepalives"), { what: "the simulator's address" });
  await openView(page, "Compare the systems");
  await poll(async () => new URL(page.url()).search === `?view=compare&${settings}`, { what: `the table's options back in the address, not ${page.url()}` });
  await wholeTable(page, atTable);
  assert.deepEqual(await tableShown(page), table, "the same table after a view switch");
  // The address opened afresh: the same table, every run the same.
  await page.goto(page.url());
  await started(page);
  await wholeTable(page, atTable);
  assert.deepEqual(await tableShown(page), table, "the same table after a reload");

  // The cell's short link opens the run its button in the table opens.
  const button = compare(page).getByRole("button", { name: /^PostgreSQL, Power off \(host dies\): waited [\d.]+ s\. Open this run$/ });
  const run = await button.getAttribute("data-open");
  await page.goto(pgLink[1]);
  await started(page);
  await page.getByText(/Opened the comparison's run of Power off \(host dies\) on PostgreSQL at TTL 5 s/).first().waitFor({ timeout: 60_000 });
  await openView(page, "Share and embed");
  await page.getByRole("button", named("Copy link")).click();
  const field = page.getByRole("textbox", named("Link to this run"));
  await field.waitFor();
  assert.equal((await field.inputValue()).split("#")[1], run, "the short link opens the table's run");
});
