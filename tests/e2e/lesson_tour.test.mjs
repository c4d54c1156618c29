// The lesson's way in, in headless Chromium against the release build, by
// accessible names: "Set up the scenario to run first" starts the first
// story's tour at its first key moment; Next walks it to the stale write and
// offers the fix; the tour closes with its button or Escape, docks without
// covering what it points at, and ends by itself; "Copy embed code" gives an
// iframe whose page shows the story's tour, and whose "Open the full page"
// keeps the run.
//
// Run: `trunk build --release --offline && node --test tests/e2e/lesson_tour.test.mjs`

import { describe, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { clockButton, named, openView, poll, started, stepUntil, stoppedOnNewMoment, tour, tourNext, tourText } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;

const suite = browserSuite();
const problems = suite.problems;

const setUp = (page) => page.getByRole("button", named("Set up the scenario to run first"));

/** Sets up the first scenario and waits for the tour's first caption. */
async function setUpFirst(page) {
  await setUp(page).click();
  return stoppedOnNewMoment(page, "");
}

/** Presses Next until it is disabled; returns the last caption. */
async function nextToTheEnd(page) {
  let text = await tourText(page);
  while (await tour(page).getByRole("button", named("Next")).isEnabled()) {
    await tourNext(tour(page));
    text = await stoppedOnNewMoment(page, text);
  }
  return text;
}

describe("the lesson's tour", { timeout: TEST_TIMEOUT_MS }, () => {
  test("set-up shows the tour's first caption, one count, on the system chosen", async (t) => {
    const page = await suite.page(t);
    await page.getByRole("radio", named("ZooKeeper")).check();
    await page.getByRole("checkbox", named("Fencing")).check();
    const first = await setUpFirst(page);
    assert.match(first, /Key moment 1 of \d+/, first);
    assert.match(first, /A holds the lock/, first);
    assert.match(first, /Look at client A/, first);
    assert.ok(await page.getByRole("radio", named("ZooKeeper")).isChecked(), "on the system chosen");
    assert.ok(!(await page.getByRole("checkbox", named("Fencing")).isChecked()), "fencing off");
    assert.equal(await page.getByRole("spinbutton", named("TTL (s)")).or(page.getByRole("textbox", named("TTL (s)"))).inputValue(), "5");
    // One count on the page: the key moments, not the script's steps.
    assert.doesNotMatch(await page.locator("body").innerText(), /\d+ of \d+ steps/);
  });

  test("Next walks to the stale write, the bar covers nothing it points at, and the last step turns fencing on", async (t) => {
    const page = await suite.page(t);
    await setUpFirst(page);
    let text = await tourText(page);
    let moments = 1;
    while (await tour(page).getByRole("button", named("Next")).isEnabled()) {
      await tourNext(tour(page));
      text = await stoppedOnNewMoment(page, text);
      moments += 1;
      // What the tour points at is above its bar once the page has scrolled.
      const spot = page.locator(".is-spotlit").first();
      await poll(
        async () => {
          const [bar, part] = [await tour(page).boundingBox(), await spot.boundingBox()];
          return bar && part && part.y + Math.min(part.height, 40) <= bar.y + 1;
        },
        { what: `key moment ${moments}'s part above the tour's bar` },
      );
    }
    assert.match(text, new RegExp(`Key moment ${moments} of ${moments}`), text);
    assert.match(text, /clicked during its pause/, text);
    assert.match(text, /stale write/, text);
    // The page's foot is padded by the bar: scrolled to the bottom, the
    // last of the page is above the bar.
    const covered = await page.evaluate(() => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      const bar = document.querySelector("[role=group][aria-label=Tour]").getBoundingClientRect();
      const main = document.querySelector("main").getBoundingClientRect();
      return main.bottom - bar.top;
    });
    assert.ok(covered <= 1, `the page's last part ends ${covered}px under the bar`);

    await tour(page).getByRole("button", named("Now turn fencing on")).click();
    const again = await stoppedOnNewMoment(page, text);
    assert.match(again, /Key moment 1 of \d+/, again);
    assert.ok(await page.getByRole("checkbox", named("Fencing")).isChecked(), "fencing on");
    const fixed = await nextToTheEnd(page);
    assert.match(fixed, /rejected/, fixed);
  });

  test("the tour closes with Escape and with its close button, and comes back", async (t) => {
    const page = await suite.page(t);
    await setUpFirst(page);
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("Escape");
    await tour(page).waitFor({ state: "detached" });
    await page.getByRole("button", named("Show the tour")).click();
    await tour(page).waitFor();
    assert.match(await tourText(page), /Key moment 1 of/);
    await tour(page).getByRole("button", named("Close tour")).click();
    await tour(page).waitFor({ state: "detached" });
    // The story plays on without its bar.
    await page.getByRole("button", named("Show the tour")).waitFor();
  });

  test("the tour ends by itself once the story has played out", async (t) => {
    const page = await suite.page(t);
    await setUpFirst(page);
    await nextToTheEnd(page);
    await stepUntil(page, async () => (await tour(page).count()) === 0, "the tour's bar gone");
    await page.getByText("The tour is over.").waitFor();
    await page.getByRole("button", named("Replay the tour")).click();
    const first = await stoppedOnNewMoment(page, "");
    assert.match(first, /Key moment 1 of/, first);
  });

  test("the spotlight scrolls only as far as needed, at once with reduced motion", async (t) => {
    const page = await suite.page(t, "", { reducedMotion: "reduce", viewport: { width: 1280, height: 800 } });
    const frames = (n) => page.evaluate((n) => new Promise((done) => {
      const tick = (left) => (left === 0 ? done() : requestAnimationFrame(() => tick(left - 1)));
      tick(n);
    }), n);
    await setUpFirst(page);
    await frames(2);
    const first = await page.evaluate(() => window.scrollY);
    await frames(10);
    assert.equal(await page.evaluate(() => window.scrollY), first, "no smooth scrolling: the page is already where it goes");
    // Card A is whole above the bar.
    const [bar, a] = [await tour(page).boundingBox(), await page.getByRole("region", named("Client A")).boundingBox()];
    assert.ok(a.y >= 0 && a.y + a.height <= bar.y + 1, `card A (${a.y}-${a.y + a.height}) above the bar (${bar.y})`);
    // The next key moment points at card A again: the page moves only by
    // as much as the bar grew with its longer caption, and not at all when
    // it did not grow.
    await tourNext(tour(page));
    const second = await stoppedOnNewMoment(page, await tourText(page));
    assert.match(second, /Key moment 2 of/, second);
    await frames(2);
    const [bar2, a2] = [await tour(page).boundingBox(), await page.getByRole("region", named("Client A")).boundingBox()];
    const moved = (await page.evaluate(() => window.scrollY)) - first;
    // What the page must make room for: the bar's growth, and the card's
    // (a frozen holder's card says more), measured in the page's own space.
    const grew = Math.max(0, bar2.height - bar.height) + Math.max(0, a2.y + a2.height + moved - (a.y + a.height));
    assert.ok(moved >= 0 && moved <= Math.ceil(grew) + 1, `scrolled ${moved}px for ${grew}px more to show`);
    assert.ok(a2.y >= 0 && a2.y + a2.height <= bar2.y + 1, `card A (${a2.y}-${a2.y + a2.height}) still above the bar (${bar2.y})`);
  });

  test("Copy embed code gives an iframe whose page shows the story's tour and opens the full page with the run", async (t) => {
    const page = await suite.page(t);
    await setUpFirst(page);
    await openView(page, "Share and embed");
    await page.getByRole("button", named("Copy embed code")).click();
    const code = await page.getByRole("textbox", named("Embed code")).inputValue();
    // Read here, not parsed in the page: its Content-Security-Policy
    // refuses the snippet's style attribute in any document it makes.
    assert.match(code, /^<iframe [^<>]*><\/iframe>$/, code);
    const attr = (name) => code.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1]?.replaceAll("&amp;", "&");
    // As wide as the host's column, 500 px high; no sandbox to block the tour.
    assert.equal(attr("style"), "width:100%;height:500px;border:0", code);
    assert.equal(attr("sandbox"), undefined, code);
    assert.match(attr("title"), /A GC pause outlives the lease, on .+, fencing (on|off)/);
    const src = new URL(attr("src"));
    assert.equal(src.searchParams.get("embed"), "1");
    assert.equal(src.searchParams.get("preset"), "gc-pause");

    // The snippet, pasted into a course page, loads a working embed.
    const framed = [];
    const context = await suite.context(t, { viewport: { width: 900, height: 700 } }, framed);
    const host = await context.newPage();
    await host.setContent(`<!doctype html><html lang="en"><head><title>Course notes</title></head><body>${code}</body></html>`);
    const sim = host.frameLocator("iframe");
    await sim.getByRole("region", named("Client A")).waitFor();
    // The frame's first screen, drawn at build time, is the default page:
    // the story's words are read once the page in it has started.
    await started(sim);
    await sim.getByText(/that Write leaves the instant A wakes/).first().waitFor();
    await sim.getByRole("button", named("Stories")).waitFor();
    const embedTour = sim.getByRole("group", named("Tour"));
    assert.match(await embedTour.innerText(), /Press Next/);
    await sim.getByRole("button", named("Pause")).or(sim.getByRole("button", named("Start"))).first().waitFor();
    if ((await sim.getByRole("button", named("Pause")).count()) === 1) await sim.getByRole("button", named("Pause")).click();
    await embedTour.getByRole("button", named("Next")).click();
    await poll(async () => /Key moment 1 of/.test(await embedTour.innerText()), { what: "the embed's first key moment" });
    await embedTour.getByRole("button", named("Next")).click();
    await poll(async () => /Key moment 2 of/.test(await embedTour.innerText()) && (await sim.getByRole("button", named("Start")).count()) === 1, {
      what: "the embed's second key moment",
    });

    // "Open the full page" keeps the run and its story.
    const [full] = await Promise.all([context.waitForEvent("page"), sim.getByRole("link", named("Open the full page")).click()]);
    await full.waitForLoadState();
    assert.match(full.url(), /#v1\./, full.url());
    await full.getByRole("region", named("Client A")).waitFor();
    await poll(async () => /paused/i.test(await full.getByRole("region", named("Client A")).innerText()), { what: "A frozen, as in the embed" });
    await full.getByRole("group", named("Tour")).waitFor();
    assert.match(await full.getByRole("group", named("Tour")).innerText(), /Key moment 2 of/);
    const unexpected = framed.filter((p) => !/off-origin request/.test(p));
    assert.deepEqual(unexpected, [], unexpected.join("\n"));
  });

  test("the suite saw no console error, warning or off-origin request", () => {
    assert.deepEqual(problems, [], problems.join("\n"));
  });
});
