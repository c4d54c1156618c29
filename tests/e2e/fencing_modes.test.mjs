// Fencing as its own setting: the resource panel offers the modes the
// chosen system has and names the documented one; on etcd, with the check
// in the same transaction, A's late write is refused even though B, the
// new holder, never wrote, and the page says which check refused it. Once
// by clicks (every step with Step, the clock stopped), once by a link.
//
// Run: `trunk build --release --offline && node --test tests/e2e/fencing_modes.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { card, cardButton, cardText, chooseBackend, named, openPage, setFenceMode, setFencing, setTtl, statusText, stepUntil, waitForCardState } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const suite = browserSuite();

const VERDICT = /increments? (?:was|were) lost|Counter corrupted|Fencing stopped/;
const CHECKED =
  /Fencing stopped A's write with token (\d+): the lock no longer holds its grant; it holds token (\d+)\./;

const modeSelect = (page) => page.getByRole("combobox", named("Fencing mode"));
const resource = (page) => page.getByRole("region", named("Resource"));

/** The modes the select lists, by their words. */
async function listedModes(page) {
  const select = modeSelect(page);
  if (!(await select.isVisible())) await page.getByText(/^In detail: /).click();
  return (await select.locator("option").allInnerTexts()).map((t) => t.trim());
}

/** A acquires, pauses 8 s with a write clicked, its lease runs out, B acquires and never writes. */
async function bAcquiresButNeverWrites(page) {
  await cardButton(page, "A", "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "A")), "Client A holding");
  await card(page, "A").getByRole("combobox", named("Pause (s), client A")).selectOption("8");
  await cardButton(page, "A", "GC pause").click();
  await waitForCardState(page, "A", "paused");
  await card(page, "A").getByRole("button", { name: /^Write\b/ }).first().click();
  await stepUntil(page, async () => /\bholder\s+nobody\b/i.test(await statusText(page)), "A's lease gone at the service");
  await cardButton(page, "B", "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "B")), "Client B holding");
  await stepUntil(page, async () => VERDICT.test(await statusText(page)), "the resource's verdict on A's write", 400);
}

/** The run as a link would hold it: etcd, fencing on, the check; B never writes. */
function link() {
  const json = JSON.stringify({
    version: 1,
    config: {
      backend: "etcd", fencing: "on", ttl_ms: 5000, seed: 1, latency_scale: 10,
      renewal: [true, true, true, true], fence: "check",
    },
    actions: [
      { at_ms: 0, client: "A", command: { do: "acquire" } },
      { at_ms: 500, client: "A", command: { do: "gc-pause", pause_ms: 8000 } },
      { at_ms: 1000, client: "A", command: { do: "write" } },
      { at_ms: 5000, client: "B", command: { do: "acquire" } },
    ],
    playhead_ms: 20000,
    end_ms: 20000,
  });
  return `v1.${Buffer.from(json).toString("base64url")}`;
}

describe("fencing modes", { timeout: TEST_TIMEOUT_MS }, () => {
  test("each system lists only its modes, the documented one named", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "etcd");
    assert.deepEqual(await listedModes(page), [
      "highest token seen (documented)",
      "checked against the lock in the same transaction",
      "new holder fences on takeover",
    ]);
    await chooseBackend(page, "Redlock");
    assert.deepEqual(await listedModes(page), ["highest token seen (documented)", "new holder fences on takeover"]);
    await chooseBackend(page, "DynamoDB");
    assert.equal(await modeSelect(page).count(), 0, "one mode only: nothing to choose");
  });

  test("by clicks on etcd: the check refuses A's write though B never wrote, and says which check", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "etcd");
    await setFencing(page, true);
    await setTtl(page, 5);
    await setFenceMode(page, "checked against the lock");
    await page.evaluate(() => window.scrollTo(0, 0));
    await bAcquiresButNeverWrites(page);
    const strip = await statusText(page);
    assert.match(strip, CHECKED, strip);
    const [, a, b] = strip.match(CHECKED);
    assert.ok(Number(b) > Number(a), strip);
    const panel = (await resource(page).innerText()).replace(/\s+/g, " ");
    assert.match(panel, /a Txn comparing the lock key's create_revision/, panel);
    assert.match(panel, /the lock no longer holds this writer's grant/, panel);
    assert.match(panel, /rejected 1\b/, panel);
  });

  test("by link: the mode comes with the run, and a bad one is refused by name", async (t) => {
    const context = await suite.context(t);
    const page = await openPage(context, `${suite.server.url}#${link()}`);
    const strip = await statusText(page);
    assert.match(strip, CHECKED, strip);
    await listedModes(page);
    assert.equal(await modeSelect(page).inputValue(), "check");

    const bad = link().replace(/^v1\./, "");
    const json = Buffer.from(bad, "base64url").toString().replace('"check"', '"loudly"');
    await page.goto(`${suite.server.url}?bad#v1.${Buffer.from(json).toString("base64url")}`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /config\.fence: its fencing mode is "loudly"/);
  });
});
