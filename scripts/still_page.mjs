// Budget 3's page served still: its markup as it stands at 8x with four
// active clients, with no wasm, and a few lines of script that move each
// frame what the page moves each frame. What the browser spends drawing
// those changes is a lower bound for the page's frames, which no framework
// or simulation could take away (budget 3b in scripts/budgets.mjs).
//
// Run directly, it prints that cost with fewer parts moved, as they would
// be if they moved otherwise (by the compositor, or less often):
//
//   node scripts/still_page.mjs [--dist dist] [--rounds 2]

import { copyFile, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { launchBrowser } from "../tests/e2e/browser.mjs";
import { startServer } from "../tests/e2e/serve.mjs";
import { openPage, runFourClients } from "../tests/e2e/ui.mjs";
import { FRAME_CATEGORIES, mainThreadPerFrame, median, quantile } from "./trace_frames.mjs";

/**
 * What changes in each frame at 8x, as script over the still markup (`n`
 * counts frames): the status strip's clock, each lease bar's words and its
 * fill, and the timeline's clip and playhead. `wordsBySecond` is the lease
 * words changing once a second of the clock instead of every tenth.
 */
export const MOVES = {
  clock: `if (clock) clock.textContent = "t=" + (n * 0.1333).toFixed(1) + " s";`,
  words: `words.forEach((w, i) => { w.textContent = ((50 - ((n + 17 * i) % 50)) / 10).toFixed(1) + " s left"; });`,
  wordsBySecond: `if (n % 8 === 0) words.forEach((w, i) => { w.textContent = (5 - ((n / 8 + i) % 5)) + " s left"; });`,
  bars: `bars.forEach((b, i) => b.setAttribute("width", String((n + 17 * i) % 100)));`,
  timeline: `const x = 100 + (n % 1000);
  if (clip) clip.setAttribute("width", String(x));
  if (playhead) {
    playhead.setAttribute("transform", "translate(" + x + " 0)");
    playhead.setAttribute("aria-valuenow", String(n * 133));
  }`,
};

/** Every part the page moves each frame at 8x. */
export const AS_THE_PAGE_MOVES = ["clock", "words", "bars", "timeline"];

/** The mover's script for `parts` (keys of MOVES). */
function mover(parts) {
  return `const clock = document.querySelector(".status .tick__text");
const bars = [...document.querySelectorAll(".lease-bar__fill")];
const words = [...document.querySelectorAll(".lease-bar__words .tick__text")];
const clip = document.querySelector("#tl-until rect");
const playhead = document.querySelector(".tl-playhead");
let n = 0;
const frame = () => {
  n += 1;
  ${parts.map((part) => MOVES[part]).join("\n  ")}
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
`;
}

/**
 * The page in `page` as it stands: its markup, and where the mouse rests
 * (on the clock's button, which the last click of budget 3 pressed).
 */
export async function stillOf(page) {
  const box = await page.getByRole("button", { name: "Pause", exact: true }).boundingBox();
  const markup = await page.evaluate(() => `<!doctype html>${document.documentElement.outerHTML}`);
  return { markup, mouse: box && { x: box.x + box.width / 2, y: box.y + box.height / 2 } };
}

/**
 * Serves `still` (from `stillOf`) with no wasm and `parts` moved each frame,
 * and traces `windowMs` of it: main-thread time per frame, wall and CPU,
 * each sorted.
 */
export async function stillFrames(browser, dist, still, parts, windowMs) {
  const dir = await mkdtemp(join(tmpdir(), "distlock-still-"));
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  let server;
  try {
    for (const name of await readdir(dist)) {
      if (name.endsWith(".css")) await copyFile(join(dist, name), join(dir, name));
    }
    // Without the wasm and its start-up script; the mover is a file of its
    // own, as the page's policy allows no inline script.
    const markup = still.markup
      .replace(/<script[^>]*\bsrc="[^"]*"[^>]*><\/script>/g, "")
      .replace(/<link[^>]*\brel="(?:modulepreload|preload)"[^>]*>/g, "")
      .replace("</body>", '<script src="/still-mover.js"></script></body>');
    await writeFile(join(dir, "index.html"), markup);
    await writeFile(join(dir, "still-mover.js"), mover(parts));
    server = await startServer(dir);
    const page = await context.newPage();
    await page.goto(server.url);
    if (still.mouse) await page.mouse.move(still.mouse.x, still.mouse.y);
    await page.waitForTimeout(500);
    await browser.startTracing(page, { categories: FRAME_CATEGORIES });
    await page.waitForTimeout(windowMs);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    const events = trace.traceEvents ?? trace;
    const sorted = (values) => values.sort((a, b) => a - b);
    return { wall: sorted(mainThreadPerFrame(events)), cpu: sorted(mainThreadPerFrame(events, { cpu: true })) };
  } finally {
    await context.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const OPTIONS = [
  ["as the page moves them", AS_THE_PAGE_MOVES],
  ["bars and timeline left still", ["clock", "words"]],
  ["that, and words by the second", ["clock", "wordsBySecond"]],
  ["the clock alone", ["clock"]],
  ["words by the second, the rest moving", ["clock", "wordsBySecond", "bars", "timeline"]],
];

async function main() {
  const { values: args } = parseArgs({
    options: { dist: { type: "string", default: "dist" }, rounds: { type: "string", default: "2" } },
  });
  const browser = await launchBrowser();
  const server = await startServer(args.dist);
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await openPage(context, server.url);
    await runFourClients(page);
    await page.waitForTimeout(1500);
    const still = await stillOf(page);
    await context.close();
    const ms = (value) => `${value.toFixed(2)} ms`;
    console.log("budget 3's page, still, with these parts moved each frame: main-thread time per frame, median / p95");
    for (let round = 1; round <= Number(args.rounds); round += 1) {
      for (const [label, parts] of OPTIONS) {
        const { wall, cpu } = await stillFrames(browser, args.dist, still, parts, 5_000);
        console.log(
          `  ${label.padEnd(38)} wall ${ms(median(wall))} / ${ms(quantile(wall, 0.95))}   CPU ${ms(median(cpu))} / ${ms(quantile(cpu, 0.95))}`,
        );
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
