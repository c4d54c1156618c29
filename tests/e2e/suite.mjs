// What every browser suite sets up: the release build served on a free
// port, one headless Chromium, and fresh contexts that record what the page
// did wrong (console errors and warnings, failed or off-origin requests).

import { after, before } from "node:test";

import { launchBrowser, recordProblems, startServer } from "../../scripts/lib/browser.mjs";
import { openPage } from "./ui.mjs";

/**
 * Registers the suite's `before` and `after` hooks and returns the suite:
 * `server` and `browser` once started, the `problems` seen by every context
 * made with `context`, and `page` for a fresh context with the page loaded.
 */
export function browserSuite() {
  const suite = {
    server: null,
    browser: null,
    /** Everything the pages did wrong during the suite. */
    problems: [],
    /** A fresh context (empty cache and storage), closed when `t` ends. */
    async context(t, options = {}, problems = suite.problems) {
      const context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
      recordProblems(context, suite.server.origin, problems);
      t.after(() => context.close());
      return context;
    },
    /** A fresh context and the page loaded at `path` (query and fragment). */
    async page(t, path = "", options = {}) {
      return openPage(await suite.context(t, options), `${suite.server.url}${path}`);
    },
  };
  before(async () => {
    suite.server = await startServer(process.env.DIST_DIR || "dist");
    suite.browser = await launchBrowser();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}
