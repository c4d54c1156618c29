// Prints the figures of "Find the shortest failure" in the page, against
// the release build (figures, not timed tests: nothing here fails on a slow
// machine).
//
//   1. The page's own wasm, gzip -9, and the change against an earlier
//      build's (--before DIR, a `dist/` kept from before).
//   2. Distinct states per second in the page's worker, on a search that
//      finds nothing: etcd, fencing on, "tokens accepted at the resource
//      never decrease", up to 8 moves (the native figure is `cargo bench
//      --bench finder`'s): the states within 8 moves, each once, and each
//      deepening pass's own count added up, as the page words it; and the
//      longest gap between the page's frames meanwhile: the search is the
//      worker's, the page goes on drawing.
//   3. The time to the shortest stale write from the scenario to run
//      first's settings (TTL 5 s, fencing off, a fresh run), on every
//      system with a lease (aim: under 2 s in the page): from the click to
//      the result drawn, and the worker's own search time. The first search
//      also starts the worker (fetching and compiling its wasm); that start
//      is printed apart.
//
// Usage: node scripts/budgets/finder_page.mjs [--dist dist] [--before DIR] [--skip-proof]

import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { parseArgs } from "node:util";

import { launchBrowser, startServer } from "../lib/browser.mjs";
import { chooseBackend, openPage, openView, poll, setFencing } from "../../tests/e2e/ui.mjs";

const { values: args } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    before: { type: "string" },
    "skip-proof": { type: "boolean", default: false },
  },
});

/** Systems whose lock is a lease (PostgreSQL's is not: it has none). */
const LEASED = ["Redis", "Redlock", "ZooKeeper", "etcd", "Chubby", "Consul", "DynamoDB"];
const AIM_MS = 2_000;
/** How long one search may take before the script gives up on it. */
const SEARCH_LIMIT_MS = 15 * 60_000;

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The page's wasm in `dir` (hashed name; not the worker's), gzip -9. */
async function pageWasm(dir) {
  const name = (await readdir(dir)).find((f) => f.endsWith("_bg.wasm") && !f.startsWith("distlock-worker"));
  if (!name) throw new Error(`no page wasm in ${dir}/`);
  const path = join(dir, name);
  const raw = await readFile(path);
  // The gzip program, as the page's figures have always been taken; zlib's
  // own level 9 packs the same file a few KiB differently.
  let gzip;
  try {
    gzip = execFileSync("gzip", ["-9c", path], { maxBuffer: 64 << 20 }).length;
  } catch {
    gzip = gzipSync(raw, { level: 9 }).length;
  }
  return { name, raw: raw.length, gzip };
}

async function sizes() {
  console.log("\n1. The page's own wasm (gzip -9)");
  const now = await pageWasm(args.dist);
  console.log(`   ${now.name}: ${now.gzip} bytes (${kib(now.gzip)}), ${kib(now.raw)} raw`);
  if (!args.before) {
    console.log("   before: not measured (no --before build given)");
    return;
  }
  const before = await pageWasm(args.before);
  const delta = now.gzip - before.gzip;
  console.log(`   before, ${before.name}: ${before.gzip} bytes (${kib(before.gzip)})`);
  console.log(`   change: ${delta >= 0 ? "+" : ""}${delta} bytes (${delta >= 0 ? "+" : ""}${kib(delta)})`);
}

/**
 * Presses Find in the page for `slug` and resolves when a new result is
 * drawn: milliseconds from the click to the result (in the page's clock),
 * and the result's words.
 */
async function find(page, slug) {
  await openView(page, "Properties and finder");
  const group = page.getByRole("group", { name: "Find the shortest failure", exact: true });
  const ask = group.getByRole("button", { name: "Set the question first", exact: true });
  if (await ask.count()) await ask.click();
  const form = group.getByRole("form", { name: "The question", exact: true });
  await form.getByLabel("Failure to find").selectOption(slug);
  await form.getByRole("button", { name: "Find the shortest failure", exact: true }).waitFor();
  const started = page.evaluate(() => {
    const group = document.querySelector('[aria-labelledby="finder-title"]');
    const before = group.querySelector(".finder__result");
    const button = group.querySelector('form[aria-label="The question"] button[type="submit"]');
    return new Promise((resolve) => {
      const t0 = performance.now();
      const observer = new MutationObserver(() => {
        const result = group.querySelector(".finder__result");
        const failed = group.querySelector('[role="alert"]');
        if ((result && result !== before) || failed) {
          observer.disconnect();
          resolve({ ms: performance.now() - t0, text: (result ?? failed).textContent.replace(/\s+/g, " ") });
        }
      });
      observer.observe(group, { childList: true, subtree: true });
      button.click();
    });
  });
  return poll(() => Promise.race([started, new Promise((ok) => setTimeout(() => ok(null), 500))]), {
    what: `the search for ${slug}`,
    timeout: SEARCH_LIMIT_MS,
  });
}

