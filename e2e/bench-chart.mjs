// A bar chart (SVG) of the browser benchmark's figures: per scenario, the three
// pages side by side (rdc, leptos-fetch, plain signals), as time relative to the
// plain page on a log scale, each bar labelled with its milliseconds.
// Usage: node e2e/bench-chart.mjs docs/benchmarks-browser.json docs/benchmarks-browser.svg
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node e2e/bench-chart.mjs BENCH.json OUT.svg");
  process.exit(2);
}
const data = JSON.parse(readFileSync(input, "utf8"));
const pages = [
  ["rdc", "rdc", "#3b6fd4"],
  ["lf", "leptos-fetch", "#e0912f"],
  ["plain", "plain signals", "#8a8a8a"],
];
const scenarios = Object.entries(data.results ?? {}).filter(([, r]) => r && r.plain > 0);

// Layout: one row per bar, grouped by scenario; the x axis is log2(time / plain).
const left = 170, right = 120, top = 58, bar = 13, gap = 2, groupGap = 14;
const width = 900;
const plot = width - left - right;
const ratios = scenarios.flatMap(([, r]) => pages.map(([k]) => r[k] / r.plain).filter((x) => x > 0));
if (ratios.length === 0) {
  console.error("bench-chart: no scenario with figures in the input");
  process.exit(1);
}
const lo = Math.min(0.25, 2 ** Math.floor(Math.log2(Math.min(...ratios))));
const hi = Math.max(4, 2 ** Math.ceil(Math.log2(Math.max(...ratios))));
const x = (ratio) => left + ((Math.log2(ratio) - Math.log2(lo)) / (Math.log2(hi) - Math.log2(lo))) * plot;
const groupHeight = pages.length * (bar + gap) + groupGap;
const height = top + scenarios.length * groupHeight + 30;
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const parts = [];
parts.push(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
  `<rect width="100%" height="100%" fill="white"/>`,
  `<text x="${left}" y="18" font-size="14" font-weight="bold">Browser benchmark: time relative to plain Leptos signals (log scale; lower is faster)</text>`,
);
pages.forEach(([, label, color], i) => {
  const lx = left + i * 140;
  parts.push(`<rect x="${lx}" y="28" width="12" height="12" fill="${color}"/>`);
  parts.push(`<text x="${lx + 17}" y="38">${esc(label)}</text>`);
});
// Grid lines at powers of two.
for (let r = lo; r <= hi + 1e-9; r *= 2) {
  const gx = x(r).toFixed(1);
  const base = r === 1;
  parts.push(
    `<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${height - 26}" stroke="${base ? "#444" : "#ddd"}" stroke-width="${base ? 1.2 : 1}"/>`,
  );
  parts.push(`<text x="${gx}" y="${height - 12}" text-anchor="middle" fill="#555">${r >= 1 ? r : r.toFixed(2)}x</text>`);
}
scenarios.forEach(([name, r], g) => {
  const y0 = top + g * groupHeight;
  const mid = y0 + (pages.length * (bar + gap)) / 2;
  parts.push(`<text x="${left - 8}" y="${mid + 4}" text-anchor="end" font-weight="bold">${esc(name)}</text>`);
  pages.forEach(([key, label, color], i) => {
    const ms = r[key];
    if (!(ms > 0)) return;
    const ratio = ms / r.plain;
    const y = y0 + i * (bar + gap);
    const from = Math.min(x(lo), x(ratio));
    const w = Math.max(1, x(ratio) - x(lo));
    parts.push(
      `<rect x="${from.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${bar}" fill="${color}"><title>${esc(`${name}, ${label}: ${ms.toFixed(2)} ms (${ratio.toFixed(2)}x plain)`)}</title></rect>`,
    );
    parts.push(
      `<text x="${(x(ratio) + 4).toFixed(1)}" y="${y + bar - 3}" fill="#222">${ms.toFixed(2)} ms · ${ratio.toFixed(2)}x</text>`,
    );
  });
});
parts.push("</svg>");
writeFileSync(output, parts.join("\n") + "\n");
console.log(`wrote ${output} (${scenarios.length} scenarios)`);
