// The page's own changes with no script of its own: a floor for the
// frames in which something happens (issue 52).
//
// The still copy (still.mjs) moves four parts ten times a second; the page
// also draws each event: a card's state, the log's new lines, a lane of
// the timeline, the stage, and the glides it starts. This records every
// change the page makes to its markup (a MutationObserver, the changes
// kept in order against a copy of the body) and every glide it starts and
// stops (`Element.animate`, `Animation.cancel`), while budget 3's page
// runs (four clients at 8x) or the long run replays. Then it serves the
// page's markup as it stood when the recording began, with no wasm, and a
// few lines of script that make the same changes in the same order, each
// in the animation frame at its moment since the start. What the browser
// spends there (style, layout, paint, the glides' upkeep) is what the
// page's frames cost with its own script taken away: no framework, no
// simulation could draw the same changes for less. The replay's script
// walks a path of child indexes to each change, a few microseconds.
//
//   node scripts/budgets/replay.mjs [--dist dist] [--rate 4] [--runs 2]
//   node scripts/budgets/replay.mjs --big-run FILE [--at-end] [--runs 2]
//   --at-end:   with --big-run, the clock runs on past the run's end with
//               the whole run in view, as budget 4 measures it, instead
//               of replaying the run from its start.
//   --without PARTS: also a replay leaving out some parts' changes (as the
//               recording names them, comma-separated: "Timeline,Event
//               log"), or some kinds of change ("animate,cancel": the
//               glides), or one kind in one part ("Timeline|insert");
//               again for each --without.
//   --look DIR: pictures of the page as the recording ends and of the
//               replay once made (recorded.png, replayed.png): they match.
//
// Per run: the page, its replay and the still copy moved ten times a
// second, in turn, each at `--rate` times slower CPU (with `--big-run`, 1x:
// budget 4), their dropped frames (intervals over 25 ms, sampled with no
// trace running) and main-thread CPU per frame (a trace over a second
// window). It prints figures; it judges nothing.

import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { launchBrowser, startServer } from "../lib/browser.mjs";
import { FRAME_CATEGORIES, mainThreadPerFrame, median, quantile } from "./trace_frames.mjs";
import { droppedShare, intervalsAt } from "./throttled.mjs";
import { AS_THE_PAGE_MOVES, stillFrames, stillOf } from "./still.mjs";
import { openPage, runFourClients, setMaxSpeed, startClock } from "../../tests/e2e/ui.mjs";

/** Wall time recorded, and the window each figure is read over. */
const RECORD_MS = 12_000;
const WINDOW_MS = 6_000;

/**
 * Runs in the page before its script: notes each glide started and
 * cancelled, for the recorder (`record`) to pick up.
 */
function hookGlides() {
  const animate = Element.prototype.animate;
  const cancel = Animation.prototype.cancel;
  const ids = new WeakMap();
  let next = 0;
  window.__glides = null;
  Element.prototype.animate = function (keyframes, options) {
    const animation = animate.call(this, keyframes, options);
    if (window.__glides) {
      const id = (next += 1);
      ids.set(animation, id);
      window.__glides({ op: "animate", id, target: this, keyframes, options });
    }
    return animation;
  };
  Animation.prototype.cancel = function () {
    const id = ids.get(this);
    if (window.__glides && id !== undefined) window.__glides({ op: "cancel", id });
    return cancel.call(this);
  };
}

/**
 * Runs in the page: the body as it stands (nodes as plain data, so that
 * adjacent text nodes stay apart, as the page made them), and from now on
 * every change, `{ t, op, path, ... }` with `t` ms since now, in
 * `window.__ops`.
 */
