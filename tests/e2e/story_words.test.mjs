// A story's long words (what happens, what fixes it) are not in the page's
// first load: the page fetches stories.json when a visitor first loads a
// story, and shows them under "What happens, and what fixes it" as the
// system at hand tells the story. In headless Chromium against the release
// build.
//
// Run: `trunk build --release --offline && node --test tests/e2e/story_words.test.mjs`

import { after, test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { chooseBackend, named, poll, started, tour } from "./ui.mjs";

const TEST_TIMEOUT_MS = 90_000;

const suite = browserSuite();

/** Loads a story from the menu, by its title. */
async function loadStory(page, title) {
  await page.getByRole("button", named("Stories")).click();
  await page.getByRole("button", named(title)).click();
}

/** Unfolds the story's words and returns them once they are shown. */
async function storyWords(page, expected) {
  const about = page.locator(".stories__about");
  if ((await about.getAttribute("open")) === null) {
    await about.getByText("What happens, and what fixes it", { exact: true }).click();
  }
  return poll(
    async () => {
      const text = (await about.innerText()).replace(/\s+/g, " ");
      return expected.test(text) && text;
    },
    { what: `the story's words to match ${expected}` },
  );
}

test("the words come with the first story loaded, never with the page, and each system tells its own", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  after(() => assert.deepEqual(suite.problems, [], suite.problems.join("\n")));
  const fetched = [];
  const context = await suite.context(t);
  context.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith("/stories.json")) fetched.push(request.url());
  });
  const page = await context.newPage();
  await page.goto(suite.server.url);
  await started(page);
  await page.getByRole("region", named("Client A")).waitFor();
  assert.deepEqual(fetched, [], "the first screen fetches no story's words");

  await loadStory(page, "A GC pause outlives the lease");
  const words = await storyWords(page, /What happens A holds the lock and freezes in a GC pause/);
  assert.match(words, /What fixes it Fencing: B's write raised the highest accepted token/);
  assert.equal(fetched.length, 1);

  // PostgreSQL tells the same story its own way: no lease, nothing to fix.
  await chooseBackend(page, "PostgreSQL");
  await storyWords(page, /A holds PostgreSQL's advisory lock 42 and freezes for 8 s/);
  await loadStory(page, "Sent in time, arrived late");
  await storyWords(page, /the packet sits in the network for 7 s/);
  assert.equal(fetched.length, 1, "fetched once for every story");
});

test("words that cannot be fetched say so in their place, and the story plays on", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const problems = [];
  const context = await suite.context(t, {}, problems);
  await context.route("**/stories.json", (route) => route.fulfill({ status: 404, body: "not found" }));
  const page = await context.newPage();
  await page.goto(suite.server.url);
  await started(page);
  await page.getByRole("region", named("Client A")).waitFor();
  await loadStory(page, "A GC pause outlives the lease");
  await storyWords(page, /The story's words could not be loaded: the server answered 404/);
  assert.equal(await page.locator(".try").count(), 0, "the fix is offered only after the break");
  await tour(page).getByRole("button", named("Next")).click();
  await poll(async () => /Key moment 1 of/.test(await tour(page).innerText()), {
    what: "the tour to go on",
  });
  // The browser logs the failed fetch itself; nothing else went wrong.
  assert.deepEqual(problems.filter((p) => !/stories\.json|404/.test(p)), [], problems.join("\n"));
});
