// The page as a person (or a screen reader) sees it: every control is found
// by its role and accessible name, the names listed in the page's contract
// (issue 3, "A contract the tests rely on"). Nothing here reaches for class
// names or internal ids.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

export const CLIENTS = ["A", "B", "C", "D"];

/** Default wait for anything the page should do "soon", in milliseconds. */
export const PATIENCE_MS = 15_000;

/**
 * Calls `probe` until it returns a truthy value and returns that value;
 * after `timeout` ms throws, naming `what` and the last value seen.
 */
export async function poll(probe, { what, timeout = PATIENCE_MS, interval = 25 } = {}) {
  // The monotonic clock: the system's can be stepped while a test runs (a
  // clean clone's run once saw this poll give up 5 s into its 15).
  const deadline = performance.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeout} ms waiting for ${what} (last seen: ${seen})`);
    }
    await new Promise((ok) => setTimeout(ok, interval));
  }
}

/** A role query's options for exactly this accessible name. */
export const named = (name) => ({ name, exact: true });

/** The card of client `id` ("A".."D"). */
export const card = (page, id) => page.getByRole("region", named(`Client ${id}`));

/**
 * A button inside a client card, by the word it shows, such as "Acquire"
 * or "GC pause": its accessible name adds its client ("Acquire, client A").
 */
export const cardButton = (page, id, name) => card(page, id).getByRole("button", named(`${name}, client ${id}`));

/** The status strip: holder, token, rejected count, virtual clock. */
export const statusStrip = (page) =>
  page.getByRole("region", named("Status")).or(page.getByRole("status", named("Status"))).first();

export const eventLog = (page) => page.getByRole("list", named("Event log"));

export const clockButton = (page, name) => page.getByRole("button", named(name));

/** The timeline panel, and its playhead (a slider). */
export const timeline = (page) => page.getByRole("region", named("Timeline"));
export const playhead = (page) => page.getByRole("slider", named("Playhead: the moment the page shows"));

/** A story's tour: its words, its questions and Next. */
export const tour = (page) => page.getByRole("group", named("Tour"));

/** The hazard explorer's view, and its progress bar over the cells run. */
export const explorer = (page) => page.getByRole("region", named("Hazard explorer"));
export const explorerBar = (page) => explorer(page).getByRole("progressbar");

/** The Properties panel, and its search for the shortest failure. */
export const propertiesPanel = (page) => page.getByRole("region", named("Properties"));
export const finder = (page) => propertiesPanel(page).getByRole("group", named("Find the shortest failure"));

/**
 * A tour's Next as a visitor who skips its questions presses it: when a
 * question comes up first ("predict first"), "Skip and see" plays on to
 * the key moment.
 */
export async function tourNext(tour) {
  await tour.getByRole("button", named("Next")).click();
  const skip = tour.getByRole("button", named("Skip and see"));
  if ((await skip.count()) === 1) await skip.click();
}

/** The tour's words, spaces folded. */
export const tourText = async (page) => (await tour(page).innerText()).replace(/\s+/g, " ");

/** Waits for the clock to stop on a key moment whose tour text is not `before`; returns the text. */
export async function stoppedOnNewMoment(page, before) {
  return poll(
    async () => {
      const now = await tourText(page);
      const stopped = (await clockButton(page, "Start").count()) === 1;
      return stopped && now !== before && /Key moment \d+ of \d+/.test(now) && now;
    },
    { what: "the tour to stop on a key moment" },
  );
}

/**
 * Shows one of the page's views ("Simulator", "Compare the systems", "How
 * likely?", "Properties and finder", "Spanner", "Share and embed") by its
 * tab, as a visitor would.
 */
export async function openView(page, name) {
  const tab = page.getByRole("navigation", named("Views")).getByRole("link", named(name));
  await tab.click();
  await poll(async () => (await tab.getAttribute("aria-current")) === "page", { what: `the "${name}" view` });
}

/**
 * Opens the page and waits for the four client cards, or, for an address
 * that opens a tool's view (`?view=compare`, the explorer's `?explore&...`),
 * for that view's tab.
 */
/**
 * Waits until the page has started: a release build shows its first screen,
 * drawn at build time, in `#distlock-first` until the wasm renders the page
 * in its place (src/main.rs). `where` is a page or a frame locator.
 */
