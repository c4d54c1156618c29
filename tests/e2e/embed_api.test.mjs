// The host-page API (docs/embed.md), in headless Chromium against the
// release build: the demo page shipped in dist/embed-demo/ holds two embeds
// of the same story, fencing off and on; the article's scenario is played
// in each by commands alone, and the events come back, each naming its
// frame. A message the frame cannot read is answered with an error.
//
// Run: `trunk build --release --offline && node --test tests/e2e/embed_api.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { named, openPage, openView, poll, started } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();

const FRAMES = { "embed-a": "without-fencing", "embed-b": "with-fencing" };

/** The events the demo page heard from the frame `frame` (its element id). */
const heard = (page, frame) => page.evaluate((f) => window.distlockDemo.events.filter((e) => e.frame === f), frame);

/** Sends a command from the demo page to one of its frames. */
const send = (page, frame, command) => page.evaluate(([f, c]) => window.distlockDemo.send(f, c), [frame, command]);

/** Waits until the frame has sent an event `probe` accepts, and returns it. */
async function awaitEvent(page, frame, what, probe) {
  return poll(async () => (await heard(page, frame)).find(probe), { what: `${what} from ${frame}` });
}

test("the demo page drives two embeds through the host-page API, and hears their events", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const problems = [];
  const context = await suite.context(t, { viewport: { width: 1280, height: 900 } }, problems);
  const page = await context.newPage();
  await page.goto(`${suite.server.url}embed-demo/`);
  for (const frame of Object.keys(FRAMES)) {
    await started(page.frameLocator(`#${frame}`));
    const ready = await awaitEvent(page, frame, "ready", (e) => e.event === "ready");
    assert.equal(ready.id, FRAMES[frame]);
    assert.equal(ready.story, "gc-pause");
    assert.equal(ready.system, "etcd");
    assert.equal(ready.fencing, frame === "embed-b", `${frame}'s fencing`);
  }

  // The article's scenario, by commands alone, in each frame: the story's
  // own script stops, and the run starts afresh by hand.
  for (const frame of Object.keys(FRAMES)) {
    for (const command of [
      { command: "unload" },
      { command: "reset" },
      { command: "client", client: "A", action: "acquire" },
      { command: "seek", t_ms: 1000 },
      { command: "client", client: "A", action: "gc-pause", seconds: 15 },
      { command: "client", client: "B", action: "acquire" },
      { command: "seek", t_ms: 12000 },
      { command: "client", client: "B", action: "write" },
      { command: "client", client: "A", action: "write" },
      { command: "seek", t_ms: 20000 },
    ]) {
      await send(page, frame, command);
    }
  }
  const corrupted = await awaitEvent(page, "embed-a", "corrupted", (e) => e.event === "corrupted");
  assert.equal(corrupted.client, "A");
  assert.match(corrupted.text, /corrupted/);
  const rejected = await awaitEvent(page, "embed-b", "A's rejected write", (e) => e.event === "write" && e.client === "A");
  assert.equal(rejected.outcome, "rejected");
  for (const frame of Object.keys(FRAMES)) {
    const events = await heard(page, frame);
    const grants = events.filter((e) => e.event === "grant").map((e) => e.client);
    assert.deepEqual(grants, ["A", "B"], `${frame}: the grants in order`);
    assert.ok(events.some((e) => e.event === "expired" && e.client === "A"), `${frame}: A's lease ended`);
    assert.ok(events.some((e) => e.event === "write" && e.client === "B" && e.outcome === "accepted"), `${frame}: B's write`);
    assert.deepEqual(events.filter((e) => e.event === "error"), [], `${frame}: no command refused`);
    for (const e of events) assert.equal(e.id, FRAMES[frame], `${frame}: ${JSON.stringify(e)}`);
  }
  assert.ok(!(await heard(page, "embed-b")).some((e) => e.event === "corrupted"), "fencing saved the data");

  // A command the run cannot take, and messages the frame cannot read.
  await send(page, "embed-a", { command: "client", client: "C", action: "write" });
  const refused = await awaitEvent(page, "embed-a", "an error for C's write", (e) => e.event === "error");
  assert.match(refused.reason, /C/);
  await page.evaluate(() => document.getElementById("embed-b").contentWindow.postMessage({ type: "distlock", command: "jump" }, "*"));
  const unknown = await awaitEvent(page, "embed-b", "an error for an unknown command", (e) => e.event === "error");
  assert.match(unknown.reason, /Unknown command "jump"/);
  assert.equal(unknown.id, "with-fencing");
  await page.evaluate(() => document.getElementById("embed-b").contentWindow.postMessage("play", "*"));
  await poll(async () => (await heard(page, "embed-b")).filter((e) => e.event === "error").length === 2, {
    what: "an error for a message that is not an object",
  });

  // The demo's own buttons: key moment 5 of the story, loaded again.
  await send(page, "embed-a", { command: "load", story: "gc-pause", system: "etcd", fencing: false });
  await page.getByRole("group", named("Drive the first simulator")).getByRole("button", named("Go to key moment 5")).click();
  const moment = await awaitEvent(page, "embed-a", "key moment 5", (e) => e.event === "moment" && e.n === 5);
  assert.ok(moment.caption.length > 0);
  await poll(async () => /Key moment 5 of/.test(await page.frameLocator("#embed-a").getByRole("group", named("Tour")).innerText()), {
    what: "the tour at key moment 5",
  });
  await poll(async () => /without-fencing: key moment 5/.test(await page.locator("#events-line").innerText()), {
    what: "the demo's line showing the event",
  });
  // The height is sent once it has held still for 150 ms of the page's
  // time, so on a busy machine it may come after the moment.
  await poll(async () => (await heard(page, "embed-a")).some((e) => e.event === "height"), {
    what: "a height event from the first embed",
  });
  const heights = (await heard(page, "embed-a")).filter((e) => e.event === "height");
  assert.ok(heights[0].px > 300, `a settled height first: ${JSON.stringify(heights)}`);
  assert.deepEqual(problems, [], problems.join("\n"));
});

