// Screenshots for looking at a change by eye (not the README's): the page
// after an action, at a viewport and colour scheme.
//
// Usage: node scripts/pictures/look.mjs OUT.png [--width 1280] [--height 800]
//        [--dark] [--path "?x"] [--compare] [--backend NAME] [--full]
//        [--find PROPERTY-SLUG] [--open-trace] [--setup] [--menu]
//        [--story TITLE --next N] [--ask] [--answer J] [--code] [--wire]
//        [--arrow TEXT]
//
// --before-start never lets the page's wasm arrive: the first screen as a
// release build draws it at build time (examples/prerender.rs), to hold
// beside the started page's (the two should look the same).
// --next N walks N key moments, skipping any question on the way; --ask
// then presses Next once more and leaves its question up; --answer J also
// picks answer J (from 0) and plays to the moment, showing the verdict.
// --code opens the Code view.
// --wire shows the network messages in the event log and opens the oldest
// one's wire text (after --setup or --story, so there are messages).
// --arrow TEXT focuses the first timeline arrow whose sentence has TEXT
// and waits for its wire text under the caption.

import { parseArgs } from "node:util";
import { launchBrowser, startServer } from "../lib/browser.mjs";
import { openPage, openView, poll, setMaxSpeed, tourNext } from "../../tests/e2e/ui.mjs";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dist: { type: "string", default: "dist" },
    width: { type: "string", default: "1280" },
    height: { type: "string", default: "800" },
    dark: { type: "boolean", default: false },
    path: { type: "string", default: "" },
    compare: { type: "boolean", default: false },
    cell: { type: "string" },
    backend: { type: "string" },
    full: { type: "boolean", default: false },
    story: { type: "string" },
    next: { type: "string", default: "0" },
    ask: { type: "boolean", default: false },
    answer: { type: "string" },
    // The first scenario's story, its tour at the first key moment.
    setup: { type: "boolean", default: false },
    // The stories menu, opened.
    menu: { type: "boolean", default: false },
    scroll: { type: "string" },
    // With --path "?explore&...": wait for the explorer's run to finish.
    explore: { type: "boolean", default: false },
    find: { type: "string" },
    "open-trace": { type: "boolean", default: false },
    // The Code view, opened (after the rest), its listing drawn.
    code: { type: "boolean", default: false },
    wire: { type: "boolean", default: false },
    arrow: { type: "string" },
    "before-start": { type: "boolean", default: false },
  },
});