export async function started(where) {
  await where.locator("#distlock-first").waitFor({ state: "detached", timeout: PATIENCE_MS });
}

export async function openPage(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  await started(page);
  const query = new URL(url).search;
  if (/[?&](view=(?!simulator)|explore|find(?=[&=]|$))/.test(query) && !/[?&]embed=1/.test(query)) {
    const current = page.getByRole("navigation", named("Views")).locator('[aria-current="page"]');
    await current.waitFor({ state: "visible", timeout: PATIENCE_MS });
    return page;
  }
  for (const id of CLIENTS) await card(page, id).waitFor({ state: "visible", timeout: PATIENCE_MS });
  await statusStrip(page).waitFor({ state: "visible", timeout: PATIENCE_MS });
  return page;
}

export const statusText = async (page) => (await statusStrip(page).innerText()).replace(/\s+/g, " ");

/** Reads the virtual clock ("t=5.2 s") from the status strip, in seconds. */
export async function clockSeconds(page) {
  const text = await statusText(page);
  const match = text.match(/t\s*=\s*(\d+(?:\.\d+)?)\s*s\b/);
  if (!match) throw new Error(`no virtual clock like "t=5.2 s" in the status strip: "${text}"`);
  return Number(match[1]);
}

/** Waits until the virtual clock reads at least `seconds`. */
export async function waitForClock(page, seconds, timeout = PATIENCE_MS) {
  return poll(async () => (await clockSeconds(page)) >= seconds, {
    what: `virtual clock t >= ${seconds} s`,
    timeout,
  });
}

/** Reads the rejected count from the status strip's text. */
export async function rejectedCount(page) {
  const text = await statusText(page);
  const match = text.match(/rejected\s*[:=]?\s*(\d+)/i) ?? text.match(/(\d+)\s*rejected/i);
  if (match) return Number(match[1]);
  const tagged = page.locator('[data-testid="rejected-count"]');
  if ((await tagged.count()) > 0) return Number((await tagged.first().innerText()).trim());
  throw new Error(`no rejected count in the status strip: "${text}"`);
}

/** The text of client `id`'s card, whitespace folded. */
export const cardText = async (page, id) => (await card(page, id).innerText()).replace(/\s+/g, " ");

/** Waits until client `id`'s card shows the state word `word`. */
export async function waitForCardState(page, id, word, timeout = PATIENCE_MS) {
  const pattern = new RegExp(`\\b${word}\\b`, "i");
  return poll(async () => pattern.test(await cardText(page, id)), {
    what: `Client ${id} to show "${word}"`,
    timeout,
  });
}

export async function chooseBackend(page, name) {
  const group = page
    .getByRole("radiogroup", named("Backend"))
    .or(page.getByRole("group", named("Backend")))
    .first();
  const radio = group.getByRole("radio", named(name));
  await radio.check();
  await poll(() => radio.isChecked(), { what: `backend "${name}" to be selected` });
}

export async function setFencing(page, on) {
  const box = page.getByRole("checkbox", named("Fencing"));
  await box.setChecked(on);
  await poll(async () => (await box.isChecked()) === on, { what: `fencing ${on ? "on" : "off"}` });
}

/**
 * Chooses the resource's fencing mode by its words ("new holder fences on
 * takeover"), opening the resource's panel folded under the timeline as a
 * visitor would. A fresh run starts.
 */
export async function setFenceMode(page, words) {
  const select = page.getByRole("combobox", named("Fencing mode"));
  if (!(await select.isVisible())) await page.getByText(/^In detail: /).click();
  const option = select.getByRole("option", { name: new RegExp(`^${words}`) });
  const value = await option.getAttribute("value");
  await select.selectOption(value);
  await poll(async () => (await select.inputValue()) === value, { what: `fencing mode "${words}"` });
}

export async function setTtl(page, seconds) {
  const input = page
    .getByRole("spinbutton", named("TTL (s)"))
    .or(page.getByRole("textbox", named("TTL (s)")))
    .first();
  if ((await input.inputValue()) === String(seconds)) return;
  await input.fill(String(seconds));
  await input.press("Tab");
}

/**
 * Sets the speed to its maximum (8x) the way a keyboard user would: focus
 * the slider and press End. A number field is typed into instead.
 */
