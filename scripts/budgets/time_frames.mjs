// Frames in which only time moved (issue 52): budget 3's page (four
// clients asking for the lock, the clock at 8x) in headless Chromium,
// builds compared in interleaved runs, each in a fresh browser context.
// Four figures per build and run:
//
//   - which frames ran the page's render or wrote the page's markup, over
//     FRAMES_WINDOW_MS at full speed, from one trace: frames are the
//     intervals between the main thread's BeginMainThreadFrame events; a
//     render leaves a `console.timeStamp("render")` (ui::browser::
//     mark_render; a build from before it has none, and is judged by its
//     writes alone); a MutationObserver over the whole document leaves
//     "wrote" for every batch of changes to the markup, and "event" when
//     a line joins the event log (the run recorded something: the log
//     shows the network messages too, in this pass only). A build whose
//     render marks "recorded" beside "render" when it draws for an event
//     (ui::browser::mark_render; its log waits for time's words) is judged
//     by those marks instead. A frame that rendered or wrote with no event
//     is one where only time moved;
//     the page draws time's words (the clock, the countdowns) a few times a
//     second, and those frames are counted apart, per second;
//   - at 4x CPU throttling, the share of animation frames dropped
//     (intervals over 25 ms) and main-thread CPU per frame, as budget 3c
//     (throttled.mjs), and the main thread's CPU per second of the running
//     story (all of it over the trace's window, frames or none: the page's
//     clock asks for no frame between the moments it draws, while the rAF
//     sampler that counts dropped frames asks for one every refresh, so
//     the sampler is stopped before that trace);
//   - at 4x CPU throttling, from a second trace of the same page, the
//     main thread's CPU in the frames that rendered (something happened,
//     or time's words were drawn) and in those that neither rendered nor
//     wrote;
//   - the same page's still copy with its moving parts moved ten times a
//     second, at 4x (still.mjs): the floor the dropped frames and the CPU
//     per second are read against.
//
//   node scripts/budgets/time_frames.mjs --dist dist-before --dist dist [--runs 3] [--rate 4]
//
// With `--big-run FILE` (a link from `cargo run --release --example
// big_run`), it measures budget 4 instead: the long run opened from the
// link, its clock started at 8x with the whole run in view, main-thread
// time per frame over FRAMES_WINDOW_MS (wall, p95 and median, and CPU),
// each build in turn. With `--replay` as well, the playhead is first moved
// to t=0, so the clock replays the recorded run (the future veiled)
// instead of running on past its end.
//
// It prints figures; it judges nothing (docs/budgets.md says what they were).

import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

import { launchBrowser, startServer } from "../lib/browser.mjs";
import { FRAME_CATEGORIES, mainThreadPerFrame, median, quantile } from "./trace_frames.mjs";
import { DROPPED_OVER_MS, THROTTLED_WINDOW_MS, droppedShare, throttledFrames } from "./throttled.mjs";
import { stillFrames, stillOf } from "./still.mjs";
import { openPage, runFourClients, setMaxSpeed, startClock } from "../../tests/e2e/ui.mjs";

const FRAMES_WINDOW_MS = 5_000;

