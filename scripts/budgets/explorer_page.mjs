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
// Usage: node scripts/budgets/explorer_page.mjs [--dist dist] [--trials 2000] [--workers N]

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
  const tab = await openPage(context, `${server.url}?explore&system=etcd&trials=${args.trials}${crew}`);
  const bar = tab.getByRole("progressbar", { name: "Cells done" });
  await poll(
    async () => (await bar.count()) === 1 && (await bar.getAttribute("aria-valuenow")) === (await bar.getAttribute("aria-valuemax")),
    { what: "the default plan's run", timeout: 600_000, interval: 100 },
  );
  const words = await bar.getAttribute("aria-valuetext");
  const cores = await tab.evaluate(() => navigator.hardwareConcurrency);
  const workers = Math.min(cores, 4, args.workers ? Number(args.workers) : 4);
  console.log(`in the page: ${words} (the default plan on etcd, ${args.trials} trials per cell, ${workers} workers)`);
} finally {
  await browser.close();
  await server.close();
}
