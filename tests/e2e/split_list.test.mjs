// What stays in the first part of the page's wasm is a committed list of
// function names (split/first-part.txt), written from traces of cold loads
// and read by the build. Code changes, the list does not follow by itself:
// this traces the cold loads again on the release build, as the list's own
// trace does (the whole wasm the build split, served in the first part's
// place), and fails, naming them, if the build moved a function they run
// to the second part. The page still works then (the rest is loaded when
// first needed), only its start is slower.
//
// Run: `trunk build --release --offline && node --test tests/e2e/split_list.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { coldLoadsOfBuild, LIST, REGENERATE } from "../../scripts/build/split.mjs";

const DIST = process.env.DIST_DIR || "dist";
const TEST_TIMEOUT_MS = 180_000;
/** How many drifted names the failure prints. */
const SHOWN = 40;

/** The custom sections' names of the wasm module `bytes`. */
function customSections(bytes) {
  const names = [];
  let at = 8;
  const leb = () => {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++];
      n += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return n;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const end = leb() + at;
    if (id === 0) {
      const length = leb();
      names.push(bytes.toString("utf8", at, at + length));
    }
    at = end;
  }
  return names;
}

test("the page's wasm ships without the names the split reads", () => {
  const wasm = readdirSync(DIST).filter((f) => /^distlock-[0-9a-f]+_(bg|split)\.wasm$/.test(f));
  assert.equal(wasm.length, 2, `the page's wasm in two parts in ${DIST}: ${wasm.join(", ")}`);
  for (const file of wasm) {
    assert.ok(!customSections(readFileSync(join(DIST, file))).includes("name"), `${file} has a name section`);
  }
});

test("split/first-part.txt is one name a line, sorted, each once", () => {
  const names = readFileSync(LIST, "utf8").split("\n").filter((line) => line && !line.startsWith("#"));
  assert.ok(names.length > 0, `${LIST} names no function`);
  const sorted = [...new Set(names)].sort();
  assert.deepEqual(names, sorted, `${LIST} is not sorted, or names a function twice: \`${REGENERATE}\` writes it`);
});

test("a cold load of the page runs no function of the second part", { timeout: TEST_TIMEOUT_MS }, async () => {
  const { run, names, moved } = await coldLoadsOfBuild(DIST);
  const drifted = [...new Set([...run].filter((i) => moved.has(i)).map((i) => names.get(i) ?? `function ${i}, which has no name`))].sort();
  const shown = drifted.slice(0, SHOWN).map((name) => `  ${name}`);
  if (drifted.length > SHOWN) shown.push(`  … and ${drifted.length - SHOWN} more`);
  assert.deepEqual(
    drifted,
    [],
    `a cold load runs ${drifted.length} functions the build moved to the second part, which the page then loads ` +
      `before it can go on: split/first-part.txt no longer matches the code. Write it again with \`${REGENERATE}\` ` +
      `(it builds the page, traces it and builds it again), and commit it.\n${shown.join("\n")}`,
  );
});