function record() {
  const data = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return { text: node.data };
    if (node.nodeType === Node.COMMENT_NODE) return { comment: node.data };
    const attrs = [...node.attributes].map((a) => [a.name, a.value]);
    return { tag: node.localName, ns: node.namespaceURI, attrs, children: [...node.childNodes].map(data) };
  };
  const body = data(document.body);
  // The body's copy, changed as the page is: paths are read in it.
  const mirror = document.body.cloneNode(true);
  const twin = new Map();
  const pair = (a, b) => {
    twin.set(a, b);
    for (let i = 0; i < a.childNodes.length; i += 1) pair(a.childNodes[i], b.childNodes[i]);
  };
  pair(document.body, mirror);
  const pathOf = (node) => {
    const path = [];
    for (let at = node; at !== mirror; at = at.parentNode) path.push(Array.prototype.indexOf.call(at.parentNode.childNodes, at));
    return path.reverse();
  };
  const inMirror = (node) => node === mirror || (node?.isConnected === false && mirror.contains(node));
  const ops = [];
  const t0 = performance.now();
  // The labelled part of the page a change falls in, as frame_profile.mjs
  // names them: the replay can leave a part's changes out (`--without`).
  const partOf = (node) => {
    const el = node?.nodeType === Node.ELEMENT_NODE ? node : node?.parentElement;
    const part = el?.closest("section[aria-label], section[aria-labelledby], .panel, .clients > *, [role=region], .stage > *");
    if (!part) return el?.localName ?? "?";
    const ids = part.getAttribute("aria-labelledby");
    return part.getAttribute("aria-label") || (ids && document.getElementById(ids.split(" ")[0])?.textContent) || part.className;
  };
  let on = null;
  const push = (op) => ops.push({ t: performance.now() - t0, part: partOf(on), ...op });
  const take = (records) => {
    for (const r of records) {
      on = r.target;
      const target = twin.get(r.target);
      if (!target || !inMirror(target)) continue;
      if (r.type === "attributes") {
        const value = r.target.getAttribute(r.attributeName);
        push({ op: "attr", path: pathOf(target), name: r.attributeName, value });
        if (value === null) target.removeAttribute(r.attributeName);
        else target.setAttribute(r.attributeName, value);
      } else if (r.type === "characterData") {
        push({ op: "text", path: pathOf(target), value: r.target.data });
        target.data = r.target.data;
      } else {
        for (const gone of r.removedNodes) {
          const m = twin.get(gone);
          if (!m || m.parentNode !== target) continue;
          push({ op: "remove", path: pathOf(m) });
          target.removeChild(m);
        }
        for (const added of r.addedNodes) {
          if (added.parentNode !== r.target) continue;
          const known = twin.get(added);
          if (known && known.parentNode === target) continue;
          let next = added.nextSibling;
          while (next && twin.get(next)?.parentNode !== target) next = next.nextSibling;
          const before = next ? twin.get(next) : null;
          const index = before ? Array.prototype.indexOf.call(target.childNodes, before) : target.childNodes.length;
          push({ op: "insert", path: pathOf(target), index, node: data(added) });
          const copy = added.cloneNode(true);
          pair(added, copy);
          target.insertBefore(copy, before);
        }
      }
    }
  };
  const observer = new MutationObserver(take);
  observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  window.__glides = (glide) => {
    // A glide starts after its render's writes: those first.
    take(observer.takeRecords());
    on = glide.target ?? null;
    if (glide.op === "cancel") return push(glide);
    const target = twin.get(glide.target);
    if (!target || !inMirror(target)) return;
    push({ op: "animate", id: glide.id, path: pathOf(target), keyframes: glide.keyframes, options: glide.options });
  };
  window.__ops = ops;
  window.__stopRecording = () => {
    take(observer.takeRecords());
    observer.disconnect();
    window.__glides = null;
  };
  const scroll = [window.scrollX, window.scrollY];
  return { body, scroll };
}

