// Where a cold load's time goes until the four client cards are in the
// page, for one build or several side by side: the budgets' first render
// (scripts/budgets.mjs, budget 2) counts only the wall time, which swings
// by tens of milliseconds from load to load; this also counts the main
// thread's own time (trace events' thread durations, which barely move when
// other processes share the cores) and when each step of the load ended.
//
// Loads of the builds alternate, after one discarded warm-up load each, so a
// busy moment slows every build alike. Per build it prints the medians of:
//   cards     navigation start to the four "Client X" regions (as budget 2)
//   main      main-thread time before that moment (every top-level task)
//   script    of which script (FunctionCall: the page's wasm and its DOM calls,
//             including compiling wasm functions on their first call)
//   wasm      when the wasm's last byte arrived
//   compiled  when its streaming compilation finished
//   started   when script first ran after that (the page's wasm starting)
//
// Usage: node scripts/first_render_profile.mjs [--loads 11] DIST [DIST...]
// e.g.   node scripts/first_render_profile.mjs dist /tmp/other-build
//        (the minimal Yew page the budgets build is in
//        ${TMPDIR:-/tmp}/distlock-minimal/dist once budgets.sh has run)

import { parseArgs } from "node:util";
import { launchBrowser } from "../tests/e2e/browser.mjs";
import { startServer } from "../tests/e2e/serve.mjs";
import { median, watchForClientCards } from "./trace_frames.mjs";

const { values: args, positionals: dists } = parseArgs({
  options: { loads: { type: "string", default: "11" } },
  allowPositionals: true,
});
if (dists.length === 0) dists.push("dist");

const CATEGORIES = ["__metadata", "toplevel", "devtools.timeline", "blink.user_timing", "v8.wasm"];

async function loadOnce(browser, url) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.addInitScript(watchForClientCards);
    await browser.startTracing(page, { categories: CATEGORIES });
    await page.goto(url);
    await page.waitForFunction(() => window.__clientCardsAt !== undefined, null, { timeout: 20_000 });
    const cards = await page.evaluate(() => window.__clientCardsAt);
    const wasm = await page.evaluate(() => performance.getEntriesByType("resource").find((r) => r.name.endsWith(".wasm"))?.responseEnd ?? NaN);
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    const mark = events.find((e) => e.name === "cards");
    const onMain = events.filter((e) => e.pid === mark.pid && e.tid === mark.tid && e.ph === "X" && e.ts < mark.ts);
    onMain.sort((a, b) => a.ts - b.ts);
    // Top-level tasks only: a task's nested events are inside its duration.
    let main = 0;
    let script = 0;
    let end = -Infinity;
    for (const e of onMain) {
      const own = (e.tdur ?? e.dur) / 1000;
      if (e.ts >= end) {
        main += own;
        end = e.ts + e.dur;
      }
      if (e.name === "FunctionCall") script += own;
    }
    // Trace times to the page's clock, through the "cards" mark.
    const at = (e) => (e ? cards - (mark.ts - e.ts) / 1000 : NaN);
    const finished = onMain.find((e) => e.name === "wasm.FinishStreaming");
    const compiled = at(finished);
    const started = at(onMain.find((e) => e.name === "FunctionCall" && finished && e.ts >= finished.ts));
    return { cards, main, script, wasm, compiled, started };
  } finally {
    await context.close();
  }
}

const browser = await launchBrowser();
const servers = [];
try {
  for (const dist of dists) servers.push(await startServer(dist));
  for (const server of servers) await loadOnce(browser, server.url);
  const loads = servers.map(() => []);
  for (let i = 0; i < Number(args.loads); i += 1) {
    for (const [k, server] of servers.entries()) loads[k].push(await loadOnce(browser, server.url));
  }
  const columns = ["cards", "main", "script", "wasm", "compiled", "started"];
  const width = Math.max(...dists.map((d) => d.length)) + 2;
  console.log(`medians of ${args.loads} cold loads each, ms since navigation start (main, script: ms of main-thread time)`);
  console.log(`${"".padEnd(width)}${columns.map((c) => c.padStart(9)).join("")}`);
  for (const [k, dist] of dists.entries()) {
    const row = columns.map((c) => median(loads[k].map((load) => load[c])).toFixed(1).padStart(9)).join("");
    console.log(`${dist.padEnd(width)}${row}`);
  }
} finally {
  await browser.close();
  for (const server of servers) await server.close();
}
