// The browser benchmark runner (Step 7): rdc against the same list in leptos-fetch
// (when the page is built with it) and in plain Leptos signals, in Debian's headless
// Chromium. Prints a table and writes JSON.
// Usage: node e2e/bench.mjs BASE_URL OUT_JSON [REPEATS]
// Each scenario runs BENCH_ROUNDS (default 3) rounds of REPEATS (default 30) steps per
// page, the pages alternating; the medians are over all of a page's steps.
// BENCH_ONLY=update-entity,delete-item runs only those scenarios (and no memory cycle).
import { openBenchPage } from './bench-page.mjs';
import fs from 'fs';

const [base, out, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg || 30);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const { browser, page } = await openBenchPage(base, ['--disable-component-update', '--disable-sync', '--js-flags=--expose-gc', '--enable-precise-memory-info']);
const isolated = await page.evaluate(() => window.crossOriginIsolated);
console.error(`cross-origin isolated: ${isolated} (timer resolution ${isolated ? '5 us' : '100 us'})`);

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
// The pages built in: leptos-fetch's only with bench-app's `leptos-fetch` feature.
const impls = await page.evaluate(() => ['plain', 'rdc', 'lf'].filter((impl) => bench[`mount_${impl}`]));

// Each scenario: setup(impl) then a timed step; returns ms.
const scenarios = {
  'getlist-100': (impl) => page.evaluate(async (impl) => {
    bench.unmount();
    return measure(() => bench[`mount_${impl}`](100, 10), (r) => r.querySelectorAll('li').length === 100);
  }, impl),
  'getlist-500': (impl) => page.evaluate(async (impl) => {
    bench.unmount();
    return measure(() => bench[`mount_${impl}`](500, 10), (r) => r.querySelectorAll('li').length === 500);
  }, impl),
  'update-entity': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](100, 10), (r) => r.querySelectorAll('li').length === 100);
    const v = i + 1;
    return measure(() => bench.update_item(5, v), (r) => rowText(r, 5).startsWith(`item 5 v${v} `));
  }, [impl, i]),
  'update-user': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](100, 1), (r) => r.querySelectorAll('li').length === 100);
    const v = i + 1;
    // The first and the last row by author 0 (the check reads two rows, not the page).
    const t = await measure(() => bench.update_author(0, v), (r) => rowText(r, 0).endsWith(`author 0 v${v}`) && rowText(r, 99).endsWith(`author 0 v${v}`));
    // Untimed: every row by author 0 shows the new name (the timed check reads two).
    if (![...document.querySelector('#root ul').children].every((li) => li.textContent.endsWith(`author 0 v${v}`))) throw new Error('update-user: a row was not updated');
    return t;
  }, [impl, i]),
  'update-user-10000': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](10000, 100), (r) => r.querySelectorAll('li').length === 10000);
    const v = i + 1;
    // Author 0 wrote items 0, 100, ..., 9900: the first and the last of them.
    const t = await measure(() => bench.update_author(0, v), (r) => rowText(r, 0).endsWith(`author 0 v${v}`) && rowText(r, 9900).endsWith(`author 0 v${v}`));
    // Untimed: every row by author 0 (items 0, 100, ..., 9900) shows the new name.
    const rows = [...document.querySelector('#root ul').children];
    if (!rows.every((li, k) => k % 100 !== 0 || li.textContent.endsWith(`author 0 v${v}`))) throw new Error('update-user-10000: a row was not updated');
    return t;
  }, [impl, i]),
  'delete-item': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](200, 10), (r) => r.querySelectorAll('li').length === 200);
    const before = document.querySelectorAll('#root li').length;
    return measure(() => bench.delete_item(i), (r) => r.querySelectorAll('li').length === before - 1);
  }, [impl, i]),
  // The same in a list of 10,000 (100 authors): what a list edit costs as lists grow.
  'delete-item-10000': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](10000, 100), (r) => r.querySelectorAll('li').length === 10000);
    const before = document.querySelector('#root ul').children.length;
    return measure(() => bench.delete_item(i * 7), (r) => r.querySelector('ul').children.length === before - 1);
  }, [impl, i]),
  'unshift-item': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](100, 10), (r) => r.querySelectorAll('li').length === 100);
    const id = 1000 + i;
    return measure(() => bench.unshift_item(id), (r) => (r.querySelector('li')?.textContent || '').startsWith(`item ${id} `));
  }, [impl, i]),
  'move-item': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](100, 10), (r) => r.querySelectorAll('li').length === 100);
    const rows = document.querySelectorAll('#root li');
    const last = rows[rows.length - 1].textContent;
    return measure(() => bench.move_item(rows.length - 1), (r) => r.querySelector('li').textContent === last);
  }, [impl, i]),
  'list-detail-switch': (impl, i) => page.evaluate(async ([impl, i]) => {
    if (i === 0) await measure(() => bench[`mount_${impl}`](100, 10), (r) => r.querySelectorAll('li').length === 100);
    const id = i % 100;
    const toDetail = await measure(() => bench.show_detail(id), (r) => (r.querySelector('article')?.textContent || '').startsWith(`detail ${id}:`));
    const toList = await measure(() => bench.show_detail(undefined), (r) => r.querySelectorAll('li').length === 100);
    return toDetail + toList;
  }, [impl, i]),
};