/** "Searched 691 distinct states in 45 ms (15,220 distinct states per second)." */
function speedOf(text) {
  const m = text.match(/Searched ([\d,]+) distinct states in ([\d.]+) (s|ms) \(([\d,]+) distinct states per second\)/);
  const number = (s) => Number(s.replace(/,/g, ""));
  if (!m) return null;
  const secs = m[3] === "ms" ? Number(m[2]) / 1000 : Number(m[2]);
  return { states: number(m[1]), secs, rate: number(m[4]) };
}

const verdictOf = (text) => (text.match(/(Broken in [^:]+|No failure within \d+ moves?[^.]*|The run (already )?breaks it[^:]*)/) ?? [text.slice(0, 120)])[0];

async function timeToTrace(browser, server) {
  console.log(`\n3. Shortest stale write, the scenario to run first's settings (TTL 5 s, fencing off), aim under ${AIM_MS / 1000} s`);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await openPage(context, server.url);
    await page.getByRole("button", { name: "Set up the scenario to run first", exact: true }).click();
    for (const [i, system] of LEASED.entries()) {
      await openView(page, "Simulator");
      await chooseBackend(page, system);
      await setFencing(page, false);
      const { ms, text } = await find(page, "stale-write");
      const speed = speedOf(text);
      const worker = speed ? `${(speed.secs * 1000).toFixed(0)} ms in the worker, ${speed.states} distinct states` : "no speed in the result";
      const start = i === 0 ? " (this click also started the worker)" : "";
      const verdict = ms <= AIM_MS ? "within" : "OVER";
      console.log(`   ${system.padEnd(10)} ${ms.toFixed(0).padStart(6)} ms click to result, ${verdict} the aim${start}; ${worker}; ${verdictOf(text)}`);
    }
  } finally {
    await context.close();
  }
}

async function statesPerSecond(browser, server) {
  console.log("\n2. Distinct states per second in the page's worker: etcd, fencing on, tokens never decrease, up to 8 moves");
  if (args["skip-proof"]) {
    console.log("   not measured (--skip-proof)");
    return;
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await openPage(context, server.url);
    await chooseBackend(page, "etcd");
    await setFencing(page, true);
    // A first search starts the worker, so the one measured does not.
    await find(page, "stale-write");
    await page.evaluate(() => {
      window.__longestFrameGapMs = 0;
      window.__framesSeen = true;
      let last = performance.now();
      const tick = (now) => {
        window.__longestFrameGapMs = Math.max(window.__longestFrameGapMs, now - last);
        last = now;
        if (window.__framesSeen) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const { ms, text } = await find(page, "token-order");
    const gap = await page.evaluate(() => {
      window.__framesSeen = false;
      return window.__longestFrameGapMs;
    });
    const speed = speedOf(text);
    console.log(`   ${verdictOf(text)}`);
    if (speed) {
      // The search deepens one move at a time, each pass counting its own
      // states: the page's figure adds up the eight passes' counts. The
      // states within 8 moves, each counted once, are the bound's count;
      // both over the same search's time (the figure set against the aim
      // is the first, as `cargo bench --bench finder` prints it).
      const bound = text.match(/Searched everything up to depth 8 \(([\d,]+) distinct states at the last depth\)/);
      if (bound) {
        const once = Number(bound[1].replace(/,/g, ""));
        console.log(`   ${Math.round(once / speed.secs).toLocaleString("en")} distinct states per second: ${once.toLocaleString("en")} states within 8 moves, each once, in ${speed.secs.toFixed(2)} s`);
      }
      console.log(`   ${speed.rate.toLocaleString("en")} a second counting each pass's own, as the page says: ${speed.states.toLocaleString("en")} over the 8 passes`);
    }
    console.log(`   ${(ms / 1000).toFixed(2)} s from the click to the result; the longest gap between the page's frames meanwhile: ${gap.toFixed(0)} ms`);
  } finally {
    await context.close();
  }
}

await sizes();
const server = await startServer(args.dist);
const browser = await launchBrowser();
try {
  await statesPerSecond(browser, server);
  await timeToTrace(browser, server);
} finally {
  await browser.close();
  await server.close();
}
