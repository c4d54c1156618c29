// The Stories menu at every width from a small phone to a wide screen: it
// never scrolls sideways, no group title or story title is clipped, and a
// story's title takes at most two lines.
//
// Run: `trunk build --release --offline && node --test tests/e2e/stories_menu_fit.test.mjs`

import { test } from "node:test";
import assert from "node:assert/strict";

import { browserSuite } from "./suite.mjs";
import { named } from "./ui.mjs";

const TEST_TIMEOUT_MS = 120_000;
const WIDTHS = [320, 390, 640, 900, 1024, 1280, 1600, 1920];

const suite = browserSuite();

/** What overflows in the open menu, measured in the page. */
function overflows(menu) {
  const bad = [];
  if (menu.scrollWidth > menu.clientWidth + 1) {
    bad.push(`the menu scrolls sideways: ${menu.scrollWidth} px of content in ${menu.clientWidth} px`);
  }
  for (const title of menu.querySelectorAll(".stories__group-title")) {
    if (title.scrollWidth > title.clientWidth + 1) bad.push(`the title "${title.textContent}" is clipped`);
  }
  for (const button of menu.querySelectorAll("button")) {
    const style = getComputedStyle(button);
    if (button.scrollWidth > button.clientWidth + 1) bad.push(`"${button.textContent}" is clipped`);
    const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.25;
    const text = button.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)
      - parseFloat(style.borderTopWidth) - parseFloat(style.borderBottomWidth);
    if (text > line * 2 + 2) bad.push(`"${button.textContent}" takes ${Math.round(text / line)} lines`);
  }
  return bad;
}

for (const width of WIDTHS) {
  test(`at ${width} px the open Stories menu fits, its words whole`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const page = await suite.page(t, "", { viewport: { width, height: 800 } });
    await page.getByRole("button", named("Stories")).click();
    const menu = page.getByRole("navigation", named("Stories by backend"));
    await menu.waitFor();
    assert.deepEqual(await menu.evaluate(overflows), [], `at ${width} px`);
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      `at ${width} px the page does not scroll sideways`,
    );
  });
}

test("the suite saw no console error, warning or off-origin request", () => {
  assert.deepEqual(suite.problems, [], suite.problems.join("\n"));
});

