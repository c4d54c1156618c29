// Takes the README's screenshots of the release build in dist/, light and
// dark: the laptop (1280 x 800) and the phone (390 x 844) after the scenario
// to run first with fencing off, and the page embedded at 700 x 500 with
// the GC pause story's tour played to the same moment: all at the moment
// the counter is corrupted.
//
// Usage: node scripts/pictures/screenshots.mjs [--dist dist] [--out assets]

import { parseArgs } from "node:util";
import { join } from "node:path";

import { launchBrowser, startServer } from "../lib/browser.mjs";
import { clockButton, openPage, pauseClock, playScenarioToRunFirst, poll, statusText, tourNext } from "../../tests/e2e/ui.mjs";

const { values: args } = parseArgs({
  options: { dist: { type: "string", default: "dist" }, out: { type: "string", default: "assets" } },
});

const SHOTS = [
  { name: "laptop", viewport: { width: 1280, height: 800 }, path: "", act: corruptedRun },
  { name: "phone", viewport: { width: 390, height: 844 }, path: "", act: corruptedRun, scale: 2 },
  { name: "embed", viewport: { width: 700, height: 500 }, path: "?embed=1&preset=gc-pause", act: corruptedByTour },
];

/** The verdict in the status strip once the stale write has cost an increment. */
const LOST = /increments? (?:was|were) lost/;

/** The scenario to run first, fencing off, played to the lost increment. */
async function corruptedRun(page) {
  await playScenarioToRunFirst(page, { fencing: false });
  await poll(async () => LOST.test(await statusText(page)), { what: "the lost increment" });
  await pauseClock(page);
}

/** The story's tour, Next after Next, to the key moment of the lost increment. */
async function corruptedByTour(page) {
  for (let i = 0; i < 8 && !LOST.test(await statusText(page)); i += 1) {
    // Next, or a question before the moment, skipped as a visitor may.
    await tourNext(page.getByRole("group", { name: "Tour", exact: true }));
    await poll(async () => (await clockButton(page, "Start").count()) === 1, { what: "a key moment" });
  }
  await poll(async () => LOST.test(await statusText(page)), { what: "the lost increment" });
}

const server = await startServer(args.dist);
const browser = await launchBrowser();
try {
  for (const shot of SHOTS) {
    for (const scheme of ["light", "dark"]) {
      const context = await browser.newContext({
        viewport: shot.viewport,
        colorScheme: scheme,
        deviceScaleFactor: shot.scale ?? 1,
      });
      const page = await openPage(context, `${server.url}${shot.path}`);
      await shot.act(page);
      await page.evaluate(() => {
        document.activeElement?.blur();
        window.scrollTo(0, 0);
      });
      await page.mouse.move(0, 0);
      const file = join(args.out, `screenshot-${shot.name}-${scheme}.png`);
      await page.screenshot({ path: file });
      console.log(`wrote ${file}`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
