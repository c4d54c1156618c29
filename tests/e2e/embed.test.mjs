// Embedding and accessibility, in headless Chromium against the release
// build: the page inside a sandboxed iframe of another site, its height
// messages, and an axe-core audit of the default page, a story and the
// embedded layout.
//
// Run: `trunk build --release --offline && node --test tests/e2e/`

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { startServer } from "../../scripts/lib/browser.mjs";
import { browserSuite } from "./suite.mjs";
import { axeViolations, named, openPage, poll, started } from "./ui.mjs";

const TEST_TIMEOUT_MS = 90_000;

const suite = browserSuite();

/** Another site's page that embeds the simulator as the README shows. */
function hostPage(src) {
  return `<!doctype html><html lang="en"><head><title>Course notes</title><link rel="icon" href="data:,"></head><body>
<h1>Why a lock is a lease</h1>
<iframe id="sim" title="Distributed Lock Simulator" src="${src}" width="700" height="500"
  sandbox="allow-scripts" loading="lazy" style="border:0"></iframe>
<script>
  window.heights = [];
  addEventListener("message", (e) => {
    if (e.data && e.data.type === "distlock:height") {
      window.heights.push(e.data.height);
      document.getElementById("sim").style.height = e.data.height + "px";
    }
  });
</script></body></html>`;
}

test("the page runs in a sandboxed iframe of another site and tells it its height", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  // The host is another origin on this machine (browsers keep public pages
  // from framing local addresses, so a made-up public host would not do).
  const dir = await mkdtemp(join(tmpdir(), "distlock-host-"));
  await writeFile(join(dir, "index.html"), hostPage(`${suite.server.url}?preset=gc-pause&autoplay=1`));
  const host = await startServer(dir);
  t.after(async () => {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  });
  const problems = [];
  const context = await suite.context(t, { viewport: { width: 900, height: 800 } }, problems);
  const page = await context.newPage();
  await page.goto(host.url);
  const frame = page.frameLocator("#sim");
  await started(frame);
  await frame.getByRole("region", named("Client A")).waitFor();
  // Inside a frame the page embeds itself: no header, the story's tour.
  assert.equal(await frame.locator(".masthead").count(), 0, "no page header in a frame");
  await frame.getByText("A GC pause outlives the lease").first().waitFor();
  await poll(async () => /paused/i.test(await frame.getByRole("region", named("Client A")).innerText()), {
    what: "the story playing by itself (autoplay)",
  });
  const heights = await poll(async () => {
    const seen = await page.evaluate(() => window.heights);
    return seen.length > 0 && seen;
  }, { what: "a distlock:height message" });
  assert.ok(heights.at(-1) > 500, `the height of the whole content: ${heights}`);
  // Only the host's own page comes from elsewhere; the simulator asks its
  // own origin for everything and logs no error.
  const unexpected = problems.filter((p) => p !== `off-origin request: GET ${host.url}`);
  assert.deepEqual(unexpected, [], unexpected.join("\n"));
});

for (const [name, query] of [
  ["the default page", ""],
  ["a story", "?preset=redlock-restart"],
  ["the embedded page", "?embed=1&preset=gc-pause"],
]) {
  test(`axe-core finds no accessibility violations on ${name}`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const problems = [];
    const page = await openPage(await suite.context(t, {}, problems), `${suite.server.url}${query}`);
    if (query) {
      // Play a little so the timeline has marks to audit.
      await page.getByRole("button", named("Next")).click();
      await poll(async () => (await page.getByRole("button", named("Start")).count()) === 1, {
        what: "the first key moment",
      });
    }
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], violations.join("\n"));
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}
