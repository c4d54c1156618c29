// Stories, tours, "try this" and the keyboard, in headless Chromium against
// the release build, clicking and typing as a visitor would.
//
// Run: `trunk build --release --offline && node --test tests/e2e/`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { card, cardText, named, poll, rejectedCount, statusText, tour, tourNext, tourText, waitForCardState } from "./ui.mjs";

const TEST_TIMEOUT_MS = 90_000;

const suite = browserSuite();
const problems = suite.problems;
const freshPage = (t) => suite.page(t);


/** Presses Next and waits for the clock to stop on the next key moment. */
async function next(page) {
  const before = await tourText(page);
  await tourNext(tour(page));
  return poll(
    async () => {
      const now = await tourText(page);
      const stopped = (await page.getByRole("button", named("Start")).count()) === 1;
      return stopped && now !== before && now;
    },
    { what: "the tour to stop on its next key moment" },
  );
}

/** Plays the whole tour; returns the last caption. */
async function playTour(page) {
  let text = await tourText(page);
  while (await tour(page).getByRole("button", named("Next")).isEnabled()) text = await next(page);
  return text;
}

describe("stories", { timeout: TEST_TIMEOUT_MS }, () => {
  test("one click loads a story on a backend it suits, and its tour walks to the stale write", async (t) => {
    const page = await freshPage(t);
    // The stories are a menu: one button until opened, closed after a pick.
    const menu = page.getByRole("button", named("Stories"));
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    await menu.click();
    await page.getByRole("button", named("Unique is not monotonic")).click();
    assert.equal(await menu.getAttribute("aria-expanded"), "false", "a pick closes the menu");
    assert.ok(await menu.evaluate((e) => e === document.activeElement), "and puts the focus back on its button");
    assert.ok(await page.getByRole("radio", named("Redlock")).isChecked(), "switched to Redlock");
    assert.ok(await page.getByRole("checkbox", named("Fencing")).isChecked(), "the story turns fencing on");
    assert.match(await tourText(page), /Press Next/);

    const first = await next(page);
    assert.match(first, /Key moment 1 of \d+/);
    assert.match(first, /A holds the lock/);
    assert.match(first, /Look at client A/);
    assert.ok(await card(page, "A").evaluate((e) => e.classList.contains("is-spotlit")), "card A is pointed at");
    assert.equal(await page.locator(".timeline .tl-key-moment").count(), 1, "the timeline marks the key moment");

    const last = await playTour(page);
    assert.match(last, /stale write/, last);
    await poll(async () => (await page.getByText(/Two holders, one (?:corrupted counter|increment lost)/).count()) > 0, {
      what: "the corruption banner",
    });

    // Back replays to the moment before.
    const total = Number(last.match(/of (\d+)/)[1]);
    await tour(page).getByRole("button", named("Back")).click();
    await poll(async () => (await tourText(page)).includes(`Key moment ${total - 1} of ${total}`), {
      what: "the previous key moment",
    });

    // Try this, offered once the break is on screen again: fsync keeps
    // node 1's counter, so A's old token is refused.
    await next(page);
    await page.getByRole("button", named("Turn on fsync")).click();
    assert.match(await tourText(page), /Press Next/, "the story starts again");
    const fixed = await playTour(page);
    assert.match(fixed, /rejected/, fixed);
    assert.equal(await rejectedCount(page), 1);
    await page.getByRole("button", named("Undo the change")).click();
    await playTour(page);
    await page.getByRole("button", named("Turn on fsync")).waitFor();
  });

  test("the stories menu opens from the keyboard and closes with Escape", async (t) => {
    const page = await freshPage(t);
    const menu = page.getByRole("button", named("Stories"));
    await menu.focus();
    await page.keyboard.press("Enter");
    const list = page.getByRole("navigation", named("Stories by backend"));
    await list.waitFor();
    await page.keyboard.press("Tab");
    assert.ok(await list.evaluate((e) => e.contains(document.activeElement)), "Tab goes into the list");
    await page.keyboard.press("Escape");
    await list.waitFor({ state: "hidden" });
    assert.ok(await menu.evaluate((e) => e === document.activeElement), "focus back on the menu's button");
  });

  test("keys act on the selected client, and never while typing", async (t) => {
    const page = await freshPage(t);
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("2");
    await poll(async () => /\bkeys\b/i.test(await cardText(page, "B")), { what: "B selected" });
    await page.keyboard.press("a");
    await page.keyboard.press(" ");
    await waitForCardState(page, "B", "holding");
    await page.keyboard.press(" ");
    await poll(async () => (await statusText(page)).includes("stopped"), { what: "the clock to stop" });

    await page.keyboard.press("p");
    await waitForCardState(page, "B", "partitioned");
    await page.keyboard.press("p");
    await poll(async () => !(await cardText(page, "B")).includes("partitioned"), { what: "B healed" });

    // Letters typed into a field stay in the field.
    const seed = page.getByRole("textbox", named("Seed"));
    await seed.fill("");
    await seed.type("a");
    assert.equal(await seed.inputValue(), "a");
    assert.ok(!(await cardText(page, "A")).includes("acquiring"), "a typed in a field does not acquire");

    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("?");
    const help = page.getByRole("region", named("Keyboard shortcuts"));
    await help.waitFor();
    assert.match(await help.innerText(), /select client A to D/);
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
  });

  test("the suite saw no console error, warning or off-origin request", () => {
    assert.deepEqual(problems, [], problems.join("\n"));
  });
});
