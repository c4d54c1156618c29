// Splits the release page's wasm in two (split/, a native tool): the
// functions a cold load runs before any click stay in the page's wasm, the
// rest move to `<name>_split.wasm`, which the page fetches as soon as its
// wasm has started (assets/boot.js), so a click finds it in. Should a
// visitor reach moved code sooner, the page's wasm loads the rest at once,
// synchronously: slower for that one moment, never wrong.
//
// Which functions run is measured, not guessed: V8 compiles a wasm function
// on its first call (`wasm.CompileLazy` in a trace, with its index), so
// cold loads of the built page in headless Chromium, traced until the page
// is idle, name them (COLD_LOADS).
//
//   node scripts/build/split.mjs DIST
//
// Trunk's last post-build hook runs it on release builds (split.sh). The
// first load it takes away is in docs/budgets.md.

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { launchBrowser, startServer } from "../lib/browser.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOOL = join(ROOT, "split/target/release/distlock-split");

/**
 * The loads traced: the plain page, at a phone's width and a desktop's. A
 * page opened on a story, an embed or a shared run fetches the rest beside
 * the first part (assets/boot.js), so what only those run moves too.
 */
export const COLD_LOADS = [
  { width: 412, height: 823, path: "/" },
  { width: 1280, height: 900, path: "/" },
];

/** Marks the moment the first screen drawn at build time leaves the page. */
function markSwap() {
  new MutationObserver((_, observer) => {
    if (document.getElementById("distlock-first") === null && document.querySelector(".page")) {
      performance.mark("distlock-first-replaced");
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
}

/**
 * The wasm functions one cold load of `url` runs, by index: `first`, those
 * that drew the first screen (up to the moment the screen drawn at build
 * time leaves the document), and `idle`, all that ran by the time the page
 * is idle (the timeline, the log and the panels below drawn, no click).
 */
export async function functionsRun(browser, url, viewport = { width: 412, height: 823 }) {
  const context = await browser.newContext({ viewport });
  try {
    const page = await context.newPage();
    await page.addInitScript(markSwap);
    const cdp = await context.newCDPSession(page);
    const events = [];
    cdp.on("Tracing.dataCollected", ({ value }) => events.push(...value));
    const done = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
    await cdp.send("Tracing.start", { categories: "v8.wasm,blink.user_timing", transferMode: "ReportEvents" });
    await page.goto(url);
    await page.waitForSelector(".timeline", { timeout: 60000 });
    await page.waitForTimeout(2000);
    await cdp.send("Tracing.end");
    await done;
    const swap = events.find((e) => e.name === "distlock-first-replaced");
    const lazy = events.filter((e) => e.name === "wasm.CompileLazy");
    return {
      first: new Set(lazy.filter((e) => swap && e.ts <= swap.ts).map((e) => e.args.func_index)),
      idle: new Set(lazy.map((e) => e.args.func_index)),
    };
  } finally {
    await context.close();
  }
}

/** Every function index the cold loads of COLD_LOADS run, served from `dist`. */
async function functionsRunByColdLoads(dist) {
  const server = await startServer(dist, 0, { compress: true });
  const browser = await launchBrowser();
  const run = new Set();
  try {
    for (const { width, height, path } of COLD_LOADS) {
      const { idle } = await functionsRun(browser, server.url + path.slice(1), { width, height });
      for (const index of idle) run.add(index);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return run;
}

/**
 * The glue answers the wasm's `__distlock_split` import (split/src/main.rs)
 * by asking the boot script to load the rest now, with the module's exports.
 * The glue is minified: its exports' variable is found by where the glue
 * sets it, once.
 */
function patchGlue(glue) {
  const sets = [...glue.matchAll(/\b([A-Za-z_$][\w$]*)=[A-Za-z_$][\w$]*\.exports\b/g)];
  const opens = glue.split("{__proto__:null,").length - 1;
  if (sets.length !== 1 || opens < 1) {
    throw new Error(`the glue does not read as expected (${sets.length} exports set, ${opens} import objects)`);
  }
  const wasm = sets[0][1];
  return glue.replace("{__proto__:null,", `{__proto__:null,__distlock_split:()=>globalThis.__distlockSplit(${wasm}),`);
}

async function split(dist) {
  const files = readdirSync(dist);
  const wasmName = files.find((f) => /^distlock-[0-9a-f]+_bg\.wasm$/.test(f));
  const glueName = files.find((f) => /^distlock-[0-9a-f]+\.js$/.test(f));
  if (!wasmName || !glueName) throw new Error(`no page wasm and glue in ${dist}`);
  const wasm = join(dist, wasmName);
  const rest = join(dist, wasmName.replace(/_bg\.wasm$/, "_split.wasm"));
  if (!existsSync(TOOL)) throw new Error(`${TOOL} is not built (scripts/build/split.sh builds it)`);
  const run = await functionsRunByColdLoads(dist);
  if (run.size === 0) throw new Error("the traced loads ran no wasm function: is DIST a release build?");
  const keep = join(dist, "split-keep.txt");
  writeFileSync(keep, [...run].sort((a, b) => a - b).join("\n") + "\n");
  try {
    execFileSync(TOOL, [wasm, keep, `${wasm}.first`, rest], { stdio: "inherit" });
  } finally {
    rmSync(keep, { force: true });
  }
  const glue = join(dist, glueName);
  writeFileSync(glue, patchGlue(readFileSync(glue, "utf8")));
  renameSync(`${wasm}.first`, wasm);
  // The boot script learns the rest's name from the page's boot block.
  const page = join(dist, "index.html");
  const html = readFileSync(page, "utf8");
  const boot = /("wasm"\s*:\s*")([^"]*)_bg\.wasm"/;
  if (!boot.test(html)) throw new Error("index.html has no boot block naming the wasm");
  writeFileSync(page, html.replace(boot, (all, key, stem) => `${all},"rest":"${stem}_split.wasm"`));
  const kib = (file) => `${(readFileSync(file).length / 1024).toFixed(1)} KiB`;
  console.log(`split: ${run.size} functions run by ${COLD_LOADS.length} cold loads; ${wasmName} ${kib(wasm)}, the rest ${kib(rest)} (raw)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = process.argv[2];
  if (!dist) {
    console.error("usage: node scripts/build/split.mjs DIST");
    process.exit(2);
  }
  await split(dist);
}
