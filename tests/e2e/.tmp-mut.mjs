import { launchBrowser, startServer } from "../../scripts/lib/browser.mjs";
import { readFile } from "node:fs/promises";
import { openPage, runFourClients, startClock, setMaxSpeed } from "./ui.mjs";
const dist = process.argv[2] ?? "dist";
const browser = await launchBrowser();
const server = await startServer(dist);
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const link = process.argv[3];
const page = await openPage(context, link ? `${server.url}#${(await readFile(link, "utf8")).trim()}` : server.url);
if (link) {
  await page.getByRole("slider", { name: /^Playhead/ }).press("Home");
  await startClock(page);
  await setMaxSpeed(page);
} else {
  await runFourClients(page);
}
await page.waitForTimeout(500);
const out = await page.evaluate(async () => {
  const counts = {};
  const name = (n) => {
    let e = n.nodeType === 1 ? n : n.parentElement;
    const path = [];
    while (e && path.length < 3) {
      const c = typeof e.className === "string" ? e.className : e.className?.baseVal;
      if (c) path.push(`${e.tagName.toLowerCase()}.${c.split(" ")[0]}`);
      e = e.parentElement;
    }
    return path.join("<");
  };
  const obs = new MutationObserver((recs) => {
    for (const r of recs) {
      const k = `${r.type}${r.attributeName ? ":" + r.attributeName : ""} ${r.target.nodeName}|${name(r.target)}`;
      counts[k] = (counts[k] ?? 0) + 1;
      for (const n of r.addedNodes) {
        const c = typeof n.className === "string" ? n.className : n.className?.baseVal ?? "";
        const a = `  added ${n.nodeName}.${c.split(" ")[0]} into ${r.target.nodeName}|${name(r.target)}`;
        counts[a] = (counts[a] ?? 0) + 1;
      }
    }
  });
  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  await new Promise((ok) => setTimeout(ok, 4000));
  obs.disconnect();
  return Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 45);
});
for (const [k, v] of out) console.log(String(v).padStart(6), k);
await browser.close();
await server.close?.();
process.exit(0);