const server = await startServer(args.dist);
const browser = await launchBrowser();
try {
  const context = await browser.newContext({
    viewport: { width: Number(args.width), height: Number(args.height) },
    colorScheme: args.dark ? "dark" : "light",
  });
  if (args["before-start"]) await context.route(/distlock-[0-9a-f]+_bg\.wasm$/, (route) => route.abort());
  const page = args["before-start"]
    ? await context.newPage().then(async (p) => (await p.goto(`${server.url}${args.path}`), p))
    : await openPage(context, `${server.url}${args.path}`);
  if (args.backend) {
    await page.getByRole("radio", { name: args.backend, exact: true }).check();
  }
  if (args.setup) {
    await page.getByRole("button", { name: "Set up the scenario to run first", exact: true }).click();
    const tour = page.getByRole("group", { name: "Tour", exact: true });
    await poll(async () => /Key moment 1 of/.test(await tour.innerText()) && (await page.getByRole("button", { name: "Start", exact: true }).count()) === 1, { what: "the first key moment" });
  }
  if (args.menu) {
    await page.getByRole("button", { name: "Stories", exact: true }).click();
  }
  if (args.story) {
    await setMaxSpeed(page);
    await page.getByRole("button", { name: "Stories", exact: true }).click();
    await page.getByRole("button", { name: args.story, exact: true }).click();
  }
  const tour = page.getByRole("group", { name: "Tour", exact: true });
  const stopped = async () => (await page.getByRole("button", { name: "Start", exact: true }).count()) === 1;
  for (let i = 0; i < Number(args.next); i += 1) {
    await tourNext(tour);
    await poll(stopped, { what: "a key moment" });
  }
  if (args.ask || args.answer !== undefined) {
    await tour.getByRole("button", { name: "Next", exact: true }).click();
    const group = tour.getByRole("radiogroup");
    await group.waitFor();
    if (args.answer !== undefined) {
      await group.getByRole("radio").nth(Number(args.answer)).check();
      await tour.getByRole("button", { name: "See what happens", exact: true }).click();
      await poll(async () => (await stopped()) && (await group.count()) === 0, { what: "the moment after the answer" });
    }
  }
  if (args.wire) {
    await page.getByRole("checkbox", { name: "Show network messages", exact: true }).check();
    const log = page.getByRole("list", { name: "Event log", exact: true });
    const line = log.getByRole("listitem").filter({ has: page.getByText("wire", { exact: true }) }).last();
    await line.getByText("wire", { exact: true }).click();
    await poll(async () => (await line.locator("pre").count()) > 0, { what: "the wire text" });
    await line.scrollIntoViewIfNeeded();
  }
  if (args.arrow) {
    const arrow = page.locator("svg.timeline__svg g.tl-msg").filter({ hasText: args.arrow }).first();
    await arrow.focus();
    await poll(async () => (await page.locator(".timeline__wire pre").count()) > 0, { what: "the arrow's wire text" });
    await page.locator(".timeline__caption").scrollIntoViewIfNeeded();
  }
  if (args.find) {
    await openView(page, "Properties and finder");
    const finder = page.getByRole("group", { name: "Find the shortest failure", exact: true });
    await finder.getByRole("button", { name: "Set the question first", exact: true }).click();
    const failure = finder.getByRole("combobox", { name: "Failure to find", exact: true });
    await failure.waitFor({ timeout: 120_000 });
    await failure.selectOption(args.find);
    await finder.getByRole("button", { name: "Find the shortest failure", exact: true }).click();
    await poll(async () => (await finder.locator(".finder__result").count()) > 0, { what: "the search's result", timeout: 120_000 });
    if (args["open-trace"]) await finder.getByRole("button", { name: "Open this run", exact: true }).click();
  }
  if (args.scroll && !args.explore && !args.code) {
    await page.locator(args.scroll).first().scrollIntoViewIfNeeded();
  }
  if (args.explore) {
    const bar = page.getByRole("progressbar", { name: "Cells done" });
    await poll(async () => (await bar.count()) === 1 && (await bar.getAttribute("aria-valuenow")) === (await bar.getAttribute("aria-valuemax")), { what: "the explorer's run", timeout: 120_000 });
    await page.locator(args.scroll ?? ".explorer__progress").first().scrollIntoViewIfNeeded();
  }
  if (args.compare || args.cell) {
    await openView(page, "Compare the systems");
    await page.getByRole("button", { name: /Run the comparison/ }).click();
    await poll(async () => (await page.locator(".compare__table").count()) > 0, { what: "the table" });
    if (args.cell) {
      await page.getByRole("button", { name: new RegExp(args.cell) }).first().click();
    } else {
      await page.locator(".compare").scrollIntoViewIfNeeded();
    }
  }
  if (args.code) {
    await page.getByRole("button", { name: "Show the code", exact: true }).click();
    const listing = page.getByRole("region", { name: "Code", exact: true }).locator("pre");
    await poll(async () => (await listing.count()) > 0, { what: "the Code view's listing" });
    if (args.scroll) await page.locator(args.scroll).first().scrollIntoViewIfNeeded();
  }
  await page.waitForTimeout(300);
  await page.screenshot({ path: positionals[0], fullPage: args.full });
  console.log(`wrote ${positionals[0]}`);
} finally {
  await browser.close();
  await server.close();
}
