// Main-thread time per frame from a Chromium trace, shared by the budgets
// (budgets.mjs), their still page (still.mjs) and the frame profile
// (frame_profile.mjs); and the moment a cold load first shows the four
// client cards, for the budgets' first render.

/** The trace categories `mainThreadPerFrame` reads. */
export const FRAME_CATEGORIES = [
  "__metadata",
  "toplevel",
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "disabled-by-default-devtools.timeline.frame",
];

export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};


/** The trace's renderer main threads, as `pid/tid` keys. */
const rendererMainThreads = (events) =>
  events
    .filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain")
    .map((e) => `${e.pid}/${e.tid}`);
const onThread = (key) => (e) => `${e.pid}/${e.tid}` === key;

/**
 * The top-level tasks of thread `key`, `[start, end, cost]` in trace
 * microseconds, in order, overlaps merged so nested tasks are not counted
 * twice; the cost is wall time, or with `cpu` the thread's CPU time.
 */
function topLevelTasks(events, key, cpu) {
  const tasks = events
    .filter((e) => e.ph === "X" && e.name === "RunTask" && e.cat.includes("devtools.timeline") && onThread(key)(e))
    .map((e) => [e.ts, e.ts + (e.dur ?? 0), cpu ? (e.tdur ?? e.dur ?? 0) : (e.dur ?? 0)])
    .sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const [start, end, cost] of tasks) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) {
      if (end > last[1]) last[2] += cpu ? cost : end - last[1];
      last[1] = Math.max(last[1], end);
    } else merged.push([start, end, cost]);
  }
  return merged;
}

/**
 * The renderer main thread's CPU time per second of a trace `windowMs`
 * long, in milliseconds: the CPU time of all its top-level tasks (script,
 * style, layout, paint and garbage collection alike) over the window's
 * seconds, on the busiest renderer main thread. It needs no frames: a page
 * that asks for no frame between the moments it draws is measured by the
 * same rule as one that asks for every frame (issue 52's figure: a running
 * story's main thread should idle between events).
 */
export function mainThreadCpuPerSecond(events, windowMs) {
  const busiest = Math.max(
    0,
    ...rendererMainThreads(events).map((key) =>
      topLevelTasks(events, key, true).reduce((sum, [, , cost]) => sum + cost, 0),
    ),
  );
  return busiest / 1000 / (windowMs / 1000);
}

/**
 * Busy time of the renderer's main thread per frame, from a Chromium trace:
 * frames are the intervals between BeginMainThreadFrame events; a frame's
 * cost is the summed length of the top-level tasks that start in it (script,
 * style, layout, paint and garbage collection alike). With `cpu`, a task
 * counts the thread's CPU time instead of its wall time: the figure then
 * barely moves when other processes share the machine's cores.
 */
export function mainThreadPerFrame(events, { cpu = false } = {}) {
  let best = { frames: [] };
  for (const key of rendererMainThreads(events)) {
    const frames = events
      .filter((e) => e.name === "BeginMainThreadFrame" && onThread(key)(e))
      .map((e) => e.ts)
      .sort((a, b) => a - b);
    if (frames.length > best.frames.length) best = { key, frames };
  }
  const { key, frames } = best;
  if (frames.length < 2) return [];
  const merged = topLevelTasks(events, key, cpu);
  const busy = new Array(frames.length - 1).fill(0);
  let f = 0;
  for (const [start, , cost] of merged) {
    while (f < frames.length - 1 && start >= frames[f + 1]) f += 1;
    if (f >= frames.length - 1) break;
    if (start >= frames[0]) busy[f] += cost / 1000;
  }
  return busy;
}

/**
 * Runs in the page before any of its scripts (`page.addInitScript`): the
 * first time all four client regions exist, notes the time since navigation
 * start in `window.__clientCardsAt` and marks it as "cards" in the page's
 * performance timeline (and so in a trace, as a user-timing event).
 */
export function watchForClientCards() {
  const names = ["Client A", "Client B", "Client C", "Client D"];
  const nameOf = (el) => {
    const label = el.getAttribute("aria-label");
    if (label) return label.trim();
    const ids = el.getAttribute("aria-labelledby");
    if (!ids) return "";
    return ids
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent.trim() ?? "")
      .join(" ")
      .trim();
  };
  const allPresent = () => {
    // A release build's first screen, drawn at build time, is not the
    // wasm's render: the page's own regions come when it is gone.
    if (document.getElementById("distlock-first")) return false;
    const shown = new Set([...document.querySelectorAll("section, [role=region]")].map(nameOf));
    return names.every((name) => shown.has(name));
  };
  const observer = new MutationObserver(() => {
    if (window.__clientCardsAt === undefined && allPresent()) {
      window.__clientCardsAt = performance.mark("cards").startTime;
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true });
}
