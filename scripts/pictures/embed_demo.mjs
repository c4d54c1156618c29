// A screenshot of the demo course page (dist/embed-demo/, docs/embed.md)
// at a host page's width: its two embeds, sized by their height events,
// after the first one is sent to key moment 5 through the host-page API.
//
// Usage: node scripts/pictures/embed_demo.mjs OUT.png [--width 390] [--dark]

import { parseArgs } from "node:util";
import { launchBrowser, startServer } from "../lib/browser.mjs";
import { poll, started } from "../../tests/e2e/ui.mjs";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dist: { type: "string", default: "dist" },
    width: { type: "string", default: "390" },
    height: { type: "string", default: "800" },
    dark: { type: "boolean", default: false },
  },
});
const out = positionals[0] ?? "embed-demo.png";
const server = await startServer(args.dist);
const browser = await launchBrowser();
try {
  const page = await browser.newPage({
    viewport: { width: Number(args.width), height: Number(args.height) },
    colorScheme: args.dark ? "dark" : "light",
  });
  await page.goto(`${server.url}embed-demo/`);
  for (const id of ["embed-a", "embed-b"]) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await started(page.frameLocator(`#${id}`));
  }
  await page.getByRole("button", { name: "Go to key moment 5" }).first().click();
  await poll(async () => page.evaluate(() => window.distlockDemo.events.some((e) => e.event === "moment" && e.n === 5)), {
    what: "key moment 5",
  });
  // Let the height events settle.
  await page.waitForTimeout(600);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
}
