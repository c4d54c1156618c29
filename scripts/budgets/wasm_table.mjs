// Groups the items of a wasm with names (twiggy's CSV, `twiggy top -n
// 1000000 --format csv`) by crate and by module, and prints them as Markdown
// tables (docs/budgets.md, "What the page's wasm holds", says how to read
// them). scripts/budgets/wasm_table.sh makes the wasm and calls this; by hand:
//
//   node scripts/budgets/wasm_table.mjs TOP.csv [--top 25] [--wasm shipped.wasm]
//       [--named named.wasm] [--src src]
//
// With --named (the same wasm with its names, of which --wasm is the copy
// without them), each row has a gzip column: the gzip -9 bytes the shipped
// file loses when that row's functions are stubbed out (wasm_parts.mjs),
// or its data zeroed. Packed beside each other, rows share words and
// patterns, so the column adds up to less than the file.
//
// An item is a function (its Rust path, demangled), a data segment, or a
// section. A function is counted for the crate and module of the type its
// impl is for (`<distlock::ui::state::AppState as yew::..::Reducible>::reduce`
// is distlock::ui::state's), else of its own path. Generic code is counted
// where it was instantiated from only as far as its name says: yew's
// `CompStateInner<COMP>::view` holds the page's components' view functions,
// which LLVM inlined into it, so it stands in yew's row under its own name.

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { parseArgs } from "node:util";
import { gzipBytes, parseWasm, stubbedWasm } from "./wasm_parts.mjs";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: "string", default: "25" },
    wasm: { type: "string" },
    named: { type: "string" },
    src: { type: "string" },
  },
});
if (positionals.length !== 1) {
  console.error("usage: node scripts/budgets/wasm_table.mjs TOP.csv [--top N] [--wasm shipped.wasm [--src src]]");
  process.exit(2);
}

/** twiggy's CSV: Name,ShallowSize,... with quoted names. */
function readRows(path) {
  const rows = [];
  for (const line of readFileSync(path, "utf8").split("\n").slice(1)) {
    if (!line) continue;
    const match = line.match(/^("(?:[^"]|"")*"|[^,]*),(\d+),/);
    if (!match) continue;
    let name = match[1];
    if (name.startsWith('"')) name = name.slice(1, -1).replaceAll('""', '"');
    rows.push({ name: tidy(name), bytes: Number(match[2]) });
  }
  return rows;
}

/** Drops the hashes rustc adds to symbols and to crate names (v0 names). */
const tidy = (name) => name.replace(/::h[0-9a-f]{16}$/, "").replace(/\[[0-9a-f]{1,16}\]/g, "");

