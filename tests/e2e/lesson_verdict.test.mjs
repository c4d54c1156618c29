// The verdict explains itself where the eye is: following the article's
// words by hand with fencing on, when B is granted the lock but never
// writes, A's late write gets through and the status strip says why (the
// resource had not yet seen B's newer token). With the new holder
// announcing its token as it takes over, the same clicks get A's write
// refused. Every step is taken with Step, the clock stopped.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_verdict.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import {
  card,
  cardButton,
  cardText,
  chooseBackend,
  named,
  setFenceMode,
  setFencing,
  setTtl,
  statusStrip,
  statusText,
  stepUntil,
  waitForCardState,
} from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const suite = browserSuite();

/** A's Write button, whatever it says while A is frozen ("Write", "Write on wake"). */
const writeButton = (page, id) => card(page, id).getByRole("button", { name: /^Write\b/ }).first();

const VERDICT = /increments? (?:was|were) lost|Counter corrupted|Fencing stopped/;

/**
 * The article's sentences, by hand: A acquires, a GC pause freezes it, A's
 * write is clicked while it is frozen, A's lease runs out, B acquires; B
 * never writes. Steps until the resource has judged A's write.
 */
async function followTheArticleWithoutBWriting(page) {
  await cardButton(page, "A", "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "A")), "Client A holding");
  await card(page, "A").getByRole("combobox", named("Pause (s), client A")).selectOption("8");
  await cardButton(page, "A", "GC pause").click();
  await waitForCardState(page, "A", "paused");
  await writeButton(page, "A").click();
  await stepUntil(page, async () => /\bholder\s+nobody\b/i.test(await statusText(page)), "A's lease gone at the service");
  await cardButton(page, "B", "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "B")), "Client B holding");
  await stepUntil(page, async () => VERDICT.test(await statusText(page)), "the resource's verdict on A's write", 400);
}

describe("the verdict on A's late write, with fencing on and B never writing", { timeout: TEST_TIMEOUT_MS }, () => {
  test("the strip says the resource had not yet seen B's token; the announcement stops A", async (t) => {
    const page = await suite.page(t);
    await chooseBackend(page, "etcd");
    await setFencing(page, true);
    await setTtl(page, 5);

    await followTheArticleWithoutBWriting(page);
    const strip = await statusText(page);
    assert.match(
      strip,
      /Counter corrupted: A's write with token \d+ was accepted: the resource had not yet seen B's newer token\. Fencing can only refuse a token older than one it has seen\./,
      strip,
    );
    assert.ok(await statusStrip(page).getByText(/had not yet seen/).isVisible(), "the reason is shown, not only read out");

    await setFenceMode(page, "new holder fences on takeover");
    assert.doesNotMatch(await statusText(page), VERDICT, "a fresh run: no verdict yet");
    await page.evaluate(() => window.scrollTo(0, 0));
    await followTheArticleWithoutBWriting(page);
    const saved = await statusText(page);
    assert.match(
      saved,
      /Fencing stopped A's write with token (\d+): the resource had already seen token (\d+)\. B announced it as it took over, before writing anything\./,
      saved,
    );
    assert.doesNotMatch(saved, /Counter corrupted|increments? (?:was|were) lost/, saved);
  });

  test("on a phone the verdict's first sentence and its reason fit in a few lines", async (t) => {
    const page = await suite.page(t, "", { viewport: { width: 390, height: 844 } });
    await chooseBackend(page, "etcd");
    await setFencing(page, true);
    await setTtl(page, 5);
    await followTheArticleWithoutBWriting(page);
    const verdict = statusStrip(page).locator("p", { hasText: /Counter corrupted|increments? (?:was|were) lost/ });
    const box = await verdict.boundingBox();
    assert.ok(box, "the verdict is drawn");
    assert.ok(box.width <= 390, `no wider than the phone: ${box.width}`);
    // Head and reason at the phone's type size: about six lines at most.
    assert.ok(box.height <= 150, `at most about six lines tall: ${box.height} px`);
  });
});
