// Predict, then see, in headless Chromium against the release build, by
// accessible names and the keyboard alone: the scenario to run first's tour
// asks before B takes over and before A's late write lands; a wrong answer
// and a right one each get their verdict in the tour's live caption; the
// address's questions=off plays straight through, and the embed code
// carries it.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_questions.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { axeViolations, clockButton, named, openView, poll, tour, tourText } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();
const problems = suite.problems;

const live = (page) => tour(page).locator('[aria-live="polite"]');
const focused = (page) =>
  page.evaluate(() => {
    const e = document.activeElement;
    return { tag: e?.tagName, type: e?.type ?? "", text: (e?.labels?.[0] ?? e)?.textContent?.trim() ?? "" };
  });

/** Waits for the clock to stop on key moment `n`. */
async function atMoment(page, n) {
  return poll(
    async () => {
      const text = await tourText(page);
      const stopped = (await clockButton(page, "Start").count()) === 1;
      return stopped && new RegExp(`Key moment ${n} of \\d+, t=`).test(text) && text;
    },
    { what: `key moment ${n}` },
  );
}

/** Waits for the question before key moment `n`, named by `ask` (a string or a pattern). */
async function asked(page, n, ask) {
  const group = tour(page).getByRole("radiogroup", typeof ask === "string" ? named(ask) : { name: ask });
  await group.waitFor();
  assert.match(await tourText(page), new RegExp(`Key moment ${n} of \\d+: predict first`));
  return group;
}

describe("predict, then see", { timeout: TEST_TIMEOUT_MS }, () => {
  test("the first story's tour asks before the takeover and the late write, by keyboard, and says if each prediction held", async (t) => {
    const page = await suite.page(t, "", { reducedMotion: "reduce" });
    await page.getByRole("radio", named("etcd")).check();
    await page.getByRole("button", named("Set up the scenario to run first")).click();
    await atMoment(page, 1);
    await tour(page).getByRole("button", named("Next")).focus();
    await page.keyboard.press("Enter");
    await atMoment(page, 2);

    // Before B takes over: the question, the focus on its first answer.
    await page.keyboard.press("Enter");
    const takeover = await asked(page, 3, "When B gets the lock, what will A believe?");
    assert.equal(await takeover.getByRole("radio").count(), 2);
    assert.equal(await clockButton(page, "Start").count(), 1, "the clock waits for the answer");
    assert.deepEqual(await focused(page), { tag: "INPUT", type: "radio", text: "A still believes it holds it" });
    // The wrong answer: arrows move the choice, Enter sends it.
    await page.keyboard.press("ArrowDown");
    assert.ok(await takeover.getByRole("radio", named("A no longer believes it holds it")).isChecked());
    assert.equal(await tour(page).getByRole("button", named("See what happens")).count(), 1);
    await page.keyboard.press("Enter");
    const wrong = await atMoment(page, 3);
    assert.match(wrong, /Not this time: you said “A no longer believes it holds it”\./, wrong);
    assert.match(wrong, /Nothing tells A: the service hands the lock on by its own clock/, wrong);
    assert.match(await live(page).innerText(), /Not this time/);
    const back = await focused(page);
    assert.equal(back.text, "Next", "the focus is back on Next");

    // On to A's late write: the right answer this time.
    await page.keyboard.press("Enter");
    await atMoment(page, 4);
    await page.keyboard.press("Enter");
    await atMoment(page, 5);
    await page.keyboard.press("Enter");
    const write = await asked(page, 6, /^What will the resource do with A's write \(token \d+\)\?$/);
    assert.deepEqual(
      await write.getByRole("radio").evaluateAll((rs) => rs.map((r) => r.labels[0].textContent.trim())),
      ["It accepts the write", "It rejects the write", "The write never arrives"],
    );
    await page.keyboard.press("Space");
    assert.ok(await write.getByRole("radio", named("It accepts the write")).isChecked());
    await page.keyboard.press("Enter");
    const right = await atMoment(page, 6);
    // A prediction that held: the caption says what happened, once.
    assert.match(right, /Your prediction held\. A's write, clicked during its pause, arrives\. The resource accepts A's stale write/, right);
    assert.doesNotMatch(right, /Accepted: with fencing off/, right);
    assert.match(right, /stale write/, right);
    assert.match(await live(page).innerText(), /Your prediction held/);
  });

  test("questions=off in the address plays straight to each moment, and the embed code carries it", async (t) => {
    const page = await suite.page(t, "?preset=gc-pause&system=etcd&questions=off");
    if ((await clockButton(page, "Pause").count()) === 1) await clockButton(page, "Pause").click();
    for (let n = 1; n <= 3; n += 1) {
      await tour(page).getByRole("button", named("Next")).click();
      await atMoment(page, n);
      assert.equal(await tour(page).getByRole("radiogroup").count(), 0, `no question before moment ${n}`);
    }
    assert.doesNotMatch(await tourText(page), /predict first|prediction held|Not this time/);
    await openView(page, "Share and embed");
    await page.getByRole("button", named("Copy embed code")).click();
    const code = await page.getByRole("textbox", named("Embed code")).inputValue();
    const src = new URL(code.match(/\ssrc="([^"]*)"/)[1].replaceAll("&amp;", "&"));
    assert.equal(src.searchParams.get("questions"), "off", code);
    assert.equal(src.searchParams.get("embed"), "1", code);
  });

  for (const colorScheme of ["light", "dark"]) {
    test(`${colorScheme}: axe-core finds no violation with a question up, nor with its verdict`, async (t) => {
      const page = await suite.page(t, "?preset=gc-pause&system=etcd", { colorScheme });
      for (let n = 1; n <= 2; n += 1) {
        await tour(page).getByRole("button", named("Next")).click();
        await atMoment(page, n);
      }
      await tour(page).getByRole("button", named("Next")).click();
      const group = await asked(page, 3, "When B gets the lock, what will A believe?");
      assert.deepEqual(await axeViolations(page), []);
      await group.getByRole("radio", named("A no longer believes it holds it")).check();
      await tour(page).getByRole("button", named("See what happens")).click();
      await atMoment(page, 3);
      assert.deepEqual(await axeViolations(page), []);
    });
  }

  test("the suite saw no console error, warning or off-origin request", () => {
    assert.deepEqual(problems, [], problems.join("\n"));
  });
});