export async function setMaxSpeed(page) {
  const speed = page
    .getByRole("slider", named("Speed"))
    .or(page.getByRole("spinbutton", named("Speed")))
    .first();
  const kind = await speed.evaluate((el) => el.type);
  if (kind === "range") {
    await speed.focus();
    await speed.press("End");
  } else {
    await speed.fill(await speed.evaluate((el) => el.max || "8"));
    await speed.press("Tab");
  }
  await poll(() => speed.evaluate((el) => el.max !== "" && Number(el.value) === Number(el.max)), {
    what: "speed at its maximum",
  });
}

/** Starts the virtual clock if it is not running. */
export async function startClock(page) {
  await clockButton(page, "Start").click();
  await clockButton(page, "Pause").waitFor({ state: "visible", timeout: PATIENCE_MS });
}

/**
 * The busy page the frame budgets measure: every client asks for the lock,
 * then the clock runs at 8x.
 */
export async function runFourClients(page) {
  for (const id of CLIENTS) await cardButton(page, id, "Acquire").click();
  await startClock(page);
  await setMaxSpeed(page);
}

/** Freezes the virtual clock if it is running. */
export async function pauseClock(page) {
  await clockButton(page, "Pause").click();
  await clockButton(page, "Start").waitFor({ state: "visible", timeout: PATIENCE_MS });
}

/** Presses Step until `done()` holds, at most `limit` times. */
export async function stepUntil(page, done, what, limit = 200) {
  for (let i = 0; i < limit; i += 1) {
    if (await done()) return;
    await clockButton(page, "Step").click();
  }
  if (!(await done())) throw new Error(`${what}: not reached after ${limit} presses of Step`);
}

/** The event log's lines, newest first. */
export const eventLines = async (page) =>
  (await eventLog(page).getByRole("listitem").allInnerTexts()).map((line) => line.replace(/\s+/g, " ").trim());

/** How many visible elements show `text` right now (a string or RegExp). */
export async function visibleCount(page, text) {
  const matches = page.getByText(text);
  let shown = 0;
  for (const el of await matches.all()) if (await el.isVisible()) shown += 1;
  return shown;
}

/**
 * The scenario to run first (docs/scenarios.md): etcd, TTL 5 s, A acquires,
 * A is paused 8 s by its garbage collector with a write queued, B acquires
 * once A's lease is gone and writes, then A wakes and its write goes out.
 *
 * Every step up to B's write is taken with Step, one event at a time, with
 * the clock stopped: how fast the machine draws frames cannot change when a
 * click lands in virtual time. Only then does the clock start (unless
 * `start` is false), and what follows is the run's own.
 */
export async function playScenarioToRunFirst(page, { fencing, start = true }) {
  await chooseBackend(page, "etcd");
  await setFencing(page, fencing);
  await setTtl(page, 5);
  await setMaxSpeed(page);

  await cardButton(page, "A", "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "A")), "Client A holding");
  await card(page, "A").getByRole("combobox", named("Pause (s), client A")).selectOption("8");
  await cardButton(page, "A", "GC pause").click();
  await waitForCardState(page, "A", "paused");
  // Queued while A is frozen; it leaves the instant A wakes.
  await cardButton(page, "A", "Write on wake").click();

  // A's lease runs out at the service while A sleeps.
  await stepUntil(page, async () => /\bholder\s+nobody\b/i.test(await statusText(page)), "A's lease gone at the service");
  assert.match(await cardText(page, "A"), /\bpaused\b/i, "A is still frozen when its lease runs out");

  await cardButton(page, "B", "Acquire").click();
  await stepUntil(page, async () => /\bholding\b/i.test(await cardText(page, "B")), "Client B holding");
  await cardButton(page, "B", "Write").click();
  if (start) await startClock(page);
}

/** Runs axe-core on the page and lists every violation, whatever its impact. */
export async function axeViolations(page) {
  const require = createRequire(import.meta.url);
  // Evaluated through the DevTools protocol, which the page's
  // Content-Security-Policy does not govern; nothing is added to the page.
  await page.evaluate(await readFile(require.resolve("axe-core/axe.min.js"), "utf8"));
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map(
      (v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
    );
  });
}
