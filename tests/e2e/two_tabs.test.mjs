// Two tabs, one link: the same link opened in two tabs of one browser
// gives the same run, and a tab reloaded mid-run comes back to it. Each
// tab is driven by Step (one event at a time, the clock stopped) to the
// first event at or after one moment, so the machine's speed changes
// nothing; then the tabs' clocks, cards, status, event logs and share
// links are compared.
//
// Run: `trunk build --release --offline && node --test tests/e2e/two_tabs.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { CLIENTS, cardText, clockSeconds, eventLines, named, openPage, openView, poll, statusText, stepUntil } from "./ui.mjs";

const TEST_TIMEOUT_MS = 180_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));

/** Presses Step until the clock reads at least `seconds`. */
const stepTo = (page, seconds) =>
  stepUntil(page, async () => (await clockSeconds(page)) >= seconds, `the clock at ${seconds} s`, 400);

/** Everything the simulator view shows of the run. */
async function seen(page) {
  const cards = [];
  for (const id of CLIENTS) cards.push(await cardText(page, id));
  return { clock: await clockSeconds(page), status: await statusText(page), cards, log: await eventLines(page) };
}

/** The run's link, as the Share view hands it out, then back to the simulator. */
async function shareLink(page) {
  await openView(page, "Share and embed");
  await page.getByRole("button", named("Copy link")).click();
  const field = page.getByRole("textbox", named("Link to this run"));
  await field.waitFor();
  const url = await field.inputValue();
  await openView(page, "Simulator");
  return url;
}

test("one link in two tabs gives the same run, and a tab reloaded mid-run comes back to it", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const context = await suite.context(t, { permissions: ["clipboard-read", "clipboard-write"] });
  // A run to share: the GC-pause story, stepped a few seconds in.
  const maker = await openPage(context, `${suite.server.url}?preset=gc-pause`);
  await stepTo(maker, 3);
  const link = await shareLink(maker);
  assert.match(link, /#v1\.[A-Za-z0-9_-]+$/, link);
  await maker.close();

  const one = await openPage(context, link);
  const two = await openPage(context, link);
  await poll(async () => (await clockSeconds(two)) === (await clockSeconds(one)), { what: "both tabs at the link's moment" });
  assert.deepEqual(await seen(two), await seen(one), "the link opens the same moment in both tabs");

  // Tab one runs on to 12 s; tab two goes halfway, is reloaded, then
  // goes on to 12 s too.
  await stepTo(one, 12);
  await stepTo(two, 7);
  await two.reload();
  await CLIENTS.reduce((ready, id) => ready.then(() => two.getByRole("region", named(`Client ${id}`)).waitFor()), Promise.resolve());
  const back = await clockSeconds(two);
  assert.ok(back <= 7.05, `the reloaded tab opens at or before where it was (t=${back} s)`);
  await stepTo(two, 12);

  const a = await seen(one);
  const b = await seen(two);
  assert.ok(a.log.length > 5, `the run did something (${a.log.length} log lines)`);
  assert.deepEqual(b, a, "the same run in both tabs, reload or not");
  assert.equal(await shareLink(two), await shareLink(one), "the same link for the same run");
});