/** Runs in the page: marks every write to the markup in the trace. */
function watchWrites() {
  const observer = new MutationObserver((records) => {
    console.timeStamp("wrote");
    const logged = records.some(
      (r) => r.type === "childList" && [...r.addedNodes].some((n) => n.classList?.contains("log__line")),
    );
    if (logged) console.timeStamp("event");
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

/** A TimeStamp trace event's label, as Chromium versions write it. */
const stampOf = (e) => e.args?.data?.message ?? e.args?.data?.name ?? e.args?.message;

/**
 * Each frame of a trace's busiest renderer main thread: `{ render, wrote,
 * event, recorded }`, whether it held a TimeStamp of that label.
 */
export function stampedFrames(events) {
  const mainThreads = events
    .filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain")
    .map((e) => `${e.pid}/${e.tid}`);
  let best = { frames: [] };
  for (const key of mainThreads) {
    const frames = events
      .filter((e) => e.name === "BeginMainThreadFrame" && `${e.pid}/${e.tid}` === key)
      .map((e) => e.ts)
      .sort((a, b) => a - b);
    if (frames.length > best.frames.length) best = { key, frames };
  }
  const { key, frames } = best;
  const out = frames.slice(0, -1).map(() => ({ render: false, wrote: false, event: false, recorded: false }));
  const stamps = events
    .filter((e) => e.name === "TimeStamp" && `${e.pid}/${e.tid}` === key)
    .map((e) => [e.ts, stampOf(e)])
    .sort((a, b) => a[0] - b[0]);
  let f = 0;
  for (const [ts, label] of stamps) {
    if (ts < frames[0]) continue;
    while (f < frames.length - 1 && ts >= frames[f + 1]) f += 1;
    if (f >= out.length) break;
    if (label in out[f]) out[f][label] = true;
  }
  return { frames: out, seconds: frames.length > 1 ? (frames[frames.length - 1] - frames[0]) / 1e6 : 0 };
}

/** Budget 3's page from `dist`: which of its frames rendered or wrote. */
async function countFrames(browser, dist, keepStill, rate) {
  const server = await startServer(dist);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await openPage(context, server.url);
    // Every record of the run a line of the log, its messages too, so a
    // frame that recorded anything is seen as one.
    await page.getByLabel("Show network messages").check();
    await runFourClients(page);
    await page.evaluate(watchWrites);
    await page.waitForTimeout(500);
    await browser.startTracing(page, { categories: FRAME_CATEGORIES });
    await page.waitForTimeout(FRAMES_WINDOW_MS);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    const { frames, seconds } = stampedFrames(trace.traceEvents ?? trace);
    const count = (pick) => frames.filter(pick).length;
    // A frame drawn for an event: as the page marks it, if it does, else a
    // line logged in it.
    const marksEvents = frames.some((f) => f.recorded);
    const isEvent = (f) => (marksEvents ? f.recorded : f.event);
    // Budget 3's page as it is, the messages not in the log, at `rate`
    // times slower CPU: the main thread's CPU in the frames that rendered
    // (something happened, or time's words were drawn) and in those that
    // did not.
    await page.getByLabel("Show network messages").uncheck();
    await page.waitForTimeout(300);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate });
    await page.waitForTimeout(1_000);
    await browser.startTracing(page, { categories: FRAME_CATEGORIES });
    await page.waitForTimeout(FRAMES_WINDOW_MS);
    const slowTrace = JSON.parse((await browser.stopTracing()).toString());
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    const slowEvents = slowTrace.traceEvents ?? slowTrace;
    const slowFrames = stampedFrames(slowEvents).frames;
    const slowCpu = mainThreadPerFrame(slowEvents, { cpu: true });
    const sortedCpu = (pick) =>
      slowCpu.filter((_, i) => slowFrames[i] && pick(slowFrames[i])).sort((a, b) => a - b);
    // The still copy as budget 3 draws it.
    let still;
    if (keepStill) still = await stillOf(page);
    return {
      frames: frames.length,
      seconds,
      rendered: count((f) => f.render),
      wrote: count((f) => f.wrote),
      events: count(isEvent),
      timeAlone: count((f) => (f.render || f.wrote) && !isEvent(f)),
      marks: frames.some((f) => f.render),
      renderedCpu: sortedCpu((f) => f.render),
      quietCpu: sortedCpu((f) => !f.render && !f.wrote),
      still,
    };
  } finally {
    await context.close();
    await server.close();
  }
}

const pct = (share) => `${(100 * share).toFixed(1)}%`;
const ms = (value) => `${value.toFixed(1)} ms`;
const perS = (n, seconds) => (seconds > 0 ? (n / seconds).toFixed(1) : "?");

