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
const { default: init } = await import(names.js);
await init({ module_or_path: names.wasm });

if (first) {
  // The page is built one part a task after its start and then takes the
  // first screen's place (src/main.rs): let it finish first.
  for (let tries = 0; first.isConnected && tries < 100; tries++) {
    await new Promise((done) => setTimeout(done));
  }
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
