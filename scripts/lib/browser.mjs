// Starts the system Chromium through playwright-core and records everything
// the page should never do: console errors and warnings, uncaught
// exceptions, failed or 4xx/5xx loads, and requests that leave the page's
// own origin.

import { chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

// Quiet, reproducible headless runs: no GPU, no background traffic of
// Chromium's own (updates, sync, QUIC probing) that would blur the
// off-origin check or the timings.
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/**
 * Launches headless Chromium. Playwright gives every launch a fresh,
 * temporary user data directory, and every `browser.newContext()` an empty
 * cache and storage, so each load starts cold.
 */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
}

/** URLs that never touch the network (inline icons, object URLs). */
function isLocalScheme(url) {
  return /^(data|blob|about|chrome-error):/i.test(url);
}

/**
 * Records problems seen by every page of `context` into `problems` (an
 * array of strings) and returns it. `origin` is the only origin the page
 * may talk to.
 */
export function recordProblems(context, origin, problems = []) {
  context.on("console", (msg) => {
    const type = msg.type();
    if (type !== "error" && type !== "warning") return;
    const where = msg.location()?.url ? ` (${msg.location().url}:${msg.location().lineNumber})` : "";
    problems.push(`console ${type}: ${msg.text()}${where}`);
  });
  context.on("weberror", (err) => problems.push(`uncaught exception: ${err.error().message}`));
  context.on("request", (req) => {
    const url = req.url();
    if (isLocalScheme(url)) return;
    if (new URL(url).origin !== origin) problems.push(`off-origin request: ${req.method()} ${url}`);
  });
  context.on("requestfailed", (req) => {
    // Closing a page or navigating away cancels loads; that is not a fault.
    if (isLocalScheme(req.url()) || req.failure()?.errorText === "net::ERR_ABORTED") return;
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText ?? "unknown"})`);
  });
  context.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  return problems;
}

// The static server the tests and scripts serve the build with, from this
// one module as well: what drives the page in Chromium comes from here.
export { encodingFor, startServer } from "./serve.mjs";