function describe(c, t) {
  return (
    `${c.frames} frames in ${c.seconds.toFixed(1)} s: ${c.marks ? `${c.rendered} rendered` : "no render marks"}, ` +
    `${c.wrote} wrote, ${c.events} drawn for an event; time alone and drawn: ${c.timeAlone} (${perS(c.timeAlone, c.seconds)} a second) | ` +
    `${t.rate}x: dropped ${pct(t.dropped)}, CPU per frame median ${ms(median(t.cpu))}, p95 ${ms(quantile(t.cpu, 0.95))}, ` +
    `CPU ${ms(t.cpuPerS)} a second, the story ${t.storyPerS.toFixed(2)} s a second (${ms(t.cpuPerS / t.storyPerS)} per second of the story); ` +
    `frames that rendered (${c.renderedCpu.length}) median ${ms(median(c.renderedCpu))}, p95 ${ms(quantile(c.renderedCpu, 0.95))}, ` +
    `frames that did not (${c.quietCpu.length}) median ${ms(median(c.quietCpu))}`
  );
}

async function compare({ dists, rate, runs }) {
  const browser = await launchBrowser();
  const results = dists.map(() => []);
  const floors = [];
  let still;
  try {
    for (let run = 0; run < runs; run += 1) {
      for (const [i, dist] of dists.entries()) {
        const counted = await countFrames(browser, dist, !still, rate);
        still ??= counted.still;
        const throttled = { rate, ...(await throttledFrames(browser, dist, rate)) };
        results[i].push({ counted, throttled });
        console.log(`run ${run + 1} ${dist.padEnd(20)} ${describe(counted, throttled)}`);
      }
      if (still) {
        const { intervals, cpu, cpuPerS } = await stillFrames(browser, dists[0], still, ["tenTimesASecond"], THROTTLED_WINDOW_MS, rate);
        floors.push({ dropped: droppedShare(intervals), cpu, cpuPerS });
        console.log(
          `run ${run + 1} ${"still copy, 10/s".padEnd(20)} ${rate}x: dropped ${pct(droppedShare(intervals))}, ` +
            `CPU per frame median ${ms(median(cpu))}, CPU ${ms(cpuPerS)} a second`,
        );
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`\nmedians of ${runs} runs (frames counted at full speed; dropped: intervals over ${DROPPED_OVER_MS} ms at ${rate}x CPU):`);
  const rows = dists.map((dist, i) => {
    const of = (pick) => median(results[i].map(pick));
    const row = {
      timeAlonePerS: of((r) => r.counted.timeAlone / Math.max(r.counted.seconds, 1e-9)),
      timeAloneShare: of((r) => r.counted.timeAlone / Math.max(1, r.counted.frames - r.counted.events)),
      dropped: of((r) => r.throttled.dropped),
      cpu: of((r) => median(r.throttled.cpu)),
      cpuPerS: of((r) => r.throttled.cpuPerS),
      storyPerS: of((r) => r.throttled.storyPerS),
      cpuPerStoryS: of((r) => r.throttled.cpuPerS / r.throttled.storyPerS),
      renderedCpu: of((r) => median(r.counted.renderedCpu)),
      renderedP95: of((r) => quantile(r.counted.renderedCpu, 0.95)),
    };
    console.log(
      `${dist.padEnd(20)} frames where only time moved, drawn: ${row.timeAlonePerS.toFixed(1)} a second (${pct(row.timeAloneShare)} of them); ` +
        `${rate}x: dropped ${pct(row.dropped)}, CPU per frame median ${ms(row.cpu)}, CPU ${ms(row.cpuPerS)} a second, ` +
        `the story ${row.storyPerS.toFixed(2)} s a second (${ms(row.cpuPerStoryS)} per second of the story); ` +
        `a frame that rendered median ${ms(row.renderedCpu)}, p95 ${ms(row.renderedP95)}`,
    );
    return row;
  });
  if (floors.length) {
    console.log(
      `${"still copy, 10/s".padEnd(20)} ${rate}x: dropped ${pct(median(floors.map((f) => f.dropped)))}, ` +
        `CPU per frame median ${ms(median(floors.map((f) => median(f.cpu))))}, CPU ${ms(median(floors.map((f) => f.cpuPerS)))} a second`,
    );
  }
  if (rows.length > 1) {
    const [first, last] = [rows[0], rows[rows.length - 1]];
    console.log(
      `${dists[dists.length - 1]} against ${dists[0]}: CPU per frame ${(last.cpu / first.cpu).toFixed(2)}x, ` +
        `CPU a second ${ms(first.cpuPerS)} -> ${ms(last.cpuPerS)} (${(last.cpuPerS / first.cpuPerS).toFixed(2)}x), ` +
        `CPU per second of the story ${ms(first.cpuPerStoryS)} -> ${ms(last.cpuPerStoryS)} ` +
        `(${(last.cpuPerStoryS / first.cpuPerStoryS).toFixed(2)}x), ` +
        `dropped ${pct(first.dropped)} -> ${pct(last.dropped)}`,
    );
  }
}

/** Budget 4's long run from `dist` at 8x: main-thread time per frame. */
async function longRunFrames(browser, dist, fragment, replay) {
  const server = await startServer(dist);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await openPage(context, `${server.url}#${fragment}`);
    await page.getByText(/lines of \d+ events/).waitFor();
    if (replay) await page.getByRole("slider", { name: /^Playhead/ }).press("Home");
    await startClock(page);
    await setMaxSpeed(page);
    await page.waitForTimeout(500);
    await browser.startTracing(page, { categories: FRAME_CATEGORIES });
    await page.waitForTimeout(FRAMES_WINDOW_MS);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    const events = trace.traceEvents ?? trace;
    const sorted = (values) => values.sort((a, b) => a - b);
    return { wall: sorted(mainThreadPerFrame(events)), cpu: sorted(mainThreadPerFrame(events, { cpu: true })) };
  } finally {
    await context.close();
    await server.close();
  }
}

async function compareLongRun({ dists, runs, linkFile, replay }) {
  const fragment = (await readFile(linkFile, "utf8")).trim();
  const browser = await launchBrowser();
  const results = dists.map(() => []);
  try {
    for (let run = 0; run < runs; run += 1) {
      for (const [i, dist] of dists.entries()) {
        const { wall, cpu } = await longRunFrames(browser, dist, fragment, replay);
        results[i].push({ wall, cpu });
        console.log(
          `run ${run + 1} ${dist.padEnd(20)} long run at 8x: ${wall.length} frames, wall median ${ms(median(wall))}, ` +
            `p95 ${ms(quantile(wall, 0.95))}; CPU median ${ms(median(cpu))}, p95 ${ms(quantile(cpu, 0.95))}`,
        );
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`\nmedians of ${runs} runs, the long run ${replay ? "replayed " : ""}at 8x (main-thread time per frame):`);
  for (const [i, dist] of dists.entries()) {
    const of = (pick) => median(results[i].map(pick));
    console.log(
      `${dist.padEnd(20)} wall median ${ms(of((r) => median(r.wall)))}, p95 ${ms(of((r) => quantile(r.wall, 0.95)))}; ` +
        `CPU median ${ms(of((r) => median(r.cpu)))}, p95 ${ms(of((r) => quantile(r.cpu, 0.95)))}`,
    );
  }
}

const { values } = parseArgs({
  options: {
    dist: { type: "string", multiple: true, default: ["dist"] },
    rate: { type: "string", default: "4" },
    runs: { type: "string", default: "3" },
    "big-run": { type: "string" },
    replay: { type: "boolean", default: false },
  },
});
if (values["big-run"]) {
  await compareLongRun({ dists: values.dist, runs: Number(values.runs), linkFile: values["big-run"], replay: values.replay });
} else {
  await compare({ dists: values.dist, rate: Number(values.rate), runs: Number(values.runs) });
}