/** The Rust path an item is counted under, or null for a non-function. */
function pathOf(name) {
  if (name.startsWith("data segment") || name.startsWith("data[")) return null;
  if (/^(custom section|"?function names|type\[|import |export |elem|table|global|memory|code\[)/.test(name)) return null;
  let path = name;
  // `<A as B>::f` and `<impl X for A>`: A, the self type.
  const impl = path.match(/^<(?:impl [^ ]+ for )?&?(?:mut )?(?:dyn )?([^<> ]+)/);
  if (impl) path = impl[1];
  return path.replace(/^&/, "");
}

const PRIMITIVES = /^(char|str|bool|[ui](8|16|32|64|128|size)|f32|f64)$/;
const KIND_DATA = "data: strings and tables (.rodata)";
const KIND_OTHER = "sections: names, types, imports, exports, tables";

function crateOf(name) {
  if (name.startsWith("data segment") || name.startsWith("data[")) return KIND_DATA;
  const path = pathOf(name);
  if (path === null) return KIND_OTHER;
  const crate = path.split("::")[0];
  // Rust's library: core, alloc, std, the allocator, and impls for primitives.
  if (PRIMITIVES.test(crate) || crate.startsWith("__rustc")) return "core (Rust's library)";
  if (["core", "alloc", "std", "dlmalloc", "compiler_builtins", "memchr"].includes(crate)) return `${crate} (Rust's library)`;
  if (crate === "main") return "distlock";
  // The page's components: LLVM inlined their `view` into yew's generic
  // (v0 names spell out its type argument).
  if (crate === "yew" && /CompStateInner<.*> as [^>]*Stateful>::view$/.test(name)) return "yew: the page's components' views (inlined)";
  if (/^[a-z_][a-z0-9_]*$/.test(crate)) return crate;
  return "(unnamed: glue and closures)";
}

/** distlock's module: two levels, three under backend/ and service_panel/. */
function moduleOf(name) {
  const path = pathOf(name);
  if (path === null || !path.startsWith("distlock::")) return null;
  const parts = path.split("::");
  const deep = ["backend", "service_panel", "browser"].includes(parts[2]) ? 4 : 3;
  return parts
    .slice(0, deep)
    .filter((p) => /^[a-z_][a-z0-9_]*$/.test(p))
    .join("::");
}

const rows = readRows(positionals[0]).filter((r) => !/function names|"name" section|^custom section 'name'/.test(r.name));
const total = rows.reduce((sum, r) => sum + r.bytes, 0);
const kb = (bytes) => (bytes / 1000).toFixed(1);
const pct = (bytes) => `${((100 * bytes) / total).toFixed(1)}%`;

/**
 * The gzip -9 bytes each group's functions cost the shipped wasm, by
 * stubbing them out (and zeroing the data for the data row); null without
 * --named.
 */
function gzipCosts(keyOf) {
  if (!args.named || !args.wasm) return null;
  const shipped = readFileSync(args.wasm);
  const parts = parseWasm(shipped);
  const named = parseWasm(readFileSync(args.named));
  if (named.bodies.length !== parts.bodies.length || named.funcImports !== parts.funcImports) {
    throw new Error("--named and --wasm are not the same module");
  }
  const names = [...named.names].filter(([index]) => index >= parts.funcImports);
  const whole = gzipBytes(shipped);
  const groups = new Map();
  for (const [index, name] of names) {
    const key = keyOf(tidy(name));
    if (key === null) continue;
    if (!groups.has(key)) groups.set(key, new Set());
    groups.get(key).add(index);
  }
  const costs = new Map();
  for (const [key, indices] of groups) costs.set(key, whole - gzipBytes(stubbedWasm(shipped, parts, indices)));
  if (keyOf(KIND_DATA_NAME) === KIND_DATA) {
    costs.set(KIND_DATA, whole - gzipBytes(stubbedWasm(shipped, parts, new Set(), { zeroData: true })));
  }
  return costs;
}
const KIND_DATA_NAME = "data segment";

function table(title, keyOf, limit) {
  const gzip = gzipCosts(keyOf);
  const sums = new Map();
  for (const row of rows) {
    const key = keyOf(row.name);
    if (key === null) continue;
    const entry = sums.get(key) ?? { bytes: 0, items: 0 };
    entry.bytes += row.bytes;
    entry.items += 1;
    sums.set(key, entry);
  }
  const sorted = [...sums].sort((a, b) => b[1].bytes - a[1].bytes);
  console.log(`\n### ${title}\n`);
  const gz = (key) => (gzip ? ` ${gzip.has(key) ? kb(gzip.get(key)) : ""} |` : "");
  console.log(`| | KB | share | items |${gzip ? " KB gzip -9 |" : ""}`);
  console.log(`|---|---:|---:|---:|${gzip ? "---:|" : ""}`);
  for (const [key, { bytes, items }] of sorted.slice(0, limit)) {
    console.log(`| ${key.replaceAll("|", "\\|")} | ${kb(bytes)} | ${pct(bytes)} | ${items} |${gz(key)}`);
  }
  const rest = sorted.slice(limit);
  if (rest.length > 0) {
    const bytes = rest.reduce((sum, [, e]) => sum + e.bytes, 0);
    console.log(`| ${rest.length} more | ${kb(bytes)} | ${pct(bytes)} | |${gzip ? " |" : ""}`);
  }
}

console.log(`The page's wasm after wasm-opt, names kept and then left out of the count: ${kb(total)} KB raw.`);
if (args.wasm) {
  const shipped = readFileSync(args.wasm);
  console.log(`The shipped file: ${kb(shipped.length)} KB raw, ${kb(gzipSync(shipped, { level: 9 }).length)} KB gzip -9.`);
}
table("By crate (raw bytes)", crateOf, 30);
table("distlock by module (raw bytes)", moduleOf, 40);
const limit = Number(args.top);
console.log(`\n### The ${limit} largest items\n`);
console.log("| item | bytes |");
console.log("|---|---:|");
for (const row of [...rows].sort((a, b) => b.bytes - a.bytes).slice(0, limit)) {
  const name = row.name.length > 110 ? `${row.name.slice(0, 107)}...` : row.name;
  console.log(`| \`${name.replaceAll("|", "\\|").replaceAll("`", "'")}\` | ${row.bytes} |`);
}

/** Every .rs file under `dir`. */
function rustFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return rustFiles(path);
    return entry.name.endsWith(".rs") ? [path] : [];
  });
}

/**
 * The words: each source file's string literals of 24 characters or more
 * that the shipped wasm holds (found by their text), summed per file. A
 * literal with `{}` is cut at its first placeholder, as format! stores it.
 */
function wordsBySource(wasm, srcDir) {
  const data = wasm.toString("latin1");
  const sums = [];
  for (const file of rustFiles(srcDir)) {
    const text = readFileSync(file, "utf8").replace(/^\s*\/\/.*$/gm, "");
    let bytes = 0;
    let count = 0;
    for (const [, body] of text.matchAll(/(?<![A-Za-z0-9_'])"((?:[^"\\]|\\.)*)"/gs)) {
      const literal = body.replace(/\\\n\s*/g, "").replace(/\\"/g, '"').replace(/\\\\/g, "\\").replace(/\\n/g, "\n");
      for (const piece of literal.split(/\{[^{}]*\}/)) {
        if (piece.length < 24) continue;
        if (!data.includes(Buffer.from(piece, "utf8").toString("latin1"))) continue;
        bytes += Buffer.byteLength(piece);
        count += 1;
      }
    }
    if (bytes > 0) sums.push([file, bytes, count]);
  }
  sums.sort((a, b) => b[1] - a[1]);
  const total = sums.reduce((sum, [, bytes]) => sum + bytes, 0);
  console.log(`\n### Words in the page's wasm by source file\n`);
  console.log(`String literals of 24 characters or more found in the shipped wasm: ${kb(total)} KB in all.\n`);
  console.log("| file | KB | literals |");
  console.log("|---|---:|---:|");
  for (const [file, bytes, count] of sums.slice(0, 30)) console.log(`| ${file} | ${kb(bytes)} | ${count} |`);
  const rest = sums.slice(30);
  if (rest.length > 0) console.log(`| ${rest.length} more | ${kb(rest.reduce((sum, [, b]) => sum + b, 0))} | |`);
}

if (args.wasm && args.src) wordsBySource(readFileSync(args.wasm), args.src);
