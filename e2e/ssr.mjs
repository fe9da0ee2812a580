// End-to-end test of the server-rendered demo (demo-ssr): the HTML the server
// sends holds each page's data before any script runs; after hydration the API
// server saw no request for that data; a mutation then updates the page; what
// the page carries cannot break out of its script; two users' pages rendered
// at once each hold only their own data.
// Usage: node e2e/ssr.mjs SSR_URL API_URL
import { launch, Checks } from './harness.mjs';

const [base, api] = process.argv.slice(2);
if (!base || !api) { console.error('usage: node e2e/ssr.mjs SSR_URL API_URL'); process.exit(2); }

const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
const checks = new Checks();
const { failures } = checks;
page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
page.on('console', (m) => { if (m.type() === 'error') failures.push(`console error: ${m.text()}`); });
const check = (name, fn) => checks.check(name, fn);

const clearLog = () => fetch(`${api}/api/requests`, { method: 'DELETE' });
const apiLog = async () => (await fetch(`${api}/api/requests`)).json();
// The API's log once it holds a line `until` accepts, waited for up to 5 s
// (the page may show a change before its request reaches the API).
async function apiLogWith(until) {
  const deadline = Date.now() + 5000;
  let log = await apiLog();
  while (!log.some(until) && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 50));
    log = await apiLog();
  }
  return log;
}
// The page's HTML as the server sends it, and the API requests it took.
async function serverHtml(path, headers = {}) {
  await clearLog();
  const html = await (await fetch(`${base}${path}`, { headers })).text();
  return { html, requests: await apiLog() };
}
const main = (html) => html.slice(html.indexOf('<main>'), html.indexOf('</main>') + 7);
// Prints where the page's data sits in the server's bytes: inline in <main>, or
// (out-of-order streaming) in the chunk that replaces the Suspense fallback.
function show(label, html, marker) {
  const at = html.indexOf(marker);
  const from = Math.max(html.lastIndexOf('<main>', at), html.lastIndexOf('<template', at));
  console.log(`     ${label}, bytes ${from}..: ${JSON.stringify(html.slice(from, from + 240))}…`);
}

// Loads `path` in Chromium, waits for hydration, and returns the API requests
// made from the page's first byte until 500 ms after it hydrated: those the
// server made rendering it, and those the browser made (through the demo's
// proxy, which marks them `via`).
async function hydrate(path) {
  await clearLog();
  await page.goto(`${base}${path}`);
  await page.locator('body[data-hydrated]').waitFor({ timeout: 30000 });
  await page.waitForTimeout(500);
  const log = await apiLog();
  const browser = log.filter((r) => r.includes(' via '));
  console.log(`     loading ${path}: the server asked ${JSON.stringify(log.filter((r) => !r.includes(' via ')))}; ` +
    `the browser, through hydration and 500 ms after: ${JSON.stringify(browser)}`);
  return browser;
}

await check('users: the server HTML holds the list; hydrating asks the API for nothing', async () => {
  const { html, requests } = await serverHtml('/users');
  show('/users', html, 'Ada Lovelace');
  console.log(`     API requests while the server rendered: ${JSON.stringify(requests)}`);
  if (!/<li data-id="u1">Ada Lovelace<\/li>/.test(main(html))) throw new Error('no Ada Lovelace in the server HTML');
  if (!html.includes('__RESOLVED_RESOURCES[')) throw new Error('the store slice is not in the page');
  if (JSON.stringify(requests) !== '["GET /api/users"]') throw new Error(`server render made ${JSON.stringify(requests)}`);
  const after = await hydrate('/users');
  if (after.length !== 0) throw new Error(`the browser asked for ${JSON.stringify(after)}`);
  const names = await page.locator('ul.users li').allTextContents();
  if (!names.join('|').startsWith('Ada Lovelace|Grace Hopper|Alan Turing')) throw new Error(`shows ${names}`);
});

const hostile = 'Eve </script><!-- \u2028 & <b>';
await check('users: after hydration a mutation updates the page (no refetch)', async () => {
  await clearLog();
  const before = await page.locator('ul.users li').count();
  await page.fill('#new-user', hostile);
  await page.click('button[type=submit]');
  await page.locator('ul.users li').nth(before).waitFor({ timeout: 5000 });
  const shown = await page.locator('ul.users li').last().textContent();
  if (shown !== hostile) throw new Error(`shows ${JSON.stringify(shown)}`);
  const log = await apiLogWith((r) => r.startsWith('POST /api/users'));
  if (JSON.stringify(log) !== '["POST /api/users via 1.1 rdc-demo-ssr"]') throw new Error(`requests: ${JSON.stringify(log)}`);
});

