// The run as a history other tools read, from the Share view of the real
// page: each format's Download saves a file named after the run whose first
// bytes are that format's, and Copy puts the same text on the clipboard and
// in a read-only field. The bytes themselves are checked in the core
// (tests/core_export.rs), where the worker's reply equals the command line's.
//
// Run: `trunk build --release --offline && node --test tests/e2e/exports.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { openPage, openView, pauseClock, poll, setMaxSpeed, startClock, waitForClock } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const named = (name) => ({ name, exact: true });

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));

/** The story to run first, played past A's late write, in the Share view. */
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

async function download(page, name) {
  const [saved] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", named(name)).click()]);
  const path = await saved.path();
  return { file: saved.suggestedFilename(), text: await readFile(path, "utf8") };
}

const status = (page) => page.getByRole("group", named("Check this run in another tool")).getByRole("status");

test("each format downloads as a file named after the run, with its format's first bytes", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await sharedRun(t);
  const edn = await download(page, "Download Jepsen history (.edn)");
  assert.equal(edn.file, "distlock-gc-pause-etcd.edn");
  assert.ok(edn.text.startsWith("{:type :invoke, :f :acquire, :value nil, :process 0, :time 0, :index 0}\n"), edn.text.slice(0, 200));
  assert.match(edn.text, /\{:type :ok, :f :acquire, :value 2, :process 0, /);
  await poll(async () => /^Saved distlock-gc-pause-etcd\.edn \(\d+ bytes\)\.$/.test(await status(page).innerText()), {
    what: "the saved file's status",
  });

  const porcupine = await download(page, "Download Porcupine log (.json)");
  assert.equal(porcupine.file, "distlock-gc-pause-etcd.json");
  assert.ok(porcupine.text.startsWith('[\n{"ClientId":0,"Input":{"op":"acquire","token":null},"Call":0,'), porcupine.text.slice(0, 200));
  assert.ok(Array.isArray(JSON.parse(porcupine.text)));

  const itf = await download(page, "Download ITF trace (.itf.json)");
  assert.equal(itf.file, "distlock-gc-pause-etcd.itf.json");
  assert.ok(itf.text.startsWith('{"#meta":{"format":"ITF",'), itf.text.slice(0, 200));
  const trace = JSON.parse(itf.text);
  assert.deepEqual(trace.vars, ["t_ms", "belief", "token", "holder", "highest", "counter"]);
  assert.deepEqual(trace.states[0]["#meta"], { index: 0 });
});

test("Copy puts the history on the clipboard and in a field to copy by hand", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const page = await sharedRun(t);
  await page.getByRole("button", named("Copy Jepsen history")).click();
  const field = page.getByRole("textbox", named("Exported Jepsen history"));
  await field.waitFor();
  await poll(async () => /^The Jepsen history is copied \(\d+ bytes\)\.$/.test(await status(page).innerText()), {
    what: "the clipboard to take the history",
  });
  const text = await field.inputValue();
  assert.ok(text.startsWith("{:type :invoke, :f :acquire, :value nil, :process 0, :time 0, :index 0}\n"), text.slice(0, 200));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  // The pause is the nemesis's, and B's write the resource accepted.
  assert.match(text, /:f :pause, :value \{:client "A", :until-ms 8500\}, :process :nemesis/);
  assert.match(text, /\{:type :ok, :f :write, :value \{:token 3, :value 1\}, :process 1, /);
});
