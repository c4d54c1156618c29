// Lighthouse's mobile figures for a release build, served compressed as a
// static host would (tests/e2e/serve.mjs --compress): the median of RUNS
// runs (5 unless told) of largest contentful paint, first contentful paint,
// performance score, total blocking time and CLS, with Lighthouse's
// defaults (simulated Slow 4G, 4x CPU). The figures docs/budgets.md quotes.
//
//   node scripts/budgets/lighthouse.mjs [DIST ...] [RUNS]
//
// With more than one DIST the runs interleave (A, B, A, B, ...), so a
// machine's busy moments fall on every build alike, and each build's
// medians are printed at the end.
//
// Lighthouse is not one of the project's packages (it is large and only this
// script needs it): install lighthouse@12.2.3 anywhere and point LIGHTHOUSE at
// its bin/cli.js, or have `lighthouse` on PATH. Chromium comes from
// CHROME_PATH (default /usr/bin/chromium). On a busy machine the times grow:
// say so beside them.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../lib/browser.mjs";

const given = process.argv.slice(2);
const runs = /^\d+$/.test(given.at(-1) ?? "") ? Number(given.pop()) : 5;
const dists = given.length ? given : ["dist"];
const cli = process.env.LIGHTHOUSE;
process.env.CHROME_PATH ||= "/usr/bin/chromium";

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const servers = [];
for (const dist of dists) {
  const server = await startServer(dist, 0, { compress: true });
  await server.warm();
  servers.push(server);
}
const out = mkdtempSync(join(tmpdir(), "distlock-lh-"));
const rows = dists.map(() => []);
try {
  for (let i = 0; i < runs; i++) {
    for (const [d, server] of servers.entries()) {
      const report = join(out, `run${i}-${d}.json`);
      const args = [server.url, "--quiet", "--output=json", `--output-path=${report}`,
        "--only-categories=performance", '--chrome-flags=--headless=new --no-sandbox'];
      // Not spawnSync: the server answers from this process's event loop.
      const run = cli
        ? spawn(process.execPath, [cli, ...args], { stdio: "inherit" })
        : spawn("lighthouse", args, { stdio: "inherit" });
      const status = await new Promise((done) => run.on("close", done));
      if (status !== 0) throw new Error(`lighthouse run ${i + 1} failed`);
      const lhr = JSON.parse(readFileSync(report, "utf8"));
      const ms = (id) => lhr.audits[id].numericValue;
      rows[d].push({
        lcp: ms("largest-contentful-paint"), fcp: ms("first-contentful-paint"),
        tbt: ms("total-blocking-time"), cls: ms("cumulative-layout-shift"), tti: ms("interactive"),
        score: Math.round(lhr.categories.performance.score * 100),
      });
      const r = rows[d].at(-1);
      const which = dists.length > 1 ? ` ${dists[d]}` : "";
      console.log(`run ${i + 1}${which}: LCP ${(r.lcp / 1000).toFixed(2)} s, FCP ${(r.fcp / 1000).toFixed(2)} s, ` +
        `performance ${r.score}, TBT ${Math.round(r.tbt)} ms, CLS ${r.cls.toFixed(3)}, interactive ${(r.tti / 1000).toFixed(2)} s`);
      // The long tasks behind the blocking time, as Lighthouse simulated them
      // (start and length in ms on its slowed CPU): what to split next.
      const tasks = lhr.audits["long-tasks"]?.details?.items ?? [];
      console.log(`  long tasks: ${tasks.map((t) => `${Math.round(t.duration)} ms at ${Math.round(t.startTime)}`).join(", ") || "none"}`);
    }
  }
} finally {
  for (const server of servers) await server.close();
  rmSync(out, { recursive: true, force: true });
}
for (const [d, dist] of dists.entries()) {
  const m = (k) => median(rows[d].map((r) => r[k]));
  console.log(`${dists.length > 1 ? `${dist}: ` : ""}median of ${runs}: LCP ${(m("lcp") / 1000).toFixed(2)} s, FCP ${(m("fcp") / 1000).toFixed(2)} s, ` +
    `performance ${m("score")}, TBT ${Math.round(m("tbt"))} ms, CLS ${m("cls").toFixed(3)}, interactive ${(m("tti") / 1000).toFixed(2)} s`);
}