await check('a name with </script>, <!-- and U+2028 travels in the page and reads back exactly', async () => {
  const { html } = await serverHtml('/users');
  const end = html.indexOf('</html>');
  if (end < 0) throw new Error('no </html> in the page');
  const data = html.slice(end);
  // The carried store holds the name, every dangerous character escaped...
  const escaped = 'Eve \\\\u003c/script\\\\u003e\\\\u003c!-- \\\\u2028 \\\\u0026 \\\\u003cb\\\\u003e';
  if (!data.includes(escaped)) throw new Error(`the carried store does not hold the escaped name ${escaped}`);
  // ...and nothing raw: the only </script> are the ones closing the page's own scripts.
  if (/<\/script><!--|<!--|\u2028/.test(data.replace(/<\/script>(?=<script|$)/g, ''))) {
    throw new Error('the carried store holds a raw </script>, <!-- or U+2028');
  }
  const after = await hydrate('/users');
  if (after.length !== 0) throw new Error(`the browser asked for ${JSON.stringify(after)}`);
  const shown = await page.locator('ul.users li').last().textContent();
  if (shown !== hostile) throw new Error(`shows ${JSON.stringify(shown)}`);
});

await check('items: the server HTML holds the page; hydrating asks for nothing; Next fetches page 2', async () => {
  const { html, requests } = await serverHtml('/items');
  show('/items', html, 'Item 1<');
  console.log(`     API requests while the server rendered: ${JSON.stringify(requests)}`);
  // Out-of-order streaming: the fallback comes first, the resolved list later in the same response.
  if (!/<ul class="items"><li>Item 1<\/li>/.test(html)) throw new Error('no items in the server HTML');
  const after = await hydrate('/items');
  if (after.length !== 0) throw new Error(`the browser asked for ${JSON.stringify(after)}`);
  const first = await page.locator('ul.items li').first().textContent();
  await clearLog();
  await page.click('#next');
  await page.waitForFunction((f) => document.querySelector('ul.items li')?.textContent !== f, first, { timeout: 5000 });
  const log = await apiLog();
  if (log.length !== 1 || !/^GET \/api\/items\?cursor=\d+ via /.test(log[0])) throw new Error(`requests: ${JSON.stringify(log)}`);
});

await check("two users' pages rendered at once each hold only their own data", async () => {
  const users = ['ann', 'bo', 'cy', 'di'];
  const started = Date.now();
  const pages = await Promise.all(users.flatMap((u) => [u, u].map(async () => {
    const html = await (await fetch(`${base}/me`, { headers: { cookie: `user=${u}` } })).text();
    return { u, html };
  })));
  // /api/me answers after 300 ms: eight renders one after another would take 2.4 s.
  const took = Date.now() - started;
  console.log(`     8 pages for 4 users rendered at once in ${took} ms`);
  if (took >= 8 * 300) throw new Error(`the renders did not overlap (${took} ms)`);
  for (const { u, html } of pages) {
    if (!html.includes(`Signed in as <b>${u}</b>`)) throw new Error(`${u}'s page: ${JSON.stringify(main(html))}`);
    for (const other of users.filter((o) => o !== u)) {
      if (html.includes(`\\"name\\":\\"${other}\\"`) || html.includes(`<b>${other}</b>`)) throw new Error(`${u}'s page holds ${other}'s data`);
    }
  }
  const hydrated = await page.context().addCookies([{ name: 'user', value: 'ann', url: base }])
    .then(() => hydrate('/me'));
  if (hydrated.length !== 0) throw new Error(`the browser asked for ${JSON.stringify(hydrated)}`);
  if ((await page.locator('#me').textContent()) !== 'Signed in as ann') throw new Error('the hydrated page lost its user');
});

await check('an error the server met comes with the page: the same text, no request after hydration', async () => {
  await page.context().clearCookies();
  const { html } = await serverHtml('/me');
  if (!/<div class="error"><p>[^<]*HTTP 401[^<]*<\/p>/.test(html)) throw new Error(`no 401 in ${JSON.stringify(main(html))}`);
  const after = await hydrate('/me');
  if (after.length !== 0) throw new Error(`the browser asked for ${JSON.stringify(after)}`);
  const shown = await page.locator('main .error').textContent();
  if (!shown.includes('401')) throw new Error(`shows ${JSON.stringify(shown)}`);
});

await browser.close();
checks.finish('server-rendered demo e2e');