test("the Share view builds an embed at key moment 5 with fencing off, shows it in its preview, and gives its code", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const problems = [];
  const page = await openPage(await suite.context(t, {}, problems), `${suite.server.url}?preset=gc-pause&system=etcd`);
  await openView(page, "Share and embed");
  const builder = page.getByRole("region", named("Embed in a course page"));
  const codeOf = async () => builder.getByRole("textbox", named("Embed code")).inputValue();
  const srcOf = (code) => new URL(code.match(/\ssrc="([^"]*)"/)[1].replaceAll("&amp;", "&"));
  await builder.getByLabel("Fencing on").setChecked(false);
  await builder.getByLabel("Opens at").selectOption("moment");
  const moment = builder.getByLabel(/^Key moment \(1 to \d+\)$/);
  await moment.fill("5");
  await moment.blur();
  await poll(async () => srcOf(await codeOf()).searchParams.get("moment") === "5", { what: "moment=5 in the code" });
  const code = await codeOf();
  const src = srcOf(code);
  assert.equal(src.searchParams.get("preset"), "gc-pause", code);
  assert.equal(src.searchParams.get("system"), "etcd", code);
  assert.equal(src.searchParams.get("fencing"), "0", code);
  assert.match(code, /title="Distributed Lock Simulator: A GC pause outlives the lease, on etcd, fencing off"/);
  assert.doesNotMatch(code, /sandbox/);

  // A value the builder cannot take is refused, and the code stays.
  const height = builder.getByLabel("Height (px)");
  await height.fill("12");
  await height.blur();
  await builder.getByRole("alert").filter({ hasText: "Height (px)" }).waitFor();
  assert.equal(await codeOf(), code, "the code is unchanged");

  // The preview is exactly that frame: the story at key moment 5.
  await builder.getByRole("button", named("Preview")).click();
  const frame = page.frameLocator(".embed-builder__frame");
  await started(frame);
  await poll(async () => /Key moment 5 of/.test(await frame.getByRole("group", named("Tour")).innerText()), {
    what: "the preview at key moment 5",
  });
  assert.equal(await page.locator(".embed-builder__frame").getAttribute("src"), src.href);

  // Fencing on, from the start: the second embed of a chapter.
  await builder.getByLabel("Fencing on").setChecked(true);
  await builder.getByLabel("Opens at").selectOption("start");
  await poll(async () => srcOf(await codeOf()).searchParams.get("fencing") === "1" && !srcOf(await codeOf()).searchParams.has("moment"), {
    what: "fencing on from the start",
  });
  assert.match(await codeOf(), /fencing on"/);
  assert.deepEqual(problems, [], problems.join("\n"));
});