// Warm page settles between runs so one scenario's garbage does not land in the next.
const results = {};
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : null;
for (const [name, run] of Object.entries(scenarios)) {
  if (only && !only.includes(name)) continue;
  console.error(`running ${name}`);
  // Rounds alternate the pages (and which goes first: the order turns by one each
  // round), each on a fresh mount, so a slow stretch of the machine lands on every side.
  const samples = Object.fromEntries(impls.map((impl) => [impl, []]));
  for (let round = 0; round < rounds; round++) {
    const order = impls.map((_, k) => impls[(k + round) % impls.length]);
    for (const impl of order) {
      for (let i = 0; i < repeats; i++) samples[impl].push(await run(impl, i));
    }
  }
  results[name] = Object.fromEntries(impls.map((impl) => [impl, median(samples[impl])]));
  await page.evaluate(() => { bench.unmount(); if (window.gc) gc(); });
}

// Memory: 1,000 mount/unmount cycles of the list over one store (after 200 to warm up).
const memory = only ? null : await page.evaluate(async () => {
  const heap = () => { if (window.gc) gc(); return performance.memory ? performance.memory.usedJSHeapSize : 0; };
  // Microtask yields only: timers in a headless page may be throttled to 1 s.
  const cycles = async (n) => {
    for (let i = 0; i < n; i++) { bench.mount_rdc_shared(100, 10); await Promise.resolve(); bench.unmount(); await Promise.resolve(); }
  };
  await cycles(200);
  // The cycle does render its rows (checked once, then not waited for).
  const rendered = await measure(() => bench.mount_rdc_shared(100, 10), (r) => r.querySelectorAll('li').length === 100);
  bench.unmount();
  const start = { heap: heap(), wasm: wasmMemoryBytes(), counts: bench.shared_counts() };
  await cycles(1000);
  const end = { heap: heap(), wasm: wasmMemoryBytes(), counts: bench.shared_counts() };
  return { heapStartBytes: start.heap, heapEndBytes: end.heap, wasmStartBytes: start.wasm, wasmEndBytes: end.wasm,
    countsStart: start.counts, countsEnd: end.counts, renderedMs: rendered };
});

await browser.close();
const lf = impls.includes('lf');
console.log(`| scenario | rdc (ms) |${lf ? ' leptos-fetch (ms) |' : ''} plain Leptos (ms) | rdc / plain |${lf ? ' leptos-fetch / rdc |' : ''}`);
console.log(`|---|---:|${lf ? '---:|' : ''}---:|---:|${lf ? '---:|' : ''}`);
for (const [name, r] of Object.entries(results)) {
  const peer = lf ? [` ${r.lf.toFixed(2)} |`, ` ${(r.lf / r.rdc).toFixed(2)}x |`] : ['', ''];
  console.log(`| ${name} | ${r.rdc.toFixed(2)} |${peer[0]} ${r.plain.toFixed(2)} | ${(r.rdc / r.plain).toFixed(2)}x |${peer[1]}`);
}
if (only) process.exit(0);
const ratio = results['update-user-10000'].rdc / results['update-user'].rdc;
console.log(`\nupdate-user-10000 / update-user (rdc): ${ratio.toFixed(2)}x`);
console.log(`1,000 rdc mount/unmount cycles over one store: JS heap ${(memory.heapStartBytes / 1e6).toFixed(2)} MB -> ${(memory.heapEndBytes / 1e6).toFixed(2)} MB, wasm memory ${(memory.wasmStartBytes / 1e6).toFixed(2)} MB -> ${(memory.wasmEndBytes / 1e6).toFixed(2)} MB, entities / listeners / timeouts ${memory.countsStart} -> ${memory.countsEnd}`);
fs.writeFileSync(out, JSON.stringify({ repeats, rounds, isolated, results, memory, date: new Date().toISOString() }, null, 2));
