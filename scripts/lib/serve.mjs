// A tiny static file server for the release build in dist/, so the browser
// tests and the budget script load the page exactly as a static host would.
// It listens on 127.0.0.1 on a free port chosen by the OS.
//
// With `compress`, it sends text and wasm brotli- or gzip-compressed to a
// browser that accepts it, as GitHub Pages, Netlify and Cloudflare do: the
// page's wasm is a third of its size in brotli. `bash scripts/build/serve.sh`
// serves the page that way; the tests leave it off unless they test it.
//
// Run it by hand with `node scripts/lib/serve.mjs [dir] [port] [--compress]
// [--address ADDRESS]`.

import { createServer } from "node:http";
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";

const MIME_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json",
  ".webmanifest": "application/manifest+json",
};

/** Resolves a request path inside `root`, or returns null if it escapes. */
function resolveInside(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const file = resolve(join(root, decoded));
  if (file !== root && !file.startsWith(root + sep)) return null;
  return file;
}

async function fileFor(root, urlPath) {
  const file = resolveInside(root, urlPath);
  if (file === null) return null;
  try {
    const info = await stat(file);
    if (info.isDirectory()) return fileFor(root, join(urlPath, "index.html"));
    return info.isFile() ? file : null;
  } catch {
    return null;
  }
}

/** Every file under `dir`. */
async function listFiles(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await listFiles(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** The files worth compressing: text, and wasm (images are packed already). */
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".wasm", ".json", ".svg", ".txt", ".map", ".webmanifest"]);

const PACKERS = {
  br: (body) => promisify(brotliCompress)(body, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
  }),
  gzip: (body) => promisify(gzip)(body, { level: 9 }),
};

/**
 * The encoding to send for an Accept-Encoding header: brotli, else gzip,
 * else none. An encoding the browser lists with q=0 is one it refuses.
 */
export function encodingFor(acceptEncoding = "") {
  const accepted = new Set();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name.trim());
  }
  return ["br", "gzip"].find((name) => accepted.has(name)) ?? null;
}

/**
 * Compressed copies of files, made once per file version (its path, size
 * and modification time), so a rebuild is served fresh and a file asked
 * for twice is packed once; brotli at its highest quality takes a second
 * or two for the wasm.
 */
function packedCache() {
  const packed = new Map();
  return (file, info, body, encoding) => {
    const key = `${encoding}\0${file}`;
    const version = `${info.size}:${info.mtimeMs}`;
    const hit = packed.get(key);
    if (hit?.version === version) return hit.body;
    const entry = { version, body: PACKERS[encoding](body) };
    packed.set(key, entry);
    entry.body.catch(() => packed.delete(key));
    return entry.body;
  };
}

/**
 * Serves `dir` (default: dist/ at the repository root) and resolves to
 * `{ url, origin, close }` once listening.
 */
export async function startServer(dir = "dist", port = 0, { compress = false, address = "127.0.0.1" } = {}) {
  const root = resolve(dir);
  const packed = packedCache();
  await stat(join(root, "index.html")).catch(() => {
    throw new Error(`${join(root, "index.html")} is missing: run \`trunk build --release --offline\` first`);
  });

  const answer = async (req, res) => {
    // The path as sent, up to its query: `new URL` with a base reads a path
    // that starts with "//" as a host, and threw on "//?x", which ended the
    // server.
    const pathname = req.url.split(/[?#]/, 1)[0] || "/";
    const file = await fileFor(root, pathname);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    if (file === null) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const info = await stat(file);
    let body = await readFile(file);
    const packing = {};
    const kind = extname(file).toLowerCase();
    if (compress && COMPRESSIBLE.has(kind)) {
      // The same address answers differently by the request's header.
      packing.Vary = "Accept-Encoding";
      const encoding = encodingFor(req.headers["accept-encoding"]);
      if (encoding !== null) {
        body = await packed(file, info, body, encoding);
        packing["Content-Encoding"] = encoding;
      }
    }
    res.writeHead(200, {
      "Content-Type": MIME_TYPES[kind] ?? "application/octet-stream",
      "Content-Length": body.length,
      ...packing,
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      // In an iframe with sandbox="allow-scripts" the page has an opaque
      // origin: its own script and wasm arrive as cross-origin requests.
      "Access-Control-Allow-Origin": "*",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  // Whatever one request meets (a file gone between its check and its
  // read), the server answers it and goes on serving.
  const server = createServer((req, res) =>
    answer(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("the server could not read that file\n");
    }),
  );

  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, address, ok);
  });
  const host = address.includes(":") ? `[${address}]` : address;
  const origin = `http://${host}:${server.address().port}`;
  return {
    origin,
    url: `${origin}/`,
    /** Packs every compressible file of `dir` now, so no first request waits for it. */
    warm: async () => {
      const files = (await listFiles(root)).filter((file) => COMPRESSIBLE.has(extname(file).toLowerCase()));
      for (const file of files) {
        const info = await stat(file);
        const body = await readFile(file);
        for (const encoding of Object.keys(PACKERS)) await packed(file, info, body, encoding);
      }
      return files.length;
    },
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { compress: { type: "boolean", default: false }, address: { type: "string", default: "127.0.0.1" } },
  });
  const [dir = "dist", port = "0"] = positionals;
  const { url, warm } = await startServer(dir, Number(port), { compress: values.compress, address: values.address });
  console.log(`serving ${resolve(dir)} on ${url}${values.compress ? " (brotli or gzip, as the browser accepts)" : ""}`);
  if (values.compress) console.log(`packed ${await warm()} files ahead of their first request`);
}
