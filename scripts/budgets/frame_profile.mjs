// Where the main thread's time goes per frame at 8x with four active
// clients: a Chromium trace, its top-level tasks broken down by the trace
// events nested in them (script, style, layout, pre-paint, paint, GC), and
// the busiest script functions from V8's sampling profiler.
//
// Usage: node scripts/budgets/frame_profile.mjs [--dist dist] [--seconds 5] [--link FILE] [--script]
//   --link FILE: open the run a link file holds (e.g. the long run from
//                `cargo run --release --example big_run`) instead of
//                four clients acquiring.
//   --explore N: meanwhile the hazard explorer runs a large grid on at most
//                N workers ("all": one per core).
//   --script:    also sample script with V8's profiler (slows the page).
//   --rate R:    Chromium's CPU slowed R times (as budget 3c), while tracing.
//   --replay:    with --link, the playhead is first moved to t=0, so the
//                clock replays the recorded run (the future veiled).
//
// What its retired options (--why, --hide, --css) found is in
// docs/budgets.md, "What the one-off profiles found".

import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { launchBrowser, startServer } from "../lib/browser.mjs";
import { FRAME_CATEGORIES, mainThreadPerFrame, median, quantile } from "./trace_frames.mjs";
import { openPage, runFourClients, setMaxSpeed, startClock } from "../../tests/e2e/ui.mjs";

const { values: args } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    seconds: { type: "string", default: "5" },
    link: { type: "string" },
    script: { type: "boolean", default: false },
    explore: { type: "string" },
    rate: { type: "string", default: "1" },
    replay: { type: "boolean", default: false },
  },
});

const browser = await launchBrowser();
const server = await startServer(args.dist);
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
try {
  const fragment = args.link ? `#${(await readFile(args.link, "utf8")).trim()}` : "";
  // --explore N: the hazard explorer runs a large grid meanwhile, on a crew
  // of at most N workers ("all": one per core).
  const crew = args.explore && args.explore !== "all" ? `&crew=${Number(args.explore)}` : "";
  const explore = args.explore ? `?explore&system=etcd&trials=1000000${crew}` : "";
  const page = await openPage(context, `${server.url}${explore}${fragment}`);
  if (args.explore) {
    await page.getByRole("progressbar").waitFor({ timeout: 60_000 });
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  if (args.link) {
    if (args.replay) await page.getByRole("slider", { name: /^Playhead/ }).press("Home");
    await startClock(page);
    await setMaxSpeed(page);
  } else {
    await runFourClients(page);
  }
  const throttle = await context.newCDPSession(page);
  await throttle.send("Emulation.setCPUThrottlingRate", { rate: Number(args.rate) });
  await page.waitForTimeout(500);
  await browser.startTracing(page, { categories: FRAME_CATEGORIES });
  // Counting DOM changes costs script time too: not while sampling it.
  if (!args.script) await page.evaluate(countMutations);
  // V8's sampling profiler slows the page down: only when asked for.
  const cdp = args.script ? await context.newCDPSession(page) : null;
  if (cdp) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
  }
  await page.waitForTimeout(Number(args.seconds) * 1000);
  const profile = cdp ? (await cdp.send("Profiler.stop")).profile : null;
  const trace = JSON.parse((await browser.stopTracing()).toString());
  await throttle.send("Emulation.setCPUThrottlingRate", { rate: 1 });
  report(trace.traceEvents ?? trace);
  if (!args.script) await mutationReport(page);
  const dom = await context.newCDPSession(page);
  await layoutRoots(trace.traceEvents ?? trace, dom);
  if (profile) scriptReport(profile);
} finally {
  await context.close();
  await server.close();
  await browser.close();
}

