// The list edits of the browser benchmark once the engine has optimized both
// pages (rdc and plain Leptos): each scenario runs ROUNDS rounds of 100 edits on
// a fresh mount per page, alternating the pages; the first round of each is
// dropped (cold code) and the medians of the rest are printed, with the median
// of the action's synchronous part (the store's write, wake-up and re-reads for
// rdc; the signal update for plain Leptos). Lists of 200 rows (100 for
// update-entity). ROUNDS is at least 2 (one is dropped).
// Usage: node e2e/bench-warm.mjs BASE_URL [ROUNDS]   (scripts/bench-browser with RDC_BENCH_WARM=1)
import { openBenchPage } from './bench-page.mjs';

const [base, rounds] = process.argv.slice(2);
const { browser, page } = await openBenchPage(base);

// One round: mount `impl` (200 rows; 100 for updates), then 100 edits.
// Returns [time to the DOM, synchronous part] per edit.
const round = (impl, scenario) => page.evaluate(async ([impl, scenario]) => {
  const n = scenario === 'update-entity' ? 100 : 200;
  await measure(() => bench[`mount_${impl}`](n, 10), (r) => r.querySelectorAll('li').length === n);
  const out = [];
  for (let i = 0; i < 100; i++) {
    const [action, done] = listEdit(scenario, i);
    let sync = 0;
    const total = await measure(() => { const t0 = performance.now(); action(); sync = performance.now() - t0; }, done);
    out.push([total, sync]);
  }
  return out;
}, [impl, scenario]);

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
console.log('| scenario (warm) | plain Leptos (ms) | rdc (ms) | rdc / plain | synchronous part, plain / rdc (ms) |');
console.log('|---|---:|---:|---:|---:|');
for (const scenario of ['update-entity', 'delete-item', 'unshift-item', 'move-item']) {
  const all = { plain: [], rdc: [] };
  for (let r = 0; r < Math.max(2, Number(rounds || 8)); r++) {
    // Which page goes first alternates by round, as in bench.mjs.
    for (const impl of r % 2 ? ['rdc', 'plain'] : ['plain', 'rdc']) {
      const samples = await round(impl, scenario);
      if (r > 0) all[impl].push(...samples);
    }
  }
  const [p, q] = [median(all.plain.map((s) => s[0])), median(all.rdc.map((s) => s[0]))];
  const [ps, qs] = [median(all.plain.map((s) => s[1])), median(all.rdc.map((s) => s[1]))];
  console.log(`| ${scenario} | ${p.toFixed(3)} | ${q.toFixed(3)} | ${(q / p).toFixed(2)}x | ${ps.toFixed(3)} / ${qs.toFixed(3)} |`);
}
await browser.close();
