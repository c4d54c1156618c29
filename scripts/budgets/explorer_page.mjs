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
// how many are printed. `--million` runs one cell of 1,000,000 trials
// instead (a million-trial plan: progress and the drawing arrive for
// about a minute while the main thread should stay free).
//
// `--plan QUERY` runs that plan instead (the explorer's link keys, as
// `system=etcd&ttls=5&trials=20000`: etcd, TTL 5 s, the default pause
// profile and no other faults).
//
// Usage: node scripts/budgets/explorer_page.mjs [--dist dist] [--trials 2000] [--workers N] [--million] [--plan QUERY]

import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";

import { launchBrowser, startServer } from "../lib/browser.mjs";
import { openPage, poll } from "../../tests/e2e/ui.mjs";

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
  const bar = tab.getByRole("progressbar", { name: "Cells done" });
  await poll(
    async () => (await bar.count()) === 1 && (await bar.getAttribute("aria-valuenow")) === (await bar.getAttribute("aria-valuemax")),
    { what: "the default plan's run", timeout: 600_000, interval: 100 },
  );
  const words = await bar.getAttribute("aria-valuetext");
  const cores = await tab.evaluate(() => navigator.hardwareConcurrency);
  const workers = Math.min(cores, 4, args.workers ? Number(args.workers) : 4);
  const what = args.plan
    ? `the plan ${args.plan}`
    : args.million
      ? "one etcd cell of 1,000,000 trials"
      : `the default plan on etcd, ${args.trials} trials per cell`;
  console.log(`in the page: ${words} (${what}, ${workers} workers)`);
  const tasks = await tab.evaluate(() => window.__longTasks);
  const longest = tasks.length ? Math.max(...tasks) : 0;
  console.log(`main thread while it ran: ${tasks.length} tasks over 50 ms, the longest ${longest.toFixed(0)} ms`);
} finally {
  await browser.close();
  await server.close();
}
