// Where a list edit of the browser benchmark spends its time: samples the V8
// profiler (1 sample per 20 us) in Debian's headless Chromium over ROUNDS rounds
// of 100 edits, each on a fresh mount of ROWS rows (the mounts themselves are
// not sampled, except in getlist), and prints the functions by inclusive and by
// self time (ms over all the edits). Run it on a page served with its debug names
// (what scripts/bench-browser serves), for one page at a time: compare the pages'
// tables, or two builds'.
// Usage: node e2e/bench-profile.mjs BASE_URL SCENARIO PAGE [ROWS] [ROUNDS]
//   SCENARIO: update-entity | delete-item | unshift-item | move-item, or getlist (100
//   mounts of ROWS rows are sampled instead); PAGE: rdc | plain | lf
// PROFILE_MATCH=regex keeps only the functions whose names match it;
// PROFILE_DUMP=prefix also writes each round's profile to prefix.N.json.
import fs from 'fs';
import { openBenchPage } from './bench-page.mjs';

const [base, scenario, impl, rowsArg, roundsArg] = process.argv.slice(2);
const rows = Number(rowsArg || 200);
const rounds = Number(roundsArg || 10);
const { browser, page } = await openBenchPage(base);

const mount = () => page.evaluate(async ([impl, n]) => {
  await measure(() => bench[`mount_${impl}`](n, 10), (r) => r.querySelectorAll('li').length === n);
}, [impl, rows]);
const edits = () => scenario === 'getlist'
  ? page.evaluate(async ([impl, n]) => {
    for (let i = 0; i < 100; i++) {
      bench.unmount();
      await measure(() => bench[`mount_${impl}`](n, 10), (r) => r.querySelectorAll('li').length === n);
    }
  }, [impl, rows])
  : page.evaluate(async (scenario) => {
    for (let i = 0; i < 100; i++) await measure(...listEdit(scenario, i));
  }, scenario);

// Warm-up rounds, not sampled.
for (let r = 0; r < 2; r++) { await mount(); await edits(); }
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 20 });
const inclusive = new Map();
const self = new Map();
let total = 0;
const add = (map, name, us) => map.set(name, (map.get(name) || 0) + us);
for (let r = 0; r < rounds; r++) {
  await mount();
  await cdp.send('Profiler.start');
  await edits();
  const { profile } = await cdp.send('Profiler.stop');
  if (process.env.PROFILE_DUMP) fs.writeFileSync(`${process.env.PROFILE_DUMP}.${r}.json`, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const name = (n) => (n.callFrame.functionName || '(anonymous)').replace(/::h[0-9a-f]{16}$/, '');
  profile.samples.forEach((id, i) => {
    const leaf = byId.get(id);
    if (['(idle)', '(program)', '(garbage collector)'].includes(leaf.callFrame.functionName)) return;
    const us = profile.timeDeltas[i + 1] || 0;
    total += us;
    add(self, name(leaf), us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const fn = name(byId.get(at));
      if (!seen.has(fn)) { seen.add(fn); add(inclusive, fn, us); }
    }
  });
}
await browser.close();

const keep = process.env.PROFILE_MATCH ? new RegExp(process.env.PROFILE_MATCH) : null;
const table = (title, map, n) => {
  console.log(`\n${title}`);
  const top = [...map.entries()].filter(([k]) => !keep || keep.test(k)).sort((a, b) => b[1] - a[1]).slice(0, n);
  for (const [k, us] of top) console.log(`${(us / 1000).toFixed(1).padStart(8)}  ${k.slice(0, 150)}`);
};
console.log(`${scenario} on the ${impl} page, ${rows} rows: ${rounds * 100} edits sampled, ${(total / 1000).toFixed(1)} ms`);
table('inclusive (ms)', inclusive, 40);
table('self (ms)', self, 30);
