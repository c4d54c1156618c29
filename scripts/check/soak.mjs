// A page left running: the release build at 8x with four clients cycling
// through acquire, write, GC pause, partition (and heal) and crash (and
// restart), for --minutes of wall time. Every minute it prints the wasm
// memory's size, the JS heap, the DOM's size and the frame intervals of
// the minute, and what the page said (its notice) when it refused
// something. When a run reaches one of the core's limits (the commands a
// run keeps, SCRIPT_LEN_MAX; the records it keeps, HISTORY_LEN_MAX; the
// events one frame may run, EVENTS_PER_RUN_MAX) the page must say so and
// keep working: the script reads the page's words, lets the full run go on
// for --full-minutes, then presses Reset as a visitor would, and goes on.
//
// Not a timed test (it measures this machine, whose other work shows in
// the frame figures): `trunk build --release --offline`, then
//   node scripts/check/soak.mjs [--dist dist] [--minutes 30] [--pace-ms 300]
//        [--full-minutes 3] [--json FILE]
// --pace-ms: wall time between two commands (one client each, in turn).
// --json FILE: also writes the samples as JSON.

import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { launchBrowser, recordProblems, startServer } from "../lib/browser.mjs";
import { CLIENTS, cardButton, clockButton, clockSeconds, openPage, setMaxSpeed, startClock } from "../../tests/e2e/ui.mjs";

const { values: args } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    minutes: { type: "string", default: "30" },
    "pace-ms": { type: "string", default: "300" },
    "full-minutes": { type: "string", default: "3" },
    json: { type: "string" },
  },
});
const MINUTES = Number(args.minutes);
const PACE_MS = Number(args["pace-ms"]);
const FULL_MS = Number(args["full-minutes"]) * 60_000;

// Each client's cycle; a command its card does not offer now (Heal while
// not partitioned, Restart while running) is skipped, as a visitor would.
const CYCLE = ["Acquire", "Write", "GC pause", "Write", "Partition", "Heal", "Acquire", "Crash (process exits)", "Restart"];

