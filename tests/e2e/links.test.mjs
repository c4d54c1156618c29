// Links that reproduce a run, in headless Chromium against the release
// build: a copied link opens the same run at the same moment; every bad
// link of tests/core/bad_links.txt shows its message and the default page.
//
// Run: `trunk build --release --offline && node --test tests/e2e/`

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { browserSuite } from "./suite.mjs";
import { CLIENTS, cardText, clockSeconds, named, openPage, openView, pauseClock, playhead, poll, setMaxSpeed, startClock, statusText, waitForClock } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));

const freshContext = (t, options) => suite.context(t, options);

/** The resource's words on the stage under the cards, where a visitor reads them. */
async function resourceText(page) {
  const region = page.getByRole("group", named("Resource at a glance"));
  return poll(async () => (await region.innerText()).replace(/\s+/g, " ").trim(), { what: "the resource's words" });
}
const notice = (page) => page.locator(".notice").first();

/** What the page shows of a run: the clock, the four cards, the resource. */
async function snapshot(page) {
  const cards = [];
  for (const id of CLIENTS) cards.push(await cardText(page, id));
  return { clock: await clockSeconds(page), cards, resource: await resourceText(page) };
}

test("a copied link opens the same run at the same moment, in a new page", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const context = await freshContext(t, { permissions: ["clipboard-read", "clipboard-write"] });
  const page = await openPage(context, `${suite.server.url}?preset=gc-pause`);
  await setMaxSpeed(page);
  await startClock(page);
  await waitForClock(page, 11);
  await pauseClock(page);
  // Look back at 9 s: the link carries the whole run and the playhead.
  await playhead(page).focus();
  const end = await clockSeconds(page);
  for (let s = end; s > 9.05; s -= 1) await page.keyboard.press("ArrowLeft");
  const before = await snapshot(page);

  await openView(page, "Share and embed");
  await page.getByRole("button", named("Copy link")).click();
  const field = page.getByRole("textbox", named("Link to this run"));
  await field.waitFor();
  const url = await field.inputValue();
  assert.match(url, /#v1\.[A-Za-z0-9_-]+$/, url);
  assert.ok(url.length < 2000, `${url.length} characters`);
  await poll(async () => (await page.getByText("Link copied.").count()) === 1, { what: "the clipboard to take the link" });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
  assert.equal(await page.evaluate(() => location.href), url, "the address bar holds the link too");

  const other = await openPage(await freshContext(t), url);
  await poll(async () => (await snapshot(other)).clock === before.clock, { what: "the shared moment" });
  assert.deepEqual(await snapshot(other), before);
  assert.match(await other.getByRole("region", named("Timeline")).innerText(), /Looking back at/);
  assert.match(await notice(other).innerText(), /Opened a shared run/);
});

/** The corpus's fragment for an entry, written as the core writes links. */
function fragmentOf(kind, payload, config) {
  if (kind === "raw") return payload;
  const json = payload.replaceAll("$CONFIG", config);
  return `v1.${Buffer.from(json).toString("base64url")}`;
}

test("every bad link of the corpus says what is wrong and opens the default page", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const config = JSON.stringify({
    backend: "etcd", fencing: "off", ttl_ms: 5000, seed: 1, latency_scale: 10, renewal: [true, true, true, true],
    redis: { release: "check-value", extend: "check-value", persistence: "none", restart: "immediate" },
  });
  const corpus = (await readFile(new URL("../core/bad_links.txt", import.meta.url), "utf8"))
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => line.split("\t"));
  const context = await freshContext(t);
  const page = await context.newPage();
  let checked = 0;
  for (const [name, kind, payload, words] of corpus) {
    if (payload === "") continue; // an empty fragment is simply no link
    await page.goto(`${suite.server.url}?case=${checked}#${fragmentOf(kind, payload, config)}`);
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 15_000 }).catch(() => {
      throw new Error(`${name}: no message`);
    });
    // The notice ends with its dismiss button (×).
    const text = (await alert.innerText()).replace(/\s+/g, " ").replace(/\s*×\s*$/, "");
    assert.ok(text.includes(words), `${name}: expected "${words}" in "${text}"`);
    assert.ok(text.endsWith("The default page is open instead."), `${name}: ${text}`);
    assert.match(await statusText(page), /t=0\.0 s/, `${name}: the clock at 0`);
    assert.ok(await page.getByRole("radio", named("etcd")).isChecked(), `${name}: the default backend`);
    checked += 1;
  }
  assert.ok(checked >= 30, `${checked} bad links checked`);

  // A bad link pasted into the open page's address bar is refused too.
  await page.evaluate(() => { location.hash = "v1.cut"; });
  await poll(async () => /cut short|damaged/.test(await page.getByRole("alert").innerText()), { what: "the refusal" });
});

test("a run past one day takes no more commands and says so, and its link still opens", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const config = {
    backend: "etcd", fencing: "off", ttl_ms: 5000, seed: 1, latency_scale: 10, renewal: [true, true, true, true],
    pg: { keepalives_idle_s: 7200, keepalives_interval_s: 75, keepalives_count: 9 },
  };
  const day = 86_400_000;
  const run = { version: 1, config, actions: [{ at_ms: day, client: "A", command: { do: "acquire" } }], playhead_ms: day, end_ms: day };
  const page = await openPage(await freshContext(t), `${suite.server.url}#v1.${Buffer.from(JSON.stringify(run)).toString("base64url")}`);
  assert.match(await notice(page).innerText(), /Opened a shared run/);
  // A's acquisition at the last moment a link keeps took; one frame later the day is over.
  await startClock(page);
  await poll(async () => /passed one day of simulated time/.test(await notice(page).innerText()), { what: "the day's end said" });
  await pauseClock(page);
  const release = page.getByRole("region", named("Client A")).getByRole("button", { name: /^Release/ });
  assert.ok(await release.first().isDisabled(), "A's commands are off");

  await openView(page, "Share and embed");
  await page.getByRole("button", named("Copy link")).click();
  const url = await page.getByRole("textbox", named("Link to this run")).inputValue();
  const other = await openPage(await freshContext(t), url);
  assert.match(await notice(other).innerText(), /Opened a shared run/);
  assert.equal(await clockSeconds(other), 86400, "it opens at the day's end, the last a link keeps");
});
