// The page served compressed, as `bash scripts/build/serve.sh` serves it and as
// a static host should (docs/budgets.md): brotli to a browser that accepts
// it, else gzip, else the file as it is; and the page loads and runs from
// the compressed files in headless Chromium.
//
// Run: `trunk build --release --offline && node --test tests/e2e/serve.test.mjs`

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { get } from "node:http";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

import { encodingFor, launchBrowser, recordProblems, startServer } from "../../scripts/lib/browser.mjs";
import { openPage, statusText } from "./ui.mjs";

const DIST = process.env.DIST_DIR || "dist";
let server;
let browser;
before(async () => {
  server = await startServer(DIST, 0, { compress: true });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** One GET with the given Accept-Encoding: status, headers and the bytes as sent. */
function fetchRaw(path, acceptEncoding) {
  const headers = acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding };
  return new Promise((ok, fail) => {
    get(`${server.origin}${path}`, { headers }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", fail);
    }).on("error", fail);
  });
}

const pageWasm = async () => (await readdir(DIST)).find((name) => /^distlock-[0-9a-f]+_bg\.wasm$/.test(name));

test("the encoding follows the browser's Accept-Encoding: brotli, else gzip, else none", () => {
  assert.equal(encodingFor("gzip, deflate, br, zstd"), "br");
  assert.equal(encodingFor("gzip, deflate"), "gzip");
  assert.equal(encodingFor("br;q=0, gzip;q=0.5"), "gzip");
  assert.equal(encodingFor("BR"), "br");
  assert.equal(encodingFor("identity"), null);
  assert.equal(encodingFor(""), null);
  assert.equal(encodingFor(undefined), null);
});

test("the wasm and the HTML arrive compressed, and unpack to the very files of the build", async () => {
  const wasm = await pageWasm();
  assert.ok(wasm, `no page wasm in ${DIST}`);
  const raw = await readFile(join(DIST, wasm));
  const br = await fetchRaw(`/${wasm}`, "gzip, deflate, br");
  assert.equal(br.status, 200);
  assert.equal(br.headers["content-encoding"], "br");
  assert.equal(br.headers["content-type"], "application/wasm");
  assert.equal(br.headers.vary, "Accept-Encoding");
  assert.equal(Number(br.headers["content-length"]), br.body.length);
  assert.ok(br.body.length < raw.length / 2, `brotli sent ${br.body.length} of ${raw.length} bytes`);
  assert.deepEqual(brotliDecompressSync(br.body), raw);

  const gz = await fetchRaw(`/${wasm}`, "gzip");
  assert.equal(gz.headers["content-encoding"], "gzip");
  assert.deepEqual(gunzipSync(gz.body), raw);

  const html = await fetchRaw("/", "br");
  assert.equal(html.headers["content-encoding"], "br");
  assert.deepEqual(brotliDecompressSync(html.body), await readFile(join(DIST, "index.html")));
});

test("a client that accepts no encoding gets the file as it is", async () => {
  const wasm = await pageWasm();
  const plain = await fetchRaw(`/${wasm}`);
  assert.equal(plain.headers["content-encoding"], undefined);
  assert.deepEqual(plain.body, await readFile(join(DIST, wasm)));
  const missing = await fetchRaw("/no-such-file.wasm", "br");
  assert.equal(missing.status, 404);
});

test("the page loads and runs from the compressed files", { timeout: 120_000 }, async (t) => {
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  t.after(() => context.close());
  recordProblems(context, server.origin, problems);
  const encodings = new Map();
  context.on("response", async (response) => {
    const name = new URL(response.url()).pathname;
    encodings.set(name, (await response.allHeaders())["content-encoding"]);
  });
  const page = await openPage(context, server.url);
  assert.match(await statusText(page), /t=0(\.0)? s/);
  const wasm = await pageWasm();
  assert.equal(encodings.get(`/${wasm}`), "br", `the wasm came as ${encodings.get(`/${wasm}`)}`);
  assert.deepEqual(problems, [], problems.join("\n"));
});

test("an odd address gets an answer and the server goes on serving", async () => {
  // "//?x" once threw in the server (a path read as a host) and ended it.
  for (const [path, status] of [
    ["//?system=consul", 200],
    ["//elsewhere.example/x", 404],
    ["/%ZZ", 404],
    ["/..%2F..%2Fetc%2Fpasswd", 404],
    ["/nothing-here", 404],
  ]) {
    assert.equal((await fetchRaw(path)).status, status, path);
  }
  assert.equal((await fetchRaw("/")).status, 200);
});
