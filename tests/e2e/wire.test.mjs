// The wire and the sources, in headless Chromium against the release
// build: a network message in the event log, and an arrow of the timeline
// on focus, open to the request the real client sends (asked of the worker
// on first use, which is not loaded before), the lock-service panel and the
// TTL link their numbers to their sources, and the project's docs they
// link to are served with the page.
//
// Run: `trunk build --release --offline && node --test tests/e2e/wire.test.mjs`

import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { browserSuite } from "./suite.mjs";
import { eventLog, named, playScenarioToRunFirst, poll } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const DIST = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist");

/** A link's target: fetched from the served page (and so a file in dist), with its anchor. */
async function assertResolves(page, link) {
  const url = new URL(await link.getAttribute("href"), page.url());
  const response = await page.request.get(url.href);
  assert.equal(response.status(), 200, url.href);
  assert.ok(existsSync(join(DIST, decodeURIComponent(url.pathname))), `${url.pathname} is a file in dist`);
  const body = await response.text();
  if (url.hash) assert.ok(body.includes(`id="${url.hash.slice(1)}"`), `${url.href} has its anchor`);
}

const suite = browserSuite();
after(() => assert.deepEqual(suite.problems, [], "no console errors, warnings or failed requests"));


describe("the wire and the sources", { timeout: TEST_TIMEOUT_MS }, () => {
  test("a message in the log opens, by keyboard, to its real wire text", async (t) => {
    const page = await suite.page(t);
    await playScenarioToRunFirst(page, { fencing: false, start: false });
    assert.equal(page.workers().length, 0, "the worker is not loaded before a wire text is asked for");
    await page.getByRole("checkbox", named("Show network messages")).check();

    // The oldest lease grant in the log: A's, the run's first message.
    const line = eventLog(page).getByRole("listitem").filter({ hasText: /LeaseGrant/ }).last();
    const wire = line.getByText("wire", { exact: true });
    await wire.focus();
    await page.keyboard.press("Enter");
    const text = await poll(
      async () => {
        const pre = line.locator("pre");
        return (await pre.count()) > 0 && (await pre.innerText());
      },
      { what: "the lease grant's wire text" },
    );
    assert.match(text, /^Lease\.LeaseGrant\(LeaseGrantRequest\{TTL: 5, ID: 0\}\)/, text);

    // The lock's transaction names the lease the grant returned.
    const txn = eventLog(page).getByRole("listitem").filter({ hasText: /txn/ }).last();
    await txn.getByText("wire", { exact: true }).click();
    const txnText = await poll(
      async () => {
        const pre = txn.locator("pre");
        return (await pre.count()) > 0 && (await pre.innerText());
      },
      { what: "the transaction's wire text" },
    );
    assert.match(txnText, /If\(Compare\(CreateRevision\("\/lock\/shared-counter\/[0-9a-f]+"\), "=", 0\)\)/, txnText);
    assert.match(txnText, /WithLease\(0x[0-9a-f]+\)/, txnText);
  });

  test("the lock-service panel links its numbers to their sources, and the docs are served", async (t) => {
    const page = await suite.page(t);
    // The panel is inside the stage's "In detail" disclosure.
    await page.getByText(/^In detail: etcd's own books/).click();
    const sources = page.getByRole("link", named("Where etcd's numbers come from"));
    assert.equal(await sources.getAttribute("href"), "docs/sources.html#etcd");
    const links = [
      sources,
      page.getByRole("link", named("How the model simplifies")),
      page.getByRole("link", named("The real-server check's latest results")),
    ];
    for (const link of links) await assertResolves(page, link);
    const sourcesPage = await page.request.get(new URL("docs/sources.html", page.url()).href);
    assert.match(await sourcesPage.text(), /DefaultLockSessionTTL/);
  });

  test("a timeline arrow shows, on focus, the request the real client sends", async (t) => {
    const page = await suite.page(t);
    await playScenarioToRunFirst(page, { fencing: false, start: false });
    assert.equal(page.workers().length, 0, "the worker is not loaded before a wire text is asked for");

    // A's lease grant, the run's first message: a mark the arrow keys
    // reach from the timeline's one Tab stop (a roving tabindex).
    const arrow = page.locator("svg.timeline__svg g.tl-msg").filter({ hasText: /LeaseGrant/ }).first();
    assert.match(await arrow.getAttribute("tabindex"), /^(0|-1)$/, "an arrow is reachable by keyboard");
    assert.equal(await arrow.getAttribute("role"), "img");
    await arrow.focus();
    assert.match(await page.locator(".timeline__caption").innerText(), /LeaseGrant/, "the caption reads the arrow");
    const wire = page.getByLabel("The message on the wire", { exact: true });
    const text = await poll(
      async () => {
        const pre = wire.locator("pre");
        return (await pre.count()) > 0 && (await pre.innerText());
      },
      { what: "the arrow's wire text" },
    );
    assert.match(text, /^Lease\.LeaseGrant\(LeaseGrantRequest\{TTL: 5, ID: 0\}\)/, text);

    // Another arrow: the lock's transaction, with the lease granted above.
    const txn = page.locator("svg.timeline__svg g.tl-msg").filter({ hasText: /txn/ }).first();
    await txn.focus();
    const txnText = await poll(
      async () => {
        const shown = await wire.locator("pre").innerText().catch(() => "");
        return shown.startsWith("KV.Txn(") && shown;
      },
      { what: "the transaction's wire text" },
    );
    assert.match(txnText, /SortOrder: ASCEND, SortTarget: CREATE/, txnText);
  });

  test("the TTL's default and the project's pages link to files served with the page", async (t) => {
    const page = await suite.page(t);
    const ttlSource = page.getByRole("link", named("Sources of the defaults"));
    assert.equal(await ttlSource.getAttribute("href"), "docs/sources.html#all");
    await assertResolves(page, ttlSource);
    for (const name of ["About the project", "What the model simplifies", "Where the numbers come from", "Real-server check"]) {
      await assertResolves(page, page.getByRole("link", named(name)));
    }
  });
});