/** The replay's script: builds the body, then makes each change at its moment. */
function replayer(recording) {
  return `const recording = ${JSON.stringify({ body: recording.body, scroll: recording.scroll, ops: recording.ops })};
const build = (n) => {
  if (n.text !== undefined) return document.createTextNode(n.text);
  if (n.comment !== undefined) return document.createComment(n.comment);
  const el = document.createElementNS(n.ns, n.tag);
  for (const [k, v] of n.attrs) el.setAttribute(k, v);
  for (const c of n.children) el.appendChild(build(c));
  return el;
};
for (const [k, v] of recording.body.attrs) document.body.setAttribute(k, v);
document.body.replaceChildren(...recording.body.children.map(build));
window.scrollTo(recording.scroll[0], recording.scroll[1]);
const at = (path) => path.reduce((node, i) => node.childNodes[i], document.body);
const glides = new Map();
const ops = recording.ops;
let next = 0;
let start = null;
const frame = (now) => {
  start ??= now;
  while (next < ops.length && ops[next].t <= now - start) {
    const o = ops[next++];
    try {
      change(o);
    } catch (e) {
      window.__failed = (window.__failed ?? 0) + 1;
    }
  }
  if (next < ops.length) requestAnimationFrame(frame);
  else window.__replayed = ops.length - (window.__failed ?? 0);
};
const change = (o) => {
    if (o.op === "attr") {
      const el = at(o.path);
      if (o.value === null) el.removeAttribute(o.name);
      else el.setAttribute(o.name, o.value);
    } else if (o.op === "text") at(o.path).data = o.value;
    else if (o.op === "remove") at(o.path).remove();
    else if (o.op === "insert") {
      const parent = at(o.path);
      parent.insertBefore(build(o.node), parent.childNodes[o.index] ?? null);
    } else if (o.op === "animate") glides.set(o.id, at(o.path).animate(o.keyframes, o.options));
    else if (o.op === "cancel") glides.get(o.id)?.cancel();
};
requestAnimationFrame(frame);
`;
}

/**
 * The page at `url` in `context`, running: budget 3's four clients at 8x,
 * or with `link` ({ file, atEnd }) the long run at 8x: replayed from its
 * start, or with `atEnd` running on past its end (budget 4).
 */
async function running(context, url, link) {
  const fragment = link ? `#${(await readFile(link.file, "utf8")).trim()}` : "";
  const page = await openPage(context, `${url}${fragment}`);
  if (link) {
    if (!link.atEnd) await page.getByRole("slider", { name: /^Playhead/ }).press("Home");
    await startClock(page);
    await setMaxSpeed(page);
  } else {
    await runFourClients(page);
  }
  return page;
}

/** Records `RECORD_MS` of the page from `dist` (budget 3's, or the long run's link). */
async function recordPage(browser, dist, link, look) {
  const server = await startServer(dist);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript(hookGlides);
    const page = await running(context, server.url, link);
    await page.waitForTimeout(1_000);
    // Budget 3's still copy, from the same page (`stillCopyFrames`).
    const still = link ? undefined : await stillOf(page);
    const head = await page.evaluate(() => document.head.outerHTML);
    const { body, scroll } = await page.evaluate(record);
    await page.waitForTimeout(RECORD_MS);
    await page.evaluate(() => window.__stopRecording());
    if (look) await page.screenshot({ path: join(look, "recorded.png") });
    const ops = await page.evaluate(() => window.__ops);
    return { head, body, scroll, ops, still };
  } finally {
    await context.close();
    await server.close();
  }
}