// Runs before the page's own scripts: keeps every wasm memory the page
// instantiates, and the interval between animation frames.
function instrument() {
  window.__soak = { memories: [], frames: [] };
  const keep = (result) => {
    const instance = result.instance ?? result;
    const memory = instance?.exports?.memory;
    if (memory instanceof WebAssembly.Memory) window.__soak.memories.push(memory);
    return result;
  };
  const { instantiate, instantiateStreaming } = WebAssembly;
  WebAssembly.instantiate = (...a) => instantiate.apply(WebAssembly, a).then(keep);
  if (instantiateStreaming) {
    WebAssembly.instantiateStreaming = (...a) => instantiateStreaming.apply(WebAssembly, a).then(keep);
  }
  let last = 0;
  const frame = (t) => {
    if (last) window.__soak.frames.push(t - last);
    if (window.__soak.frames.length > 20_000) window.__soak.frames.shift();
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
const mib = (bytes) => (bytes / 1048576).toFixed(1);

async function sample(page, cdp, minute, counts) {
  const seen = await page.evaluate(() => {
    const frames = window.__soak.frames.splice(0);
    const notice = document.querySelector(".notice__text")?.textContent ?? "";
    const notes = [...document.querySelectorAll(".panel__note--alarm")].map((n) => n.textContent);
    return {
      wasm: window.__soak.memories.reduce((sum, m) => sum + m.buffer.byteLength, 0),
      frames,
      nodes: document.getElementsByTagName("*").length,
      notice,
      notes,
    };
  });
  const heap = await cdp.send("Runtime.getHeapUsage");
  const sorted = [...seen.frames].sort((a, b) => a - b);
  const row = {
    minute,
    clock_s: await clockSeconds(page).catch(() => NaN),
    wasm_bytes: seen.wasm,
    js_heap_used_bytes: heap.usedSize,
    dom_nodes: seen.nodes,
    frames: sorted.length,
    frame_median_ms: quantile(sorted, 0.5),
    frame_p95_ms: quantile(sorted, 0.95),
    frame_max_ms: sorted.at(-1) ?? 0,
    ...counts,
    notice: seen.notice,
    alarms: seen.notes,
  };
  console.log(
    `${String(minute).padStart(3)} min  t=${row.clock_s.toFixed(0)} s  wasm ${mib(row.wasm_bytes)} MiB  ` +
      `heap ${mib(row.js_heap_used_bytes)} MiB  nodes ${row.dom_nodes}  frames ${row.frames} ` +
      `(median ${row.frame_median_ms.toFixed(1)} ms, p95 ${row.frame_p95_ms.toFixed(1)}, max ${row.frame_max_ms.toFixed(0)})  ` +
      `clicks ${counts.clicks} skipped ${counts.skipped} refused ${counts.refused} resets ${counts.resets}` +
      (row.notice ? `\n      notice: ${row.notice}` : "") +
      row.alarms.map((a) => `\n      alarm: ${a}`).join(""),
  );
  return row;
}

/** Clicks `name` on `id`'s card if the card offers it now; true if clicked. */
async function tryClick(page, id, name) {
  const button = cardButton(page, id, name);
  try {
    if ((await button.count()) !== 1 || !(await button.isEnabled({ timeout: 1_000 }))) return false;
    await button.click({ timeout: 2_000 });
    return true;
  } catch {
    return false;
  }
}

/** The words of a limit reached: a full script, a full history, a long frame. */
const LIMIT = /holds \d+ commands|history is full|events in one frame/;

async function main() {
  const browser = await launchBrowser();
  const server = await startServer(args.dist);
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  recordProblems(context, server.origin, problems);
  await context.addInitScript(instrument);
  const rows = [];
  try {
    const page = await openPage(context, server.url);
    const cdp = await context.newCDPSession(page);
    await startClock(page);
    await setMaxSpeed(page);
    const counts = { clicks: 0, skipped: 0, refused: 0, resets: 0 };
    const limits = [];
    const start = Date.now();
    const end = start + MINUTES * 60_000;
    let nextSample = start;
    let fullSince = null;
    let step = 0;
    let lastRefusal = "";
    console.log(`soak: ${MINUTES} min at 8x, a command every ${PACE_MS} ms, four clients`);
    while (Date.now() < end) {
      if (Date.now() >= nextSample) {
        rows.push(await sample(page, cdp, Math.round((Date.now() - start) / 60_000), counts));
        nextSample += 60_000;
      }
      // What the page says now: its notice (a refusal's is an alert) and
      // the event log's alarms (a full history), read in one go.
      const { refusal, said } = await page.evaluate(() => {
        const refused = document.querySelector(".notice--refused .notice__text")?.textContent ?? "";
        const notice = document.querySelector(".notice__text")?.textContent ?? "";
        const alarms = [...document.querySelectorAll(".panel__note--alarm")].map((n) => n.textContent);
        return { refusal: refused, said: [notice, ...alarms].join(" ") };
      });
      if (LIMIT.test(said) && fullSince === null) {
        fullSince = Date.now();
        limits.push({ minute: (fullSince - start) / 60_000, said: said.trim() });
        console.log(`      limit reached at ${((fullSince - start) / 60_000).toFixed(1)} min: ${said.trim()}`);
      }
      if (fullSince !== null && Date.now() - fullSince >= FULL_MS) {
        // The full run went on: the clock still moves, the page still draws.
        await clockButton(page, "Reset").click();
        counts.resets += 1;
        fullSince = null;
        if (await clockButton(page, "Start").isVisible()) await startClock(page);
      }
      const id = CLIENTS[step % CLIENTS.length];
      const name = CYCLE[Math.floor(step / CLIENTS.length) % CYCLE.length];
      step += 1;
      if (await tryClick(page, id, name)) counts.clicks += 1;
      else counts.skipped += 1;
      if (refusal && refusal !== lastRefusal) counts.refused += 1;
      lastRefusal = refusal;
      // The clock never stops by itself; if a limit stopped it, say so.
      if (await clockButton(page, "Start").isVisible().catch(() => false)) {
        console.log("      the clock stopped; starting it again");
        await startClock(page);
      }
      await page.waitForTimeout(PACE_MS);
    }
    rows.push(await sample(page, cdp, Math.round((Date.now() - start) / 60_000), counts));
    summary(rows, limits, problems);
  } finally {
    if (args.json) await writeFile(args.json, JSON.stringify(rows, null, 2));
    await browser.close();
    await server.close();
  }
}

function summary(rows, limits, problems) {
  const at = (i) => rows[Math.min(rows.length - 1, Math.max(0, i))];
  const first = at(1);
  const middle = at(Math.floor(rows.length / 2));
  const last = at(rows.length - 1);
  const line = (name, r) =>
    `${name.padEnd(7)} min ${String(r.minute).padStart(3)}: wasm ${mib(r.wasm_bytes)} MiB, JS heap ${mib(r.js_heap_used_bytes)} MiB, ` +
    `${r.dom_nodes} DOM nodes, frames median ${r.frame_median_ms.toFixed(1)} ms / p95 ${r.frame_p95_ms.toFixed(1)} ms`;
  console.log("\nsummary");
  console.log(line("start", first));
  console.log(line("middle", middle));
  console.log(line("end", last));
  const half = rows.slice(Math.floor(rows.length / 2));
  const wasmGrowth = half.at(-1).wasm_bytes - half[0].wasm_bytes;
  const heapGrowth = half.at(-1).js_heap_used_bytes - half[0].js_heap_used_bytes;
  console.log(`second half: wasm grew ${mib(wasmGrowth)} MiB, JS heap ${mib(heapGrowth)} MiB`);
  const drift = (last.frame_median_ms - first.frame_median_ms) / first.frame_median_ms;
  console.log(`frame median at the end vs the start: ${(100 * drift).toFixed(1)}%`);
  console.log(`limits reached: ${limits.length}${limits.map((l) => `\n  ${l.minute.toFixed(1)} min: ${l.said}`).join("")}`);
  console.log(`page problems (console errors, failed loads): ${problems.length}${problems.map((p) => `\n  ${p}`).join("")}`);
}

await main();
