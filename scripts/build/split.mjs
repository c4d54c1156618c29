// Splits the release page's wasm in two (split/, a native tool): the
// functions a cold load runs before any click stay in the page's wasm, the
// rest move to `<name>_split.wasm`, which the page fetches as soon as its
// wasm has started (assets/boot.js), so a click finds it in. Should a
// visitor reach moved code sooner, the page's wasm loads the rest at once,
// synchronously: slower for that one moment, never wrong.
//
// What stays is a committed file, split/first-part.txt: the functions' names
// (demangled, spelling out a generic function's type arguments, without
// what changes from one build to the next: split/src/names.rs), one a line,
// sorted, reviewed in diffs as Cargo.lock is.
// The build reads it and needs no browser, so the same commit builds the
// same bytes anywhere. A function the list names that is gone is ignored
// (the build counts them); a function new since the list was written moves
// (it is then loaded on demand, and tests/e2e/split_list.test.mjs says so if
// a cold load runs it).
//
// The list is measured, not guessed: V8 compiles a wasm function on its
// first call (`wasm.CompileLazy` in a trace, with its index), so cold loads
// of the built page in headless Chromium, traced until the page is idle,
// name them (COLD_LOADS). The page's wasm keeps its name section through the
// build (v0 symbol names in .cargo/config.toml, Cargo.toml's release profile,
// wasm-opt's `-g` in index.html) up to this step, which drops it; every
// release build keeps the whole wasm and what moved in target/split/,
// outside dist/, for the trace and the test.
//
//   node scripts/build/split.mjs DIST      Trunk's last post-build step (split.sh)
//   node scripts/build/split.mjs --trace   builds the page, traces its cold loads,
//                                          writes split/first-part.txt, builds again
//
// The first load it takes away is in docs/budgets.md.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { launchBrowser, startServer } from "../lib/browser.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TOOL = join(ROOT, "split/target/release/distlock-split");
/** The functions the first part keeps, by name: committed. */
export const LIST = join(ROOT, "split/first-part.txt");
/** The command that writes LIST again. */
export const REGENERATE = "node scripts/build/split.mjs --trace";
/** Each release build's whole wasm and what moved, by its first part's hash. */
const KEPT = join(ROOT, "target/split");
/** How many builds' inputs KEPT holds. */
const KEPT_BUILDS = 8;

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
 * `prepare(context)` may route the context's requests first.
 */
