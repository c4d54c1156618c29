// The hazard explorer's figures in the page: trials per second with every
// worker (the default plan on etcd, as the page's progress line counts
// them, worker start-up included), and the gzip sizes of the page's wasm
// and of the worker's, which the page fetches only when the explorer or
// another worker job is first used. The native figure beside it comes
// from `cargo bench --bench sim` (its "hazard explorer" lines).
//
// `--workers N` runs the cells on at most N workers (the link's `crew=N`,
// which the explorer's lead honours below the machine's core count): with
// one, the figure is one core's, to set beside the native one.
//
// While the run goes on, the page's main thread is watched for long tasks
// (PerformanceObserver "longtask", anything over 50 ms): the longest and
// how many are printed, with its busy time (DevTools' Performance
// metrics), and the browser's processor time beside the wall clock's.
// `--million` runs one cell of 1,000,000 trials
// instead (a million-trial plan: progress and the drawing arrive for
// about a minute while the main thread should stay free).
//
// `--plan QUERY` runs that plan instead (the explorer's link keys, as
// `system=etcd&ttls=5&trials=20000`: etcd, TTL 5 s, the default pause
// profile and no other faults).
//
// Usage: node scripts/budgets/explorer_page.mjs [--dist dist] [--trials 2000] [--workers N] [--million] [--plan QUERY]

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";

import { launchBrowser, startServer } from "../lib/browser.mjs";
import { openPage } from "../../tests/e2e/ui.mjs";

const { values: args } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    trials: { type: "string", default: "2000" },
    workers: { type: "string" },
    million: { type: "boolean", default: false },
    plan: { type: "string" },
  },
});

/** Bytes of `gzip -9c FILE`, the figure docs/explorer.md quotes. */
const gzipped = async (file) => execFileSync("gzip", ["-9c", join(args.dist, file)]).length;
const files = await readdir(args.dist);
const page = files.find((f) => /^distlock-[0-9a-f]+_bg\.wasm$/.test(f));
const worker = files.find((f) => f === "distlock-worker_bg.wasm");
console.log(`page wasm (gzip -9):   ${await gzipped(page)} bytes (${page})`);
console.log(`worker wasm (gzip -9): ${await gzipped(worker)} bytes, fetched on first use`);

/**
 * Seconds of processor time the browser's processes have used (user and
 * system, from /proc), in all, and each worker thread's by its thread id:
 * trials per processor second of the workers hold stiller than the wall
 * clock's figure when the machine's other load moves it.
 */
async function browserCpuSeconds() {
  const seconds = (stat) => {
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  let all = 0;
  const workers = new Map();
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      // Chromium's processes (its launcher execs them under other names);
      // another browser running meanwhile would be counted too.
      const name = await readFile(`/proc/${pid}/comm`, "latin1");
      if (!name.startsWith("chrom")) continue;
      all += seconds(await readFile(`/proc/${pid}/stat`, "latin1"));
      for (const tid of await readdir(`/proc/${pid}/task`)) {
        const thread = await readFile(`/proc/${pid}/task/${tid}/comm`, "latin1");
        if (thread.startsWith("DedicatedWorker")) workers.set(tid, seconds(await readFile(`/proc/${pid}/task/${tid}/stat`, "latin1")));
      }
    } catch {
      // The process or thread ended between the listing and the read.
    }
  }
  return { all, workers };
}

/**
 * Watches the workers' threads until `stop()`, which returns the
 * processor seconds each used meanwhile, most first (the lead, which
 * deals the parts and draws, uses the least): a thread's time is read
 * every half second, as the workers end with the run (their last half
 * second or so is not seen).
 */
function watchWorkers(start) {
  const last = new Map();
  const look = async () => {
    for (const [tid, s] of (await browserCpuSeconds()).workers) last.set(tid, s - (start.workers.get(tid) ?? 0));
  };
  const timer = setInterval(look, 500);
  return async () => {
    clearInterval(timer);
    await look();
    return [...last.values()].sort((a, b) => b - a);
  };
}

const server = await startServer(args.dist);
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const crew = args.workers ? `&crew=${Number(args.workers)}` : "";
  const plan =
    args.plan ??
    (args.million ? "system=etcd&ttls=10&axis=p99&values=2&trials=1000000&rare=0" : `system=etcd&trials=${args.trials}`);
  const tab = await openPage(context, `${server.url}?explore&${plan}${crew}`);
  await tab.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(e.duration);
    }).observe({ type: "longtask" });
  });
  // The end of the run is awaited inside the page, where a look at the
  // bar costs a selector's match four times a second. Polling it from
  // here (a locator's count and attributes, three DevTools commands every
  // 100 ms) took 12% of a core on the main thread, and so from the
  // workers on two cores.
  const cdp = await context.newCDPSession(tab);
  await cdp.send("Performance.enable");
  const metrics = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const before = await metrics();
  const cpuBefore = await browserCpuSeconds();
  const stopWatching = watchWorkers(cpuBefore);
  const started = Date.now();
  const done = await tab.waitForFunction(
    () => {
      const bar = document.querySelector('[role="progressbar"][aria-label="Cells done"]');
      return bar && bar.getAttribute("aria-valuenow") === bar.getAttribute("aria-valuemax") && bar.getAttribute("aria-valuetext");
    },
    null,
    { polling: 250, timeout: 600_000 },
  );
  const words = await done.jsonValue();
  const after = await metrics();
  const threads = await stopWatching();
  const workerCpu = threads.reduce((a, b) => a + b, 0);
  const cpu = (await browserCpuSeconds()).all - cpuBefore.all;
  const busy = (name) => (after[name] - before[name]).toFixed(2);
  const wall = (Date.now() - started) / 1000;
  console.log(
    `main thread while it ran (${wall.toFixed(1)} s): busy ${busy("TaskDuration")} s, script ${busy("ScriptDuration")} s, ` +
      `style and layout ${(after.RecalcStyleDuration + after.LayoutDuration - before.RecalcStyleDuration - before.LayoutDuration).toFixed(2)} s`,
  );
  const cores = await tab.evaluate(() => navigator.hardwareConcurrency);
  const workers = Math.min(cores, 4, args.workers ? Number(args.workers) : 4);
  const what = args.plan
    ? `the plan ${args.plan}`
    : args.million
      ? "one etcd cell of 1,000,000 trials"
      : `the default plan on etcd, ${args.trials} trials per cell`;
  console.log(`in the page: ${words} (${what}, ${workers} workers)`);
  const trials = Number(words.match(/([\d,]+) trials per second/)?.[1].replaceAll(",", "")) * wall;
  console.log(
    `the browser's processes: ${cpu.toFixed(1)} s of processor time in ${wall.toFixed(1)} s, ` +
      `${workerCpu.toFixed(1)} s of it in the workers' threads (${threads.map((s) => s.toFixed(1)).join(" + ")}): ` +
      `about ${Math.round(trials / workerCpu).toLocaleString("en-US")} trials a second of a worker's processor time`,
  );
  const tasks = await tab.evaluate(() => window.__longTasks);
  const longest = tasks.length ? Math.max(...tasks) : 0;
  console.log(`long tasks on the main thread: ${tasks.length} over 50 ms, the longest ${longest.toFixed(0)} ms`);
} finally {
  await browser.close();
  await server.close();
}
