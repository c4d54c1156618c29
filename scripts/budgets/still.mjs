// Budget 3's page served still: its markup as it stands at 8x with four
// active clients, with no wasm, and a few lines of script that move each
// frame what the page moves each frame. What the browser spends drawing
// those changes is a lower bound for the page's frames, which no framework
// or simulation could take away (budget 3b in scripts/budgets/budgets.mjs). What
// it cost with fewer parts moved is in docs/budgets.md ("What the one-off
// profiles found").

import { copyFile, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { startServer } from "../lib/browser.mjs";
import { FRAME_CATEGORIES, mainThreadCpuPerSecond, mainThreadPerFrame } from "./trace_frames.mjs";
import { intervalsAt } from "./throttled.mjs";

/**
 * What changes in each frame at 8x, as script over the still markup (`n`
 * counts frames): the status strip's clock, each lease bar's words and its
 * fill, and the timeline's clip and playhead.
 */
export const MOVES = {
  clock: `if (clock) clock.textContent = "t=" + (n * 0.1333).toFixed(1) + " s";`,
  words: `words.forEach((w, i) => { w.textContent = ((50 - ((n + 17 * i) % 50)) / 10).toFixed(1) + " s left"; });`,
  bars: `bars.forEach((b, i) => b.setAttribute("width", String((n + 17 * i) % 100)));`,
  timeline: `const x = 100 + (n % 1000);
  // The clip starts far left of the picture (its x), and ends at x; or
  // the box that holds the open spans ends at x.
  if (clip) clip.setAttribute("width", String(x - Number(clip.getAttribute("x") ?? 0)));
  if (playhead) {
    // The mark: the playhead itself where it is a group in the picture, or
    // the group inside its own <svg> over the picture.
    const mark = playhead.tagName === "svg" ? playhead.querySelector(":scope > g") : playhead;
    mark.setAttribute("transform", "translate(" + x + " 0)");
    playhead.setAttribute("aria-valuenow", String(n * 133));
  }`,
};

/** Every part the page moves each frame at 8x. */
export const AS_THE_PAGE_MOVES = ["clock", "words", "bars", "timeline"];

/**
 * The same parts moved in every sixth frame only (ten times a second), none
 * in between: what the page would paint with its moving parts drawn at a
 * readable rate and nothing painted between (budget 3c's second floor).
 */
MOVES.tenTimesASecond = `if (n % 6 === 0) {
  ${AS_THE_PAGE_MOVES.map((part) => MOVES[part]).join("\n  ")}
}`;

/** The mover's script for `parts` (keys of MOVES). */
function mover(parts) {
  return `const clock = document.querySelector(".status .tick__text");
const bars = [...document.querySelectorAll(".lease-bar__fill")];
const words = [...document.querySelectorAll(".lease-bar__words .tick__text")];
const clip = document.querySelector("#tl-until rect, .tl-open__size");
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
 * each sorted, and the CPU ms a second (`cpuPerS`). With `rate` over 1 the CPU is slowed that many times
 * (budget 3c's slow phone) and the animation frames' intervals over a
 * first window as long, with no trace running, come back too (`intervals`,
 * sorted).
 */
export async function stillFrames(browser, dist, still, parts, windowMs, rate = 1) {
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
    const intervals = rate > 1 ? (await intervalsAt(context, page, rate, windowMs)).intervals : undefined;
    // The sampler's frames are no part of the copy.
    await page.evaluate(() => {
      window.__stopFrames = true;
    });
    await page.waitForTimeout(500);
    await browser.startTracing(page, { categories: FRAME_CATEGORIES });
    await page.waitForTimeout(windowMs);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    const events = trace.traceEvents ?? trace;
    const sorted = (values) => values.sort((a, b) => a - b);
    return {
      wall: sorted(mainThreadPerFrame(events)),
      cpu: sorted(mainThreadPerFrame(events, { cpu: true })),
      cpuPerS: mainThreadCpuPerSecond(events, windowMs),
      intervals: intervals && sorted(intervals),
    };
  } finally {
    await context.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