/** The recording served with no wasm, replayed: its frames, as `measure` reads them. */
async function replayFrames(browser, dist, recording, rate, look) {
  const dir = await mkdtemp(join(tmpdir(), "distlock-replay-"));
  try {
    for (const name of await readdir(dist)) {
      if (name.endsWith(".css")) await copyFile(join(dist, name), join(dir, name));
    }
    const head = recording.head
      .replace(/<script[\s\S]*?<\/script>/g, "")
      .replace(/<link[^>]*\brel="?(?:modulepreload|preload)"?[^>]*>/g, "")
      .replace(/ integrity="?[^" >]+"?/g, "");
    const markup = `<!doctype html><html lang="en">${head}<body><script src="/replay.js"></script></body></html>`;
    await writeFile(join(dir, "index.html"), markup);
    await writeFile(join(dir, "replay.js"), replayer(recording));
    const server = await startServer(dir);
    try {
      return await measure(browser, server.url, rate, undefined, look);
    } finally {
      await server.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A page at `url` (or `page`, opened already) at `rate` times slower CPU:
 * its frames' intervals over WINDOW_MS with no trace, then main-thread CPU
 * per frame from a trace over a second window.
 */
async function measure(browser, url, rate, opened, look) {
  const context = opened?.context ?? (await browser.newContext({ viewport: { width: 1280, height: 900 } }));
  try {
    const page = opened?.page ?? (await context.newPage());
    if (!opened) await page.goto(url);
    const { cdp, intervals } = await intervalsAt(context, page, rate, WINDOW_MS);
    await page.evaluate(() => {
      window.__stopFrames = true;
    });
    await browser.startTracing(page, { categories: FRAME_CATEGORIES });
    await page.waitForTimeout(WINDOW_MS / 2);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    const events = trace.traceEvents ?? trace;
    const replay = opened ? undefined : await replayed(page, look);
    return {
      replay,
      dropped: droppedShare(intervals),
      cpu: mainThreadPerFrame(events, { cpu: true }).sort((a, b) => a - b),
    };
  } finally {
    await context.close();
  }
}

/**
 * How much of the recording the replay made, once it has made all it can:
 * `{ made, failed }`; with `look`, a picture of it then.
 */
async function replayed(page, look) {
  await page.waitForFunction(() => window.__replayed !== undefined, null, { timeout: 60_000 });
  if (look) await page.screenshot({ path: join(look, "replayed.png") });
  return page.evaluate(() => ({ made: window.__replayed, failed: window.__failed ?? 0 }));
}

/** The page itself from `dist`, set up as it was recorded. */
async function pageFrames(browser, dist, link, rate) {
  const server = await startServer(dist);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await running(context, server.url, link);
    return await measure(browser, null, rate, { context, page });
  } finally {
    await server.close();
  }
}

/**
 * Budget 3's still copy (`still`, from `stillOf`) moved ten times a second,
 * as time_frames.mjs reads it.
 */
async function stillCopyFrames(browser, dist, still, rate) {
  const { intervals, cpu } = await stillFrames(browser, dist, still, ["tenTimesASecond"], WINDOW_MS, rate);
  return { dropped: droppedShare(intervals), cpu };
}

const { values: args } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    rate: { type: "string" },
    runs: { type: "string", default: "2" },
    "big-run": { type: "string" },
    "at-end": { type: "boolean", default: false },
    look: { type: "string" },
    without: { type: "string", multiple: true, default: [] },
  },
});
const link = args["big-run"] && { file: args["big-run"], atEnd: args["at-end"] };
const look = args.look;
const rate = Number(args.rate ?? (link ? 1 : 4));
const pct = (share) => `${(100 * share).toFixed(1)}%`;
const line = (name, { dropped, cpu }) =>
  `${name.padEnd(28)} dropped ${pct(dropped).padStart(6)}, CPU per frame median ${median(cpu).toFixed(1)} ms, p95 ${quantile(cpu, 0.95).toFixed(1)} ms`;
const browser = await launchBrowser();
try {
  const long = args["at-end"] ? "the long run at 8x past its end" : "the long run replayed at 8x";
  console.log(`${link ? long : "four clients at 8x"}, ${rate}x CPU; moving parts of the still copy: ${AS_THE_PAGE_MOVES.join(", ")}`);
  for (let run = 1; run <= Number(args.runs); run += 1) {
    const recording = await recordPage(browser, args.dist, link, look);
    const tally = (key) => {
      const n = recording.ops.reduce((n, o) => n.set(o[key], (n.get(o[key]) ?? 0) + 1), new Map());
      return [...n].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${(n / (RECORD_MS / 1000)).toFixed(1)}`).join(", ");
    };
    console.log(`run ${run}: recorded ${recording.ops.length} changes in ${RECORD_MS / 1000} s; a second: ${tally("op")}; by part: ${tally("part")}`);
    console.log(line(`run ${run} the page`, await pageFrames(browser, args.dist, link, rate)));
    const replay = await replayFrames(browser, args.dist, recording, rate, look);
    console.log(`${line(`run ${run} its changes replayed`, replay)}; made ${replay.replay.made}, failed ${replay.replay.failed}`);
    for (const part of args.without) {
      const left = new Set(part.split(","));
      const out = (o) => left.has(o.part) || left.has(o.op) || left.has(`${o.part}|${o.op}`);
      const rest = { ...recording, ops: recording.ops.filter((o) => !out(o)) };
      const without = await replayFrames(browser, args.dist, rest, rate);
      console.log(`${line(`run ${run} replayed without ${part}`, without)}; made ${without.replay.made}, failed ${without.replay.failed}`);
    }
    if (recording.still) {
      console.log(line(`run ${run} still copy, 10/s`, await stillCopyFrames(browser, args.dist, recording.still, rate)));
    }
  }
} finally {
  await browser.close();
}
