// The finder's questions in the real page: the worker draws the form (the
// failure to find, the longest pause, the faults allowed), the result names
// the question, the address keeps it and a link asks it again, a field that
// cannot be read is named with its text as typed, and a trace that needs a
// client to release before its write is acknowledged is labelled, with a
// button that asks again without such runs.
//
// Run: `trunk build --release --offline && node --test tests/e2e/finder_bounds.test.mjs`

import { after, describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { PATIENCE_MS, chooseBackend, finder, named, openView, poll, setFencing } from "./ui.mjs";

const TEST_TIMEOUT_MS = 180_000;
/** A search is the worker's and its length the machine's: waited for, never timed. */
const LONG = { timeout: 6 * PATIENCE_MS };

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], "no console errors, warnings or failed requests"));

const question = (page) => finder(page).getByRole("form", named("The question"));
const text = async (page) => (await finder(page).innerText()).replace(/\s+/g, " ");
const pauseField = (page) => question(page).getByLabel("Pauses never exceed (s; empty: no bound)");

/** Opens the finder's form without searching. */
async function openQuestion(page) {
  await openView(page, "Properties and finder");
  await finder(page).getByRole("button", named("Set the question first")).click();
  await pauseField(page).waitFor(LONG);
}

/** Waits for the search's result: a trace, a bound, or a refusal. */
async function result(page) {
  return poll(async () => {
    const t = await text(page);
    return /Broken in|breaks it| within \d+ moves?|Nothing was searched|could not/.test(t) && t;
  }, { what: "the search's result", ...LONG, interval: 100 });
}

const fault = (page, words) => question(page).getByRole("checkbox", { name: words });

describe("the finder's questions", { timeout: TEST_TIMEOUT_MS }, () => {
  test("a question with a pause bound and chosen faults is answered, named, and kept in the link", async (t) => {
    const page = await suite.page(t);
    assert.equal(page.workers().length, 0, "the worker is not loaded before it is asked for");
    await openQuestion(page);
    await question(page).getByLabel("Failure to find").selectOption("two-holders");
    await pauseField(page).fill("20");
    await question(page).getByLabel("Moves at most").fill("6");
    await fault(page, "partition from the lock service (and heal)").uncheck();
    await fault(page, "client clock jump").uncheck();
    await question(page).getByRole("button", named("Find the shortest failure")).click();
    const answered = await result(page);
    assert.match(answered, /Question: from the playhead, can a run of up to 6 moves give “two clients believe they hold the lock”\?/, answered);
    assert.match(answered, /Pauses tried: [\d.]+ s(, [\d.]+ s)* \(pauses never exceed 20 s;/, answered);
    assert.doesNotMatch(answered, /Faults:[^.]*partition/, "the faults named are the ones allowed");
    assert.match(answered, /Two clients believe they hold the lock\. Broken in \d+ moves/, answered);

    // The address keeps the question; a link to it asks it again as the page opens.
    const url = new URL(page.url());
    assert.match(url.search, /^\?find&/);
    assert.match(url.search, /property=two-holders/);
    assert.match(url.search, /pause_max_s=20/);
    assert.doesNotMatch(url.search, /fault=partition/);
    const again = await suite.page(t, `${url.search}${url.hash}`);
    await poll(async () => (await finder(again).count()) === 1 && (await finder(again).isVisible()), {
      what: "the finder's view, opened by the link",
    });
    const relinked = await result(again);
    assert.match(relinked, /“two clients believe they hold the lock”/, relinked);
    assert.equal(await pauseField(again).inputValue(), "20");
    assert.equal(await fault(again, "partition from the lock service (and heal)").isChecked(), false);
    assert.equal(await fault(again, "GC pauses").isChecked(), true);
  });

  test("fields that cannot be read are named at once with the text as typed", async (t) => {
    const page = await suite.page(t);
    await openQuestion(page);
    await pauseField(page).fill("twenty");
    await question(page).getByLabel("Moves at most").fill("99");
    await question(page).getByRole("button", named("Find the shortest failure")).click();
    const refused = await result(page);
    assert.match(refused, /Nothing was searched: these fields cannot be read\./);
    assert.match(refused, /Pauses never exceed: “twenty” is not a number of seconds from 0\.001 to 600\./);
    assert.match(refused, /Moves at most: “99” is not a whole number from 1 to 16\./);
    assert.equal(await pauseField(page).inputValue(), "twenty", "the field keeps what was typed");
    assert.equal(await finder(page).getByRole("alert").count(), 1);
  });

  test("a trace that needs a release before the write's answer is labelled, and can be asked again without", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "Redlock");
    await setFencing(page, true);
    await openQuestion(page);
    const bug = question(page).getByRole("checkbox", { name: /^Allow a client to release before its write is acknowledged/ });
    assert.equal(await bug.isChecked(), false, "left out unless asked");
    await bug.check();
    await question(page).getByLabel("Moves at most").fill("6");
    await question(page).getByRole("button", named("Find the shortest failure")).click();
    const labelled = await result(page);
    assert.match(labelled, /This run needs A to release the lock before its write was acknowledged: a client bug, not the lock's\./, labelled);
    await finder(page).getByRole("button", named("Search again without such runs")).click();
    await poll(async () => /A client releasing before its write is acknowledged: left out\./.test(await text(page)), {
      what: "the question asked again without the client bug", ...LONG,
    });
    const own = await result(page);
    assert.doesNotMatch(own, /a client bug, not the lock's/, own);
    assert.match(own, /A stale write accepted\. Broken in \d+ moves|No failure within \d+ moves/, own);
    assert.equal(await question(page).getByRole("checkbox", { name: /^Allow a client to release/ }).isChecked(), false);
    assert.match(page.url(), /early_release=0/);
  });
});
