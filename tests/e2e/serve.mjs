// A tiny static file server for the release build in dist/, so the browser
// tests and the budget script load the page exactly as a static host would.
// It listens on 127.0.0.1 on a free port chosen by the OS.
//
// Run it by hand with `node tests/e2e/serve.mjs [dir] [port]`.

import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

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

/**
 * Serves `dir` (default: dist/ at the repository root) and resolves to
 * `{ url, origin, close }` once listening.
 */
export async function startServer(dir = "dist", port = 0) {
  const root = resolve(dir);
  await stat(join(root, "index.html")).catch(() => {
    throw new Error(`${join(root, "index.html")} is missing: run \`trunk build --release --offline\` first`);
  });

  const server = createServer(async (req, res) => {
    const { pathname } = new URL(req.url, "http://localhost");
    const file = await fileFor(root, pathname);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    if (file === null) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const body = await readFile(file);
    res.writeHead(200, {
      "Content-Type": MIME_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
      "Content-Length": body.length,
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      // In an iframe with sandbox="allow-scripts" the page has an opaque
      // origin: its own script and wasm arrive as cross-origin requests.
      "Access-Control-Allow-Origin": "*",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });

  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", ok);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    url: `${origin}/`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir = "dist", port = "0"] = process.argv.slice(2);
  const { url } = await startServer(dir, Number(port));
  console.log(`serving ${resolve(dir)} on ${url}`);
}
