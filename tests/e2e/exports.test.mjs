// The run as a history other tools read, from the Share view of the real
// page: each format's button has the worker write the run in that format,
// whose link saves a file named after the run with that format's first
// bytes, and whose Copy puts the same text on the clipboard. The bytes
// themselves are checked in the core (tests/core/export.rs), where the
// worker's reply equals the command line's.
//
// Run: `trunk build --release --offline && node --test tests/e2e/exports.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { named, openPage, openView, pauseClock, poll, setMaxSpeed, startClock, waitForClock } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));

/** The story to run first on etcd, played past A's late write, in the Share view. */
async function sharedRun(t) {
  const context = await suite.context(t, { acceptDownloads: true, permissions: ["clipboard-read", "clipboard-write"] });
  const page = await openPage(context, `${suite.server.url}?preset=gc-pause&system=etcd`);
  await setMaxSpeed(page);
  await startClock(page);
  await waitForClock(page, 10);
  await pauseClock(page);
  await openView(page, "Share and embed");
  return page;
}

const exports = (page) => page.getByRole("group", named("Check this run in another tool"));

/** Asks for `title`'s export and saves it by its link: its file's name and text. */
async function exported(page, title) {
  await exports(page).getByRole("button", named(title)).click();
  const link = exports(page).getByRole("link", { name: /^Download distlock-etcd-fencing-(on|off)-seed-\d+\./ });
  await link.waitFor();
  const [saved] = await Promise.all([page.waitForEvent("download"), link.click()]);
  return { file: saved.suggestedFilename(), text: await readFile(await saved.path(), "utf8") };
}

test("each format saves as a file named after the run, with its format's first bytes", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await sharedRun(t);
  const edn = await exported(page, "Jepsen history (EDN)");
  assert.match(edn.file, /^distlock-etcd-fencing-(on|off)-seed-\d+\.edn$/);
  assert.ok(edn.text.startsWith("{:type :invoke, :f :acquire, :value nil, :process 0, :time 0, :index 0}\n"), edn.text.slice(0, 200));
  assert.match(edn.text, /\{:type :ok, :f :acquire, :value 2, :process 0, /);
  assert.match(edn.text, /:f :pause, :value \{:client "A", :until-ms 8500\}, :process :nemesis/);

  const porcupine = await exported(page, "Porcupine log (JSON)");
  assert.match(porcupine.file, /\.json$/);
  assert.ok(porcupine.text.startsWith('[\n{"ClientId":0,"Input":{"op":"acquire","token":null},"Call":0,'), porcupine.text.slice(0, 200));
  assert.ok(Array.isArray(JSON.parse(porcupine.text)));

  const itf = await exported(page, "ITF trace (JSON)");
  assert.match(itf.file, /\.itf\.json$/);
  assert.ok(itf.text.startsWith('{"#meta":{"format":"ITF",'), itf.text.slice(0, 200));
  const trace = JSON.parse(itf.text);
  assert.deepEqual(trace.vars, ["t_ms", "belief", "token", "holder", "highest", "counter"]);
  assert.deepEqual(trace.states[0]["#meta"], { index: 0 });
});

test("Copy puts the export on the clipboard, and the text stays on show to copy by hand", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await sharedRun(t);
  await exports(page).getByRole("button", named("Jepsen history (EDN)")).click();
  const field = exports(page).getByRole("textbox", named("Jepsen history (EDN) of this run"));
  await field.waitFor();
  await exports(page).getByRole("button", named("Copy")).click();
  await poll(async () => (await exports(page).getByRole("status").last().innerText()) === "Copied.", {
    what: "the clipboard to take the history",
  });
  const text = await field.inputValue();
  assert.ok(text.startsWith("{:type :invoke, :f :acquire, :value nil, :process 0, :time 0, :index 0}\n"), text.slice(0, 200));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  assert.match(text, /\{:type :ok, :f :write, :value \{:token 3, :value 1\}, :process 1, /);
  assert.match(await exports(page).innerText(), /Jepsen history \(EDN\): [\d,]+ bytes, \d+ lines\./);
});
