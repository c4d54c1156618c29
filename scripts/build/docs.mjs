#!/usr/bin/env node
// Trunk's post-build hook: writes the project's own docs as HTML pages
// beside the page, in docs/ of the build, so the page can link to them
// relatively (there is no public project address): README.md as
// docs/readme.html and every docs/*.md as docs/<name>.html (the sources of
// the page's defaults, the real-server check's latest results).
//
// A small Markdown reader of the subset these files use: headings (with
// GitHub's anchors, or an explicit `{#id}`), paragraphs, lists, fenced
// code, tables, and inline code, links, bold and italics. Everything else
// is escaped text. Links to another of these files become links to its
// page. Not part of the page's first load: fetched only when followed.
//
// Usage: node scripts/build/docs.mjs [OUT_DIR]   (default: $TRUNK_STAGING_DIR/docs)
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const out = process.argv[2] ?? join(process.env.TRUNK_STAGING_DIR ?? join(root, "dist"), "docs");

const escape = (s) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export const slug = (text) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");

/** A link to README.md or a docs/*.md file, as the matching page. */
function pageOf(href) {
  const m = href.match(/^(?:\.\.\/|\.\/)?(?:docs\/)?([\w.-]+)\.md(#.*)?$/);
  if (!m) return href;
  const name = m[1] === "README" ? "readme" : m[1];
  return `${name}.html${m[2] ?? ""}`;
}

function inline(text) {
  const parts = text.split(/(`[^`]*`)/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${escape(part.slice(1, -1))}</code>`;
      let s = escape(part);
      s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t, href) => `<a href="${pageOf(href)}">${t}</a>`);
      s = s.replace(/(^|[\s(])(https?:\/\/[^\s<)]+[^\s<).,;:])/g, (_, pre, url) => `${pre}<a href="${url}">${url}</a>`);
      s = s.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
      s = s.replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
      s = s.replace(/(^|[\s(])_([^_\s][^_]*)_(?=[\s).,;:]|$)/g, "$1<em>$2</em>");
      return s;
    })
    .join("");
}

function heading(line, used) {
  const m = line.match(/^(#{1,6})\s+(.*?)\s*(?:\{#([\w-]+)\})?$/);
  const level = m[1].length;
  let id = m[3] ?? slug(m[2].replace(/`/g, ""));
  if (!m[3]) {
    const n = used.get(id) ?? 0;
    used.set(id, n + 1);
    if (n > 0) id = `${id}-${n}`;
  }
  return `<h${level} id="${id}">${inline(m[2])}</h${level}>`;
}

function table(rows) {
  const cells = (row) => row.replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  const [head, , ...body] = rows;
  const th = cells(head).map((c) => `<th scope="col">${inline(c)}</th>`).join("");
  const trs = body.map((r) => `<tr>${cells(r).map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`);
  return `<div class="wrap"><table><thead><tr>${th}</tr></thead><tbody>${trs.join("")}</tbody></table></div>`;
}

/** A list, its items' continuation lines folded in. */
function list(lines) {
  const ordered = /^\d+\./.test(lines[0]);
  const items = [];
  for (const line of lines) {
    if (/^(\s*)([-*]|\d+\.)\s+/.test(line) && !/^\s{2,}/.test(line)) items.push(line.replace(/^([-*]|\d+\.)\s+/, ""));
    else items[items.length - 1] += " " + line.trim();
  }
  const tag = ordered ? "ol" : "ul";
  return `<${tag}>${items.map((i) => `<li>${inline(i)}</li>`).join("")}</${tag}>`;
}

export function render(markdown) {
  const lines = markdown.replace(/\r\n/g, "\n").split("\n");
  const html = [];
  const used = new Map();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const code = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
      html.push(`<pre><code>${escape(code.join("\n"))}</code></pre>`);
      i++;
    } else if (/^#{1,6}\s/.test(line)) {
      html.push(heading(line, used));
      i++;
    } else if (/^\|/.test(line)) {
      const rows = [];
      for (; i < lines.length && /^\|/.test(lines[i]); i++) rows.push(lines[i]);
      html.push(table(rows));
    } else if (/^([-*]|\d+\.)\s+/.test(line)) {
      const items = [];
      for (; i < lines.length && lines[i].trim() !== "" && !/^#{1,6}\s|^```|^\|/.test(lines[i]); i++) items.push(lines[i]);
      html.push(list(items));
    } else if (line.trim() === "") {
      i++;
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() !== "" && !/^(#{1,6}\s|```|\||[-*]\s|\d+\.\s)/.test(lines[i]); i++) para.push(lines[i]);
      if (para.length === 0) para.push(lines[i++]);
      html.push(`<p>${inline(para.join(" "))}</p>`);
    }
  }
  return html.join("\n");
}

const STYLE = `body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:52rem;margin:0 auto;padding:1rem 1.2rem 3rem;color:#1a1d23;background:#f5f6f8}
a{color:#1d4ed8}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
pre{background:#fff;border:1px solid #d3d7de;border-radius:6px;padding:.6rem;overflow:auto}
.wrap{overflow-x:auto}table{border-collapse:collapse;margin:.6rem 0}th,td{border:1px solid #d3d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
:target{outline:3px solid #2563eb;outline-offset:2px}nav{font-size:.9rem;margin-bottom:1rem}
@media (prefers-color-scheme:dark){body{color:#e7e9ee;background:#0f1115}a{color:#8ab4ff}pre{background:#181b21;border-color:#39404c}th,td{border-color:#39404c}}`;

function page(title, body) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>${escape(title)} · Distributed Lock Simulator</title><style>${STYLE}</style></head>
<body><nav><a href="../">Back to the simulator</a> · <a href="readme.html">README</a> · <a href="sources.html">Sources of the defaults</a> · <a href="fidelity.html">Real-server check</a></nav>
<main>
${body}
</main></body></html>
`;
}

async function main() {
  await mkdir(out, { recursive: true });
  const inputs = [["readme", join(root, "README.md")]];
  for (const name of (await readdir(join(root, "docs"))).sort()) {
    if (name.endsWith(".md")) inputs.push([basename(name, ".md"), join(root, "docs", name)]);
  }
  for (const [name, path] of inputs) {
    const markdown = await readFile(path, "utf8");
    const title = (markdown.match(/^#\s+(.*)$/m) ?? [, name])[1];
    await writeFile(join(out, `${name}.html`), page(title, render(markdown)));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(`docs: ${e.message}`);
    process.exit(1);
  });
}
