// Starts the wasm app. It lives in its own file because the page's
// Content-Security-Policy allows no inline script; trunk writes the hashed
// file names into the JSON block with id "distlock-boot" (see Trunk.toml).
const names = JSON.parse(document.getElementById("distlock-boot").textContent);

// A release build shows its first screen before the wasm arrives
// (#distlock-first, drawn at build time by examples/prerender.rs). What a
// visitor presses, picks or types there meanwhile is kept, by the control's
// kind, words and place among its namesakes, and done again on the page the
// wasm renders in its place (src/main.rs), so nothing is silently lost.
const first = document.getElementById("distlock-first");
const kept = [];
let focused = null;
const controls = "button, a[href], summary, input, select, textarea";
const words = (el) => el.getAttribute("aria-label") || el.name || el.textContent.trim();
const keyOf = (el) => {
  const same = [...first.querySelectorAll(el.tagName)].filter((o) => words(o) === words(el));
  return [el.tagName, words(el), same.indexOf(el)];
};
const liveOf = ([tag, said, nth]) =>
  [...document.body.querySelectorAll(tag)].filter((o) => words(o) === said)[nth];
const field = (el) => /^(SELECT|TEXTAREA)$/.test(el.tagName) ||
  (el.tagName === "INPUT" && !/^(checkbox|radio|button|submit)$/.test(el.type));
const within = (e) => {
  const el = first && first.isConnected && e.target.closest && e.target.closest(controls);
  return el && first.contains(el) ? el : null;
};
const keep = (type, handle) => first && document.addEventListener(type, (e) => {
  const el = within(e);
  if (el) handle(el, e);
}, true);
keep("click", (el, e) => {
  if (field(el)) return;
  // Links and toggles act once the page runs, as the page's own would.
  e.preventDefault();
  kept.push({ key: keyOf(el) });
});
keep("input", (el) => {
  if (!field(el)) return;
  const key = keyOf(el), last = kept[kept.length - 1];
  // Typing is kept as the field's latest words, not every keystroke.
  if (last && "value" in last && last.key.join() === key.join()) kept.pop();
  kept.push({ key, value: el.value });
});
keep("focusin", (el) => { focused = keyOf(el); });

// With the first screen drawn, the wasm is asked for once that screen is
// painted (the build drops the preload links): it is what a visitor waits
// for, and the wasm would share a slow network with it. A hidden tab paints
// nothing, and a browser without paint timing waits at most a few seconds.
if (first && document.visibilityState === "visible") {
  await new Promise((done) => {
    new PerformanceObserver((list, seen) => {
      if (list.getEntriesByName("first-contentful-paint").length) seen.disconnect(), done();
    }).observe({ type: "paint", buffered: true });
    setTimeout(done, 3000);
  });
}
// A release build's wasm comes in two (scripts/build/split.mjs): what a
// cold load of the plain page runs, and the rest (`names.rest`), fetched as
// soon as the page has started. A page opened on a story, an embed or a
// shared run needs the rest at once, so it is fetched beside the first part
// and put in before the page's code runs. Should the wasm reach moved code
// before the rest is in, it asks for it (`__distlockSplit`, through the
// glue) and the rest is loaded there and then, synchronously.
let rest = null;
let restBytes = null;
const fetchRest = () => (rest ??= fetch(names.rest).then((r) => {
  if (!r.ok) throw new Error(`fetching ${names.rest}: ${r.status}`);
  return r.arrayBuffer();
}).then((bytes) => (restBytes = bytes)));
const putIn = (wasm, module) => {
  if (wasm.__distlock_split_ready.value) return;
  new WebAssembly.Instance(module, { p: wasm });
  wasm.__distlock_split_ready.value = 1;
};
globalThis.__distlockSplit = (wasm) => {
  let bytes = restBytes;
  if (!bytes) {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", names.rest, false);
    xhr.overrideMimeType("text/plain; charset=x-user-defined");
    xhr.send();
    if (xhr.status !== 200) throw new Error(`fetching ${names.rest}: ${xhr.status}`);
    const text = xhr.responseText;
    bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  }
  putIn(wasm, new WebAssembly.Module(bytes));
};
const addressed = names.rest && (location.search.length > 1 || location.hash.length > 1);
// Should the rest fail to come, the page still starts; the first call that
// needs it tries again, synchronously, and says why.
const restNow = addressed
  ? fetchRest().then((bytes) => WebAssembly.compile(bytes))
    .catch((err) => console.warn(`the rest of the page's wasm: ${err.message}`))
  : null;
const firstPart = addressed ? fetch(names.wasm) : names.wasm;

const { default: init } = await import(names.js);
const restModule = restNow && (await restNow);
const wasm = await init({ module_or_path: firstPart });
if (restModule) putIn(wasm, restModule);
// The page has started once the wasm's page has taken the drawn screen's
// place (src/main.rs builds it one part a task after its start).
const pageStarted = (async () => {
  for (let tries = 0; first && first.isConnected && tries < 100; tries++) {
    await new Promise((done) => setTimeout(done));
  }
})();
// The plain page's rest: fetched at once, but compiled and put in only once
// the page has started and the browser is idle, so that work never lengthens
// a start-up task. Should it fail, the first call that needs it loads it
// synchronously, and says why if that fails too.
const idle = () => new Promise((done) =>
  globalThis.requestIdleCallback ? requestIdleCallback(done, { timeout: 1000 }) : setTimeout(done, 100));
const restIn = names.rest
  ? Promise.all([fetchRest(), pageStarted]).then(idle)
    .then(() => wasm.__distlock_split_ready.value || WebAssembly.compile(restBytes).then((module) => putIn(wasm, module)))
    .catch((err) => console.warn(`the rest of the page's wasm: ${err.message}`))
  : Promise.resolve();

if (first) {
  await pageStarted;
  // What was pressed meanwhile most likely needs the rest.
  if (kept.length) await restIn;
  const live = kept.map((k) => [liveOf(k.key), k]);
  const focus = focused && liveOf(focused);
  if (focus && document.activeElement === document.body) focus.focus();
  for (const [el, k] of live) {
    if (!el) continue;
    if ("value" in k) {
      el.value = k.value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
    } else {
      el.click();
    }
    await new Promise((done) => setTimeout(done));
  }
}