export async function functionsRun(browser, url, viewport = { width: 412, height: 823 }, prepare = async () => {}) {
  const context = await browser.newContext({ viewport });
  try {
    await prepare(context);
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

/** The page's wasm, its glue and the rest's file names in `dist`. */
function filesOf(dist) {
  const files = readdirSync(dist);
  const wasm = files.find((f) => /^distlock-[0-9a-f]+_bg\.wasm$/.test(f));
  const glue = files.find((f) => /^distlock-[0-9a-f]+\.js$/.test(f));
  if (!wasm || !glue) throw new Error(`no page wasm and glue in ${dist}`);
  return { wasm, glue, rest: wasm.replace(/_bg\.wasm$/, "_split.wasm") };
}

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex").slice(0, 16);

/** Each function `wasm` (a file) defines, by index: its name as LIST writes it. */
function namesOf(wasm) {
  const names = new Map();
  for (const line of execFileSync(TOOL, ["names", wasm], { encoding: "utf8", maxBuffer: 64 << 20 }).split("\n")) {
    const [index, name] = line.split("\t");
    if (name) names.set(Number(index), name);
  }
  return names;
}

/**
 * What the cold loads of COLD_LOADS run in the release build `dist`, traced
 * on the whole wasm its split started from (kept in target/split/ by the
 * build, served in the first part's place; the rest is refused): `run`, the
 * function indices run, `names`, each index's name, and `moved`, the
 * indices the build moved to the second part.
 */
export async function coldLoadsOfBuild(dist) {
  const { wasm, rest } = filesOf(dist);
  const kept = join(KEPT, sha(readFileSync(join(dist, wasm))));
  if (!existsSync(join(kept, "moved.txt"))) {
    throw new Error(`${dist}/${wasm} was not split by this clone's build (nothing in ${kept}): run \`trunk build --release\``);
  }
  const whole = readFileSync(join(kept, "whole.wasm"));
  const moved = new Set(readFileSync(join(kept, "moved.txt"), "utf8").split(/\s+/).filter(Boolean).map(Number));
  const prepare = async (context) => {
    await context.route(`**/${wasm}`, (route) => route.fulfill({ contentType: "application/wasm", body: whole }));
    await context.route(`**/${rest}`, (route) => route.abort());
  };
  const server = await startServer(dist, 0, { compress: true });
  const browser = await launchBrowser();
  const run = new Set();
  try {
    for (const { width, height, path } of COLD_LOADS) {
      const { idle } = await functionsRun(browser, server.url + path.slice(1), { width, height }, prepare);
      for (const index of idle) run.add(index);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  if (run.size === 0) throw new Error("the traced loads ran no wasm function: is DIST a release build?");
  return { run, names: namesOf(join(kept, "whole.wasm")), moved };
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

/** Keeps `whole` (the wasm before the split) and `moved` for the first part `first`. */
function keepInputs(first, whole, moved) {
  const dir = join(KEPT, sha(readFileSync(first)));
  mkdirSync(dir, { recursive: true });
  copyFileSync(whole, join(dir, "whole.wasm"));
  copyFileSync(moved, join(dir, "moved.txt"));
  const builds = readdirSync(KEPT).map((name) => ({ name, at: statSync(join(KEPT, name)).mtimeMs }));
  builds.sort((a, b) => b.at - a.at);
  for (const { name } of builds.slice(KEPT_BUILDS)) rmSync(join(KEPT, name), { recursive: true, force: true });
}

async function split(dist) {
  const names = filesOf(dist);
  const wasm = join(dist, names.wasm);
  const rest = join(dist, names.rest);
  if (!existsSync(TOOL)) throw new Error(`${TOOL} is not built (scripts/build/split.sh builds it)`);
  if (!existsSync(LIST)) throw new Error(`${LIST} is missing: \`${REGENERATE}\` writes it`);
  const scratch = mkdtempSync(join(tmpdir(), "distlock-split-"));
  try {
    const moved = join(scratch, "moved.txt");
    execFileSync(TOOL, [wasm, LIST, `${wasm}.first`, rest, moved], { stdio: "inherit" });
    keepInputs(`${wasm}.first`, wasm, moved);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const glue = join(dist, names.glue);
  writeFileSync(glue, patchGlue(readFileSync(glue, "utf8")));
  renameSync(`${wasm}.first`, wasm);
  // The boot script learns the rest's name from the page's boot block.
  const page = join(dist, "index.html");
  const html = readFileSync(page, "utf8");
  const boot = /("wasm"\s*:\s*")([^"]*)_bg\.wasm"/;
  if (!boot.test(html)) throw new Error("index.html has no boot block naming the wasm");
  writeFileSync(page, html.replace(boot, (all, key, stem) => `${all},"rest":"${stem}_split.wasm"`));
  const kib = (file) => `${(readFileSync(file).length / 1024).toFixed(1)} KiB`;
  console.log(`split: ${names.wasm} ${kib(wasm)}, the rest ${kib(rest)} (raw)`);
}

/** The names LIST gives. */
function readList() {
  if (!existsSync(LIST)) return new Set();
  return new Set(readFileSync(LIST, "utf8").split("\n").filter((line) => line && !line.startsWith("#")));
}

/** Builds the release page in dist/, as `trunk build --release --offline` does. */
function build() {
  const cargoHome = process.env.CARGO_HOME || join(homedir(), ".cargo");
  const PATH = `${join(ROOT, "node_modules/.bin")}:${join(cargoHome, "bin")}:${process.env.PATH}`;
  execFileSync("trunk", ["build", "--release", "--offline"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, PATH } });
}

/** Writes LIST from the cold loads of a fresh build, and builds again with it. */
async function trace() {
  build();
  const { run, names } = await coldLoadsOfBuild(join(ROOT, "dist"));
  const listed = new Set([...run].map((i) => names.get(i)).filter(Boolean));
  const unnamed = [...run].filter((i) => !names.has(i)).length;
  const before = readList();
  const header = [
    "# The functions a cold load of the page runs before any click, by name: they",
    "# stay in the first part of its wasm, and every other function moves to the",
    "# part fetched once the page has started (scripts/build/split.mjs). A",
    "# function binaryen made, which has no name, is listed as called from its",
    "# nearest named caller. Written by",
    `# \`${REGENERATE}\`; review it in diffs, as Cargo.lock.`,
  ];
  writeFileSync(LIST, [...header, ...[...listed].sort()].join("\n") + "\n");
  const added = [...listed].filter((n) => !before.has(n)).length;
  const removed = [...before].filter((n) => !listed.has(n)).length;
  console.log(
    `split: ${run.size} functions run by ${COLD_LOADS.length} cold loads, ${listed.size} names in ${LIST}` +
      ` (${added} added, ${removed} removed${unnamed ? `; ${unnamed} without a name move all the same` : ""})`,
  );
  if (added || removed) build();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = process.argv[2];
  if (!arg) {
    console.error("usage: node scripts/build/split.mjs DIST | --trace");
    process.exit(2);
  }
  if (arg === "--trace") await trace();
  else await split(arg);
}
