// The floor under the first load: the page's wasm kept to the functions a
// cold load really runs. V8 compiles a wasm function on its first call
// (`wasm.CompileLazy` in a trace, with its index), so a trace of one load
// says which functions drew the first screen (up to the moment the drawn-
// at-build-time screen leaves the document) and which ran by the time the
// page is idle (the timeline, the log and the panels below, drawn without a
// click). The shipped wasm with every other function's body replaced by
// `unreachable` is then packed with gzip -9; the data (the words, the
// tables) is kept whole, so this floor is the code's, not the words'.
//
//   node scripts/budgets/wasm_floor.mjs [DIST]     (default dist)
//
// On a build whose wasm is in two parts (scripts/build/split.mjs) it
// measures the first part, the one in the first load.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, startServer } from "../lib/browser.mjs";
import { functionsRun } from "../build/split.mjs";
import { gzipBytes, parseWasm, stubbedWasm } from "./wasm_parts.mjs";

const dist = process.argv[2] || "dist";
const files = readdirSync(dist);
const named = (pattern) => files.find((f) => pattern.test(f));
const wasmFile = named(/^distlock-[0-9a-f]+_bg\.wasm$/);
const rest = [named(/^distlock-[0-9a-f]+\.js$/), named(/^main-.*\.css$/), named(/^boot-.*\.js$/), "index.html"];

async function functionsRunOnce() {
  const server = await startServer(dist, 0, { compress: true });
  const browser = await launchBrowser();
  try {
    const run = await functionsRun(browser, server.url);
    if (run.first.size === 0) throw new Error("the first screen was never replaced: is DIST a release build?");
    return run;
  } finally {
    await browser.close();
    await server.close();
  }
}

const wasm = readFileSync(join(dist, wasmFile));
const parts = parseWasm(wasm);
const { first, idle } = await functionsRunOnce();
const others = (kept) => new Set(parts.bodies.map((b) => b.index).filter((i) => !kept.has(i)));
const restBytes = rest.reduce((sum, f) => sum + gzipBytes(readFileSync(join(dist, f))), 0);
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const rows = [
  ["the page's wasm as shipped", parts.bodies.length, gzipBytes(wasm)],
  ["only what runs by the time the page is idle, no click", idle.size, gzipBytes(stubbedWasm(wasm, parts, others(idle)))],
  ["only what draws the first screen", first.size, gzipBytes(stubbedWasm(wasm, parts, others(first)))],
  ["no code at all (the data and sections alone)", 0, gzipBytes(stubbedWasm(wasm, parts, others(new Set())))],
];
console.log(`The rest of the first load (glue, stylesheet, boot script, index.html): ${kib(restBytes)} gzip -9.\n`);
console.log("| the page's wasm, data kept whole | functions | wasm, gzip -9 | first load, gzip -9 |");
console.log("|---|---:|---:|---:|");
for (const [what, count, bytes] of rows) {
  console.log(`| ${what} | ${count} | ${kib(bytes)} | ${kib(bytes + restBytes)} |`);
}
