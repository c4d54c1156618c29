// The Properties panel and the search for the shortest failure, in headless
// Chromium against the release build: the page's worker finds the shortest
// run that corrupts the counter from the default settings, the trace opens
// in the cards and the timeline, a property's "violated at" moment moves
// the playhead, and Cancel stops a long search at once.
//
// Run: `trunk build --release --offline && node --test tests/e2e/finder.test.mjs`

import { after, describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { chooseBackend, clockSeconds, finder, named, openView, playScenarioToRunFirst, playhead, poll, propertiesPanel, setFencing, statusText, stepUntil, timeline } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
/** A search is the worker's and its length the machine's: waited for, never timed. */
const SEARCH_PATIENCE_MS = 90_000;

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], "no console errors, warnings or failed requests"));

const panelText = async (page) => (await propertiesPanel(page).innerText()).replace(/\s+/g, " ");
const playheadMs = async (page) => Number(await playhead(page).getAttribute("aria-valuenow"));

/** The list item of a property, found by its name. */
const property = (page, title) => propertiesPanel(page).getByRole("listitem").filter({ hasText: title });

/** The moment in a "violated at t=7.726 s" button, in milliseconds. */
async function violationMs(button) {
  const text = await button.innerText();
  const match = text.match(/violated at t=(\d+)\.(\d{3}) s/);
  assert.ok(match, `a moment in "${text}"`);
  return Number(match[1]) * 1000 + Number(match[2]);
}

/** Waits for the search's result (a trace or a bound) or its failure. */
async function searchResult(page) {
  return poll(
    async () => {
      const text = (await finder(page).innerText()).replace(/\s+/g, " ");
      return /Broken in|breaks it|No failure within|could not|cannot/.test(text) && text;
    },
    { what: "the search's result", timeout: SEARCH_PATIENCE_MS, interval: 100 },
  );
}

describe("properties and the shortest failure", { timeout: TEST_TIMEOUT_MS }, () => {
  test("the worker finds the shortest stale write from the default settings, and it opens as a run", async (t) => {
    const page = await suite.page(t);
    await openView(page, "Properties and finder");
    assert.equal(page.workers().length, 0, "the worker is not loaded before it is asked for");
    assert.equal((await panelText(page)).match(/holds so far/g)?.length, 5, "a fresh run holds every property");
    await finder(page).getByRole("button", named("Find the shortest failure")).click();
    await poll(async () => page.workers().length === 1, { what: "the worker to start" });
    const result = await searchResult(page);
    assert.match(result, /Broken in \d+ moves \(\d+ clicks and \d+ waits?\)(, then time passing)?: “no stale write accepted” violated at t=/, result);
    const steps = finder(page).getByRole("list").getByRole("listitem");
    assert.ok((await steps.count()) >= 2, "the steps are numbered, one a line");
    assert.match(await steps.first().innerText(), /^A asks for the lock/);
    assert.match(result, /Searched [\d,]+ distinct states( in [\d.]+ m?s \([\d,]+ distinct states per second\))?\./);
    // The question asked, drawn with its answer: the default one.
    const chosen = finder(page).getByRole("combobox", named("Failure to find"));
    assert.equal(await chosen.inputValue(), "stale-write", "a stale write accepted is the default");

    await finder(page).getByRole("button", named("Open this run")).click();
    await poll(async () => (await page.getByText(/Opened the shortest run found that breaks/).count()) > 0, {
      what: "the opened trace's notice",
    });
    await poll(async () => /[A-D]'s write (with token \d+ )?was accepted/.test(await statusText(page)) && !/stale writes accepted in all/.test(await statusText(page)), {
      what: "the corrupted counter in the status strip, in the simulator the run opens in",
    });
    const picture = timeline(page).locator("svg.timeline__svg");
    assert.equal(await picture.locator(".tl-write--stale").count(), 1, "the timeline marks the stale write");
    const openedAt = await playheadMs(page);
    // The panel agrees with the search: the same property, at the same moment.
    await openView(page, "Properties and finder");
    const seek = property(page, "no stale write accepted").getByRole("button", { name: /^violated at t=/ });
    const at = await violationMs(seek);
    assert.match(result, new RegExp(`violated at t=${Math.floor(at / 1000)}\\.${String(at % 1000).padStart(3, "0")} s`));
    assert.equal(openedAt, at, "the trace opens with the playhead on the violation");
    // The result stays, to read beside the run it opened.
    assert.match(await finder(page).innerText(), /Broken in/);
  });

  test("a property's violated-at moment moves the playhead there", async (t) => {
    const page = await suite.page(t);
    await playScenarioToRunFirst(page, { fencing: false, start: false });
    await stepUntil(page, async () => (await clockSeconds(page)) >= 10, "the clock at 10 s");
    const end = await playheadMs(page);
    await openView(page, "Properties and finder");
    const stale = property(page, "no stale write accepted").getByRole("button", { name: /^violated at t=/ });
    const two = property(page, "at most one client believes it holds the lock").getByRole("button", {
      name: /^violated at t=/,
    });
    assert.match(await property(page, "no release deletes another client's lock").innerText(), /holds so far/);
    const staleMs = await violationMs(stale);
    const twoMs = await violationMs(two);
    assert.ok(twoMs < staleMs && staleMs < end, `two holders (${twoMs}) before the stale write (${staleMs}), before ${end}`);

    // A moment opens the simulator there, to see it.
    await stale.click();
    await poll(async () => (await playheadMs(page)) === staleMs, { what: `the playhead at ${staleMs} ms` });
    assert.match(await statusText(page), /Counter corrupted|increments? (?:was|were) lost/, "the moment shown is the stale write's");
    await openView(page, "Properties and finder");
    await two.click();
    await poll(async () => (await playheadMs(page)) === twoMs, { what: `the playhead at ${twoMs} ms` });
    assert.doesNotMatch(await statusText(page), /Counter corrupted|increments? (?:was|were) lost/, "before the stale write, the counter is whole");
    await openView(page, "Properties and finder");
    // The panel still names what the rest of the run breaks, and says it comes later.
    assert.match(await property(page, "no stale write accepted").innerText(), /\(after the moment shown\)/);
  });

  test("Cancel stops a long search at once, and a new search starts afresh", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "etcd");
    await setFencing(page, true);
    await openView(page, "Properties and finder");
    await finder(page).getByRole("button", named("Set the question first")).click();
    const chosen = finder(page).getByRole("combobox", named("Failure to find"));
    await chosen.waitFor({ timeout: SEARCH_PATIENCE_MS });
    await chosen.selectOption("token-order");
    await finder(page).getByRole("button", named("Find the shortest failure")).click();
    await poll(async () => /Searching depth \d+ of 8/.test(await finder(page).innerText()), {
      what: "the search's progress",
      timeout: SEARCH_PATIENCE_MS,
    });
    assert.ok(await chosen.isDisabled(), "the question is fixed while it searches");
    await finder(page).getByRole("button", named("Cancel")).click();
    await poll(async () => /Cancelled: the worker is stopped\. Its last report: “Searching depth \d+ of 8/.test(await finder(page).innerText()), {
      what: "the cancelled search's words",
    });
    await poll(async () => page.workers().length === 0, { what: "the worker to be gone" });

    // The page offers its buttons again: the default question, at once.
    await finder(page).getByRole("button", named("Find the shortest failure")).click();
    const result = await searchResult(page);
    assert.match(result, /Broken in \d+ moves/, result);
    assert.equal(page.workers().length, 1, "one worker, started again");
  });
});