function report(events) {
  const main = events.find((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain" &&
    events.some((f) => f.name === "BeginMainThreadFrame" && f.pid === e.pid && f.tid === e.tid));
  const on = (e) => e.pid === main.pid && e.tid === main.tid;
  const frames = events.filter((e) => on(e) && e.name === "BeginMainThreadFrame").length;
  // Self time of every complete event on the main thread, by name.
  const spans = events.filter((e) => on(e) && e.ph === "X" && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = new Map();
  const stack = [];
  for (const e of spans) {
    const end = e.ts + e.dur;
    while (stack.length && stack[stack.length - 1].end <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent.child += e.dur;
    stack.push({ e, end, child: 0 });
    e.__entry = stack[stack.length - 1];
  }
  for (const e of spans) {
    const key = e.name === "FunctionCall" || e.name === "EventDispatch" ? `${e.name} ${e.args?.data?.functionName ?? e.args?.data?.type ?? ""}` : e.name;
    self.set(key, (self.get(key) ?? 0) + (e.dur - e.__entry.child));
  }
  const busy = spans.filter((e) => e.name === "RunTask").reduce((s, e) => s + e.dur, 0);
  const perFrame = mainThreadPerFrame(events).sort((a, b) => a - b);
  console.log(`frames: ${frames}; main thread busy ${(busy / 1000).toFixed(0)} ms, ${(busy / 1000 / frames).toFixed(2)} ms a frame`);
  const cpuPerFrame = mainThreadPerFrame(events, { cpu: true }).sort((a, b) => a - b);
  console.log(`per frame: median ${median(perFrame).toFixed(1)} ms, p95 ${quantile(perFrame, 0.95).toFixed(1)} ms`);
  console.log(`CPU per frame: median ${median(cpuPerFrame).toFixed(1)} ms, p95 ${quantile(cpuPerFrame, 0.95).toFixed(1)} ms`);
  console.log("self time per frame by trace event:");
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`  ${(us / 1000 / frames).toFixed(3).padStart(8)} ms  ${name}`);
  }
}

/** V8's sampled profile: self and total time by function. */
function scriptReport(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const counts = new Map();
  for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const self = new Map();
  const total = new Map();
  let all = 0;
  const nameOf = (n) => n.callFrame.functionName || `(${n.callFrame.url.split("/").pop() || "anonymous"})`;
  for (const [id, count] of counts) {
    const n = byId.get(id);
    const name = nameOf(n);
    if (["(idle)", "(program)", "(garbage collector)"].includes(name)) continue;
    all += count;
    self.set(name, (self.get(name) ?? 0) + count);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const up = nameOf(byId.get(at));
      if (!seen.has(up)) total.set(up, (total.get(up) ?? 0) + count);
      seen.add(up);
    }
  }
  const line = ([name, count]) => `  ${((100 * count) / all).toFixed(1).padStart(5)}%  ${name.slice(0, 110)}`;
  console.log(`script, self (${all} samples):`);
  for (const row of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(line(row));
  console.log("script, total:");
  for (const row of [...total].sort((a, b) => b[1] - a[1]).slice(0, 400)) console.log(line(row));
}

/** What each layout touched: objects laid out, and the roots it started from. */
async function layoutRoots(events, cdp) {
  const layouts = events.filter((e) => e.name === "Layout" && e.ph === "X");
  const roots = new Map();
  let dirty = 0;
  let total = 0;
  for (const e of layouts) {
    dirty += e.args?.beginData?.dirtyObjects ?? 0;
    total += e.args?.beginData?.totalObjects ?? 0;
    const root = e.args?.endData?.rootNode ?? e.args?.endData?.layoutRoots?.[0]?.nodeId;
    if (root !== undefined) roots.set(root, (roots.get(root) ?? 0) + 1);
  }
  console.log(`layouts: ${layouts.length}; objects needing layout ${(dirty / layouts.length).toFixed(0)} of ${(total / layouts.length).toFixed(0)} on average`);
  await cdp.send("DOM.getDocument", { depth: -1 });
  const ids = [...roots.keys()];
  const { nodeIds } = await cdp.send("DOM.pushNodesByBackendIdsToFrontend", { backendNodeIds: ids }).catch(() => ({ nodeIds: [] }));
  for (let i = 0; i < ids.length; i += 1) {
    let name = `backend node ${ids[i]}`;
    if (nodeIds[i]) {
      const { node } = await cdp.send("DOM.describeNode", { nodeId: nodeIds[i] });
      const attrs = Object.fromEntries((node.attributes ?? []).reduce((acc, v, k, all) => (k % 2 ? acc : [...acc, [v, all[k + 1]]]), []));
      name = `${node.nodeName.toLowerCase()}${attrs.class ? "." + attrs.class.split(/\s+/).join(".") : ""}${attrs["aria-label"] ? ` "${attrs["aria-label"]}"` : ""}`;
    }
    console.log(`  ${String(roots.get(ids[i])).padStart(5)}x  layout root ${name}`);
  }
}

// Runs in the page: counts DOM changes by the part of the page they fall
// in (its labelled section or panel), and animation frames, from now on.
function countMutations() {
  const counts = {};
  const partOf = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    const part = el?.closest("section[aria-label], section[aria-labelledby], .panel, .clients > *, [role=region]");
    if (!part) return el?.tagName?.toLowerCase() ?? "?";
    const ids = part.getAttribute("aria-labelledby");
    return part.getAttribute("aria-label") || (ids && document.getElementById(ids.split(" ")[0])?.textContent) || part.className;
  };
  new MutationObserver((records) => {
    for (const r of records) {
      const c = (counts[partOf(r.target)] ??= { records: 0, added: 0, removed: 0, attributes: 0, text: 0 });
      c.records += 1;
      if (r.type === "attributes") c.attributes += 1;
      if (r.type === "characterData") c.text += 1;
      for (const n of r.addedNodes) c.added += n.nodeType === 1 ? 1 + n.getElementsByTagName("*").length : 1;
      c.removed += r.removedNodes.length;
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  window.__mutations = counts;
  window.__frames = 0;
  const tick = () => {
    window.__frames += 1;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

async function mutationReport(page) {
  const { counts, frames } = await page.evaluate(() => ({ counts: window.__mutations, frames: window.__frames }));
  console.log(`DOM changes per frame (${frames} frames): nodes added, removed, attributes set, texts changed`);
  const rows = Object.entries(counts).sort((a, b) => b[1].added + b[1].attributes + b[1].text - (a[1].added + a[1].attributes + a[1].text));
  for (const [part, c] of rows) {
    const per = (n) => (n / frames).toFixed(1).padStart(7);
    console.log(`  ${per(c.added)}${per(c.removed)}${per(c.attributes)}${per(c.text)}  ${part.slice(0, 60)}`);
  }
}
