// The start-up's long tasks, from traces of cold loads with the CPU slowed
// 4x (Lighthouse's mobile factor, CDP `Emulation.setCPUThrottlingRate`):
// for each build given, loads interleaved (A, B, A, B, ...), each task on the
// renderer's main thread of 50 ms or more from the first byte until the page
// has drawn below its first screen, with its wall and CPU time and what it
// was (wasm compiling, script, style and layout, parsing). CPU time barely
// moves when other processes share the machine's cores; wall time swings.
//
//   node scripts/budgets/startup_profile.mjs [--loads 5] [--names] [--min 50] DIST [DIST ...]
//
// --names lists what each task holds, by trace event; --min MS shows tasks
// down to MS long (the medians still count only those of 50 ms or more).
//
// Each DIST is a release build (`trunk build --release --offline`), served
// compressed as a host would (scripts/lib/serve.mjs).

import { parseArgs } from "node:util";
import { launchBrowser, startServer } from "../lib/browser.mjs";
import { median } from "./trace_frames.mjs";

const { values: args, positionals: dists } = parseArgs({
  allowPositionals: true,
  options: {
    loads: { type: "string", default: "5" },
    names: { type: "boolean", default: false },
    // Tasks shorter than this are left out (a long task is 50 ms or more).
    min: { type: "string", default: "50" },
  },
});
if (dists.length === 0) {
  console.error("usage: node scripts/budgets/startup_profile.mjs [--loads N] DIST [DIST ...]");
  process.exit(2);
}

const CATEGORIES = [
  "__metadata", "toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline",
  "v8", "v8.wasm", "v8.execute", "blink.user_timing", "loading",
].join(",");

/** What a trace event's time goes to: the bins of the table. */
function binOf(name) {
  if (/wasm/i.test(name) && /compil|tier|Lazy/i.test(name)) return "wasm compile";
  if (/wasm/i.test(name)) return "wasm other";
  if (/^(UpdateLayoutTree|RecalculateStyles|Layout|ScheduleStyleRecalculation|UpdateLayerTree|PrePaint|Paint|Layerize|Commit|HitTest)/.test(name)) return "style, layout, paint";
  if (/^(ParseHTML|ParseAuthorStyleSheet)/.test(name)) return "parsing";
  if (/^(MinorGC|MajorGC|V8\.GC|BlinkGC)/.test(name)) return "garbage collection";
  return null;
}

/** Self time of the events nested in `task`, by bin; the rest is script. */
function breakdown(task, events) {
  const inside = events
    .filter((e) => e.ph === "X" && e !== task && e.ts >= task.ts && e.ts + (e.dur ?? 0) <= task.ts + task.dur)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  // Each binned event counts once, without what an outer binned event holds.
  const bins = {};
  let coveredUntil = 0;
  for (const e of inside) {
    const bin = binOf(e.name);
    if (!bin || e.ts < coveredUntil) continue;
    bins[bin] = (bins[bin] ?? 0) + e.dur / 1000;
    coveredUntil = e.ts + e.dur;
  }
  const binned = Object.values(bins).reduce((a, b) => a + b, 0);
  bins.script = Math.max(0, task.dur / 1000 - binned);
  return bins;
}

async function load(browser, url) {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const events = [];
  cdp.on("Tracing.dataCollected", ({ value }) => events.push(...value));
  const done = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.start", { categories: CATEGORIES, transferMode: "ReportEvents" });
  await page.goto(url);
  // Started, and drawn below the first screen (the timeline comes last).
  await page.waitForSelector("#distlock-first", { state: "detached", timeout: 60000 });
  await page.waitForSelector(".timeline", { timeout: 60000 });
  await page.waitForTimeout(1000);
  await cdp.send("Tracing.end");
  await done;
  await context.close();
  const main = events.find((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain"
    && events.some((t) => t.pid === e.pid && t.tid === e.tid && t.name === "ParseHTML"));
  const mine = events.filter((e) => e.pid === main.pid && e.tid === main.tid);
  const tasks = mine
    .filter((e) => e.ph === "X" && e.name === "RunTask" && e.dur >= Number(args.min) * 1000)
    .sort((a, b) => a.ts - b.ts);
  const navStart = mine.find((e) => e.name === "navigationStart")?.ts ?? tasks[0]?.ts ?? 0;
  if (args.names) {
    // What each long task holds, by event name (total time, nested included).
    for (const t of tasks) {
      const sums = new Map();
      for (const e of mine) {
        if (e.ph !== "X" || e === t || e.ts < t.ts || e.ts + (e.dur ?? 0) > t.ts + t.dur) continue;
        sums.set(e.name, (sums.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
      }
      const top = [...sums].sort((a, b) => b[1] - a[1]).slice(0, 14);
      console.log(`  task at ${((t.ts - (mine.find((e) => e.name === "navigationStart")?.ts ?? 0)) / 1000).toFixed(0)} ms, ${(t.dur / 1000).toFixed(0)} ms: ` +
        top.map(([n, v]) => `${n} ${v.toFixed(1)}`).join("; "));
    }
  }
  return tasks.map((t) => ({
    at: (t.ts - navStart) / 1000,
    wall: t.dur / 1000,
    cpu: (t.tdur ?? t.dur) / 1000,
    ...breakdown(t, mine),
  }));
}

const fmt = (x) => (x === undefined ? "" : x.toFixed(0));
const servers = await Promise.all(dists.map((d) => startServer(d, 0, { compress: true })));
const browser = await launchBrowser();
const results = dists.map(() => []);
try {
  for (let i = 0; i < Number(args.loads); i++) {
    for (const [d, server] of servers.entries()) {
      const tasks = await load(browser, server.url);
      results[d].push(tasks);
      console.log(`${dists[d]} load ${i + 1}: ` + tasks.map((t) =>
        `[at ${fmt(t.at)} ms: wall ${fmt(t.wall)}, cpu ${fmt(t.cpu)}; ` +
        Object.entries(t).filter(([k]) => !["at", "wall", "cpu"].includes(k))
          .map(([k, v]) => `${k} ${fmt(v)}`).join(", ") + "]").join(" "));
    }
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((s) => s.close()));
}
// The start: the tasks that compile wasm (instantiating it, and each render
// that runs the page's code for the first time), and every long task from
// the first of them on.
console.log("\nmedians over the loads (ms, 4x CPU), from the wasm's start on: the longest task that runs " +
  "the page's wasm first, CPU (wall); all tasks of 50 ms or more, CPU; blocking (each task's CPU time past 50 ms, summed)");
for (const [d, loads] of results.entries()) {
  const fromStart = loads.map((ts) => ts.slice(Math.max(0, ts.findIndex((t) => t["wasm compile"] > 0))));
  const starts = loads.map((ts) => ts.filter((t) => t["wasm compile"] > 0));
  const longest = starts.map((ts) => ts.reduce((best, t) => (t.cpu > best.cpu ? t : best), { cpu: 0, wall: 0 }));
  const sum = (ts) => ts.filter((t) => t.wall >= 50).reduce((s, t) => s + t.cpu, 0);
  const blocking = fromStart.map((ts) => ts.reduce((s, t) => s + Math.max(0, t.cpu - 50), 0));
  console.log(`${dists[d]}: longest start task ${fmt(median(longest.map((t) => t.cpu)))} ` +
    `(${fmt(median(longest.map((t) => t.wall)))}), long tasks ${fmt(median(fromStart.map(sum)))}, ` +
    `blocking ${fmt(median(blocking))}`);
}
