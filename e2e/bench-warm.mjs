// The list edits of the browser benchmark once the engine has optimized each
// page (rdc, leptos-fetch when built in, plain Leptos): each scenario runs ROUNDS
// rounds of 100 edits on a fresh mount per page, alternating the pages; the first round of each is
// dropped (cold code) and the medians of the rest are printed, with the median
// of the action's synchronous part (the store's write, wake-up and re-reads for
// rdc; the cached answer's update for leptos-fetch; the signal update for plain Leptos). Lists of 200 rows (100 for
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
  // Each edit starts in a task of its own, as a user's event does (not inside the
  // last edit's timer callback, where the browser clamps nested timers to 4 ms).
  const freshTask = () => new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });
  const out = [];
  for (let i = 0; i < 100; i++) {
    await freshTask();
    const [action, done] = listEdit(scenario, i);
    let sync = 0;
    const total = await measure(() => { const t0 = performance.now(); action(); sync = performance.now() - t0; }, done);
    out.push([total, sync]);
  }
  return out;
}, [impl, scenario]);

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
// The pages built in: leptos-fetch's only with bench-app's `leptos-fetch` feature.
const impls = await page.evaluate(() => ['plain', 'rdc', 'lf'].filter((impl) => bench[`mount_${impl}`]));
const label = { plain: 'plain Leptos', rdc: 'rdc', lf: 'leptos-fetch' };
// rdc against the floor, and leptos-fetch against rdc (as bench.mjs reports them).
const ratios = [['rdc / plain', (t) => t.rdc / t.plain], ['leptos-fetch / rdc', (t) => t.lf / t.rdc]]
  .filter(([name]) => impls.includes('lf') || !name.startsWith('leptos-fetch'));
console.log(`| scenario (warm) | ${impls.map((i) => `${label[i]} (ms)`).join(' | ')} | ${ratios.map(([name]) => name).join(' | ')} | synchronous part, ${impls.map((i) => label[i]).join(' / ')} (ms) |`);
console.log(`|---|${impls.map(() => '---:').join('|')}|${ratios.map(() => '---:').join('|')}|---:|`);
for (const scenario of ['update-entity', 'delete-item', 'unshift-item', 'move-item']) {
  const all = Object.fromEntries(impls.map((impl) => [impl, []]));
  for (let r = 0; r < Math.max(2, Number(rounds || 8)); r++) {
    // Which page goes first turns by one each round, as in bench.mjs.
    for (const impl of impls.map((_, k) => impls[(k + r) % impls.length])) {
      const samples = await round(impl, scenario);
      if (r > 0) all[impl].push(...samples);
    }
  }
  const total = Object.fromEntries(impls.map((i) => [i, median(all[i].map((s) => s[0]))]));
  const sync = impls.map((i) => median(all[i].map((s) => s[1])).toFixed(3));
  console.log(`| ${scenario} | ${impls.map((i) => total[i].toFixed(3)).join(' | ')} | ${ratios.map(([, of]) => `${of(total).toFixed(2)}x`).join(' | ')} | ${sync.join(' / ')} |`);
}
await browser.close();
