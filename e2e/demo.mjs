// End-to-end test of the rdc demo: visits every page in Debian's headless Chromium,
// clicks through create, paginate, download, the spec's other recipes and fault
// recovery, asserts what the page shows, and saves a screenshot of each page to SHOTS_DIR.
// Usage: node e2e/demo.mjs http://127.0.0.1:PORT SHOTS_DIR   (the demo's dist/ served with the API)
import { launch, Checks } from './harness.mjs';
import path from 'path';
import fs from 'fs';

const [base, shots] = process.argv.slice(2);
if (!base || !shots) { console.error('usage: node e2e/demo.mjs BASE_URL SHOTS_DIR'); process.exit(2); }
fs.mkdirSync(shots, { recursive: true });

const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1200, height: 760 }, acceptDownloads: true });
const checks = new Checks();
const { failures } = checks;
page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
const check = (name, fn) => checks.check(name, fn);

async function expectText(selector, want, timeout = 5000) {
  const locator = page.locator(selector);
  try {
    await locator.filter({ hasText: want }).first().waitFor({ timeout });
  } catch (e) {
    const shown = await locator.allTextContents().catch(() => []);
    throw new Error(`${selector} did not show ${want} within ${timeout} ms; it shows ${JSON.stringify(shown)}`);
  }
}

// Opens the page at `route` (a path: the demo routes with leptos_router). The
// first time by loading it (a deep link: the server answers with the demo's
// index.html); after, as a click on a link to it, which the router follows in
// the same document (the store kept, as when a person browses the demo).
async function open(route) {
  if (!page.url().startsWith(base)) {
    await page.goto(`${base}${route}`);
    return;
  }
  await page.evaluate((href) => {
    const link = Object.assign(document.createElement('a'), { href });
    document.body.append(link);
    link.click();
    link.remove();
  }, route);
  await page.waitForURL(`${base}${route}`);
}

async function visit(route, shot, ready) {
  await open(route);
  await ready();
  await page.screenshot({ path: path.join(shots, `${shot}.png`) });
}

// Opens the devtools panel (collapsed by default) at `tab`.
async function devtools(tab) {
  if ((await page.textContent('.rdc-devtools-toggle')) === 'rdc devtools') await page.click('.rdc-devtools-toggle');
  await page.click(`.rdc-devtools-tab[data-tab="${tab}"]`);
}

async function closeDevtools() {
  if ((await page.textContent('.rdc-devtools-toggle')) !== 'rdc devtools') await page.click('.rdc-devtools-toggle');
}

// Every request the page sends, as "METHOD /path".
const requests = [];
page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
const sent = (what) => requests.filter((r) => r === what).length;
// The same with their query strings.
const urls = [];
page.on('request', (r) => { const u = new URL(r.url()); urls.push(`${r.method()} ${u.pathname}${u.search}`); });

await check('users: list from All(User), create appears without refetch', async () => {
  await visit('/users', 'users', () => expectText('ul.users', 'Ada Lovelace'));
  if (sent('GET /api/users') !== 1) throw new Error(`the list was fetched ${sent('GET /api/users')} times, not once`);
  const [lists, creates] = [sent('GET /api/users'), sent('POST /api/users')];
  const name = `E2E ${Date.now()}`;
  await page.fill('#new-user', name);
  await page.click('button[type=submit]');
  await expectText('ul.users', name);
  await devtools('Entities');
  await expectText('.rdc-devtools-tables', 'User');
  await closeDevtools();
  // Time for a refetch, had the create triggered one.
  await page.waitForTimeout(500);
  if (sent('POST /api/users') !== creates + 1) throw new Error(`${sent('POST /api/users') - creates} creates sent, not 1`);
  if (sent('GET /api/users') !== lists) {
    throw new Error(`the list was fetched again after the create (${sent('GET /api/users') - lists} GET /api/users)`);
  }
});

await check('feed: links and posts by attribute and function; unknown passed through', async () => {
  await visit('/feed', 'feed', () => expectText('ul.by-attribute', 'Rust'));
  await expectText('ul.by-attribute', 'Normalized caches keep every entity once.');
  await expectText('ul.raw', 'unknown item');
  await expectText('ul.by-function', 'Leptos');
  if ((await page.locator('ul.by-attribute li.unknown').count()) !== 0) throw new Error('All must not list unknown items');
});

await check('prices: exact decimal and formatted instant', async () => {
  await visit('/prices', 'prices', () => expectText('dd.decimal', '43250.123456789012345678'));
  await expectText('dd.instant', '2026-11-25 12:34:56.789 UTC');
});

await check('streams: the username comes from the URL', async () => {
  await visit('/streams/shroud', 'streams', () => expectText('dd.username', 'shroud'));
});

await check('ticker: polls every 2 s while shown, stops when leaving', async () => {
  await visit('/ticker', 'ticker', () => expectText('dd.trade', '10'));
  // What the server saw: how many requests, and when the latest came by its own
  // clock (so the page's load and screenshot, or a slow machine, do not count).
  const seen = async () => (await fetch(`${base}/api/products/BTC-USD/ticker/count`)).json();
  const first = (await seen()).count;
  // Two polls after that, waited for up to a deadline.
  let later = await seen();
  const deadline = Date.now() + 15000;
  while (later.count < first + 2 && Date.now() < deadline) {
    await page.waitForTimeout(100);
    later = await seen();
  }
  if (later.count < first + 2) throw new Error(`expected two polls within 15 s, the server saw ${first} -> ${later.count} requests`);
  // The last two requests are consecutive polls: not closer than the 2 s asked
  // (less what the first one's longer trip to the server could take off).
  const [before, last] = later.times_ms.slice(-2);
  if (last - before < 1500) throw new Error(`two consecutive polls came ${last - before} ms apart by the server's clock`);
  // The page shows the polls' trades (this one, or a later one).
  const trade = 1000 + later.count;
  await page.waitForFunction((want) => Number(document.querySelector('dd.trade')?.textContent) >= want, trade,
    { timeout: 5000, polling: 50 }).catch(async () => {
    throw new Error(`the page shows trade ${await page.textContent('dd.trade')}, not ${trade} or later`);
  });
  // Exactly one poll timer (not 10 or 11: the text must end at the digit).
  await devtools('Readers');
  await expectText('.rdc-devtools-readers', /\bpoll timers: 1(?!\d)/);
  await closeDevtools();
  await open('/users');
  await expectText('ul.users', 'Ada');
  const count = async () => (await seen()).count;
  // A poll already on the wire when leaving may still land; none may start after.
  await page.waitForTimeout(300);
  const left = await count();
  await page.waitForTimeout(4500);
  const after = await count();
  if (after !== left) throw new Error(`polls went on after leaving the page: ${left} -> ${after}`);
});

await check('files: download saved under the server\'s filename', async () => {
  await visit('/files', 'files', () => page.locator('#download').waitFor());
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  if (download.suggestedFilename() !== 'report-42-✓.txt') throw new Error(`filename ${download.suggestedFilename()}`);
  await expectText('p.saved', 'report-42-✓.txt');
});

await check('notes: the key-rename recipe sends text as the API\'s body and reads body back as text', async () => {
  await visit('/notes', 'notes', () => expectText('ul.notes', 'The API calls this field body.'));
  const text = `Note ${Date.now()}`;
  const posted = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/notes');
  await page.fill('#new-note', text);
  await page.click('form.note button[type=submit]');
  const sentBody = (await posted).postDataJSON();
  if (JSON.stringify(sentBody) !== JSON.stringify({ body: text })) throw new Error(`sent ${JSON.stringify(sentBody)}`);
  await expectText('ul.notes li', text);
  const kept = await (await fetch(`${base}/api/notes`)).json();
  if (!kept.some((n) => n.body === text)) throw new Error(`the server keeps ${JSON.stringify(kept)}`);
});

await check('define: All::define merges posts into a links-only All', async () => {
  await visit('/define', 'define', () => expectText('ul.defined', 'Normalized caches keep every entity once.'));
  const defined = await page.locator('ul.defined li').allTextContents();
  const want = ['Rust', 'Leptos', 'Normalized caches keep every entity once.', 'Signals re-render only what changed.'];
  if (defined.length !== want.length || want.some((w) => !defined.includes(w))) {
    throw new Error(`after define the list shows ${JSON.stringify(defined)}`);
  }
  const only = await page.locator('ul.links-only li').allTextContents();
  if (JSON.stringify(only) !== '["Rust","Leptos"]') throw new Error(`before define the list shows ${JSON.stringify(only)}`);
});

await check('base url: the stream path goes after the {base_url} prefix', async () => {
  const want = `${base}/api/streams/pokimane`;
  // Settles either way, so a failed visit below cannot leave it rejected unhandled.
  const asked = page.waitForRequest((r) => r.url() === want, { timeout: 5000 }).then(() => null, (e) => e);
  await visit('/base-url/pokimane', 'base-url', () => expectText('dd.title', 'pokimane plays live'));
  if (await asked) throw new Error(`the page did not request ${want}`);
  await expectText('dd.username', 'pokimane');
  await expectText('p.key', `GET ${want}`);
});

await check('bytes: an arrayBuffer body shows byte for byte what the server sent', async () => {
  const want = Buffer.from(await (await fetch(`${base}/api/bytes/64`)).arrayBuffer());
  const hex = [...want].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  await visit('/bytes', 'bytes', async () => {
    await page.click('#fetch-bytes');
    await expectText('p.bytes .count', '64 bytes');
  });
  const shown = await page.textContent('p.bytes .hex');
  if (want.length !== 64 || shown !== hex) throw new Error(`the page shows ${shown}, the server sends ${hex}`);
});

await check('headers: a fetchResponse override reads the raw response\'s rate-limit headers', async () => {
  const shown = async () => {
    const [answered, remaining, limit] = await Promise.all(['answered', 'remaining', 'limit']
      .map(async (c) => Number(await page.textContent(`dd.${c}`))));
    return { answered, remaining, limit };
  };
  await visit('/headers', 'headers', async () => {
    await page.click('#fetch-limited');
    await expectText('dd.answered', /\d/);
  });
  const one = await shown();
  if (one.limit !== 1000 || one.answered < 1 || one.remaining !== one.limit - one.answered) {
    throw new Error(`the page shows ${JSON.stringify(one)}`);
  }
  await page.click('#fetch-limited');
  await expectText('dd.answered', new RegExp(`^${one.answered + 1}$`));
  const two = await shown();
  if (two.remaining !== one.remaining - 1) throw new Error(`after a second fetch the page shows ${JSON.stringify(two)}`);
  const next = Number((await fetch(`${base}/api/limited`)).headers.get('x-ratelimit-remaining'));
  if (next !== two.remaining - 1) throw new Error(`the server's next answer leaves ${next}, the page showed ${two.remaining}`);
});

// A 1x1 PNG, as a user would pick from disk.
const DOT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

await check('uploads: a picked file goes as multipart, is stored and joins the list without a refetch', async () => {
  await visit('/uploads', 'uploads', () => page.locator('ul.uploads').waitFor({ state: 'attached' }));
  const [lists, posts] = [sent('GET /api/uploads'), sent('POST /api/uploads')];
  const title = `Dot ${Date.now()}`;
  const posted = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/uploads');
  await page.fill('#upload-title', title);
  await page.setInputFiles('#upload-file', { name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
  await page.click('form.upload button[type=submit]');
  const request = await posted;
  const type = request.headers()['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data; boundary=')) throw new Error(`sent as ${type}`);
  await expectText('ul.uploads li', title);
  const item = page.locator('ul.uploads li', { hasText: title });
  await expectText('ul.uploads li', `dot.png (${DOT_PNG.length} bytes, image/png)`);
  // The image is the stored file, served back and decoded by the browser.
  await item.locator('img').evaluate((img) => img.complete ? null : new Promise((done) => { img.onload = done; img.onerror = done; }));
  const width = await item.locator('img').evaluate((img) => img.naturalWidth);
  if (width !== 1) throw new Error(`the stored image decodes ${width} pixels wide, not 1`);
  await page.waitForTimeout(500);
  if (sent('POST /api/uploads') !== posts + 1) throw new Error(`${sent('POST /api/uploads') - posts} uploads sent, not 1`);
  if (sent('GET /api/uploads') !== lists) throw new Error('the list was fetched again after the upload');
  await page.screenshot({ path: path.join(shots, 'uploads-done.png') });
});

// Waits until the list shows exactly `want` (item names in order), up to 5 s.
async function expectItems(want) {
  const names = () => page.locator('ul.items li').allTextContents();
  const deadline = Date.now() + 5000;
  let seen = await names();
  while (JSON.stringify(seen) !== JSON.stringify(want) && Date.now() < deadline) {
    await page.waitForTimeout(50);
    seen = await names();
  }
  if (JSON.stringify(seen) !== JSON.stringify(want)) {
    throw new Error(`expected items ${JSON.stringify(want)}, page shows ${JSON.stringify(seen)}`);
  }
}

const items = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => `Item ${from + i}`);

await check('pages: next and previous follow the Link header', async () => {
  await visit('/items', 'items', () => expectText('ul.items', 'Item 1'));
  await expectItems(items(1, 5));
  await page.click('#next');
  await expectItems(items(6, 10));
  await page.click('#next');
  await expectItems(items(11, 15));
  await page.click('#prev');
  await expectItems(items(6, 10));
  await page.click('#prev');
  await expectItems(items(1, 5));
  if (!(await page.locator('#prev').isDisabled())) throw new Error('"Previous" is enabled on the first page');
});

await check('infinite: pages join one list as its end scrolls into view, each item once', async () => {
  const from = urls.length;
  const pagesSent = () => urls.slice(from).filter((u) => u.startsWith('GET /api/items'));
  await visit('/scroll', 'scroll', () => expectText('ul.scroll-items', 'Item 5'));
  // Pages come while the list's end is in view, and stop once it is not.
  await page.waitForTimeout(1000);
  const unscrolled = pagesSent();
  const endShown = await page.locator('.list-end').evaluate((e) => e.getBoundingClientRect().top < window.innerHeight);
  if (unscrolled.length >= 5 || endShown) {
    throw new Error(`before any scroll, ${JSON.stringify(unscrolled)} were fetched and the end is ${endShown ? 'in' : 'out of'} view`);
  }
  // Scroll the list's end into view until the last page came.
  for (let i = 0; i < 30 && (await page.textContent('.status')) !== 'The end'; i++) {
    await page.locator('.list-end').scrollIntoViewIfNeeded();
    await page.waitForTimeout(200);
  }
  await expectText('.status', 'The end');
  const ids = await page.locator('ul.scroll-items li').evaluateAll((lis) => lis.map((li) => li.dataset.id));
  const want = Array.from({ length: 23 }, (_, i) => String(i + 1));
  if (JSON.stringify(ids) !== JSON.stringify(want)) throw new Error(`the list shows ${JSON.stringify(ids)}`);
  const wantPages = ['GET /api/items', ...[5, 10, 15, 20].map((c) => `GET /api/items?cursor=${c}`)];
  if (JSON.stringify(pagesSent()) !== JSON.stringify(wantPages)) throw new Error(`pages fetched: ${JSON.stringify(pagesSent())}`);
});

// The live page's BTC-USD price (at `selector`) goes up within 5 s.
async function expectRise(selector, how) {
  const first = Number(await page.textContent(selector));
  const deadline = Date.now() + 5000;
  let later = first;
  while (later === first && Date.now() < deadline) {
    await page.waitForTimeout(100);
    later = Number(await page.textContent(selector));
  }
  if (!(later > first)) throw new Error(`BTC-USD went from ${first} to ${later}${how}`);
}

// The live page fetched each pair's price once among the requests `sent`.
function expectEachPriceFetchedOnce(sent) {
  for (const pair of ['BTC-USD', 'ETH-USD']) {
    const fetched = sent.filter((u) => u.startsWith(`GET /api/price/${pair}`)).length;
    if (fetched !== 1) throw new Error(`${pair} fetched ${fetched} times: ${JSON.stringify(sent)}`);
  }
}

await check('live: prices stream in over Server-Sent Events with no polling', async () => {
  const from = urls.length;
  const btc = '.live-quote[data-pair="BTC-USD"] .decimal';
  await visit('/live', 'live', () => expectText(btc, '430', 8000));
  await expectRise(btc, '');
  await expectText('.live-quote[data-pair="ETH-USD"] .decimal', '23');
  const sentHere = urls.slice(from);
  const count = (prefix) => sentHere.filter((u) => u.startsWith(prefix)).length;
  expectEachPriceFetchedOnce(sentHere);
  if (count('GET /api/live/prices') !== 1) throw new Error(`the stream was opened ${count('GET /api/live/prices')} times`);
});

await check('live: the WebSocket switch streams the same prices over a WebSocket', async () => {
  const from = urls.length;
  const sockets = [];
  const onSocket = (ws) => {
    const socket = { url: new URL(ws.url()).pathname, frames: 0 };
    ws.on('framereceived', () => { socket.frames += 1; });
    sockets.push(socket);
  };
  page.on('websocket', onSocket);
  try {
    await page.click('.transports a[data-transport="WebSocket"]');
    await expectText('.hint[data-transport="WebSocket"]', 'WebSocket message');
    const btc = '.live-quote[data-pair="BTC-USD"] .decimal';
    await expectText(btc, '430', 8000);
    await expectRise(btc, ' over the WebSocket');
    await expectText('.live-quote[data-pair="ETH-USD"] .decimal', '23');
    if (sockets.length !== 1 || sockets[0].url !== '/api/live/prices/ws' || sockets[0].frames < 2) {
      throw new Error(`WebSockets opened: ${JSON.stringify(sockets)}`);
    }
    const sentHere = urls.slice(from);
    if (sentHere.some((u) => u.startsWith('GET /api/live/prices'))) {
      throw new Error(`the event stream was opened too: ${JSON.stringify(sentHere)}`);
    }
    expectEachPriceFetchedOnce(sentHere);
    await page.screenshot({ path: path.join(shots, 'live-ws.png') });
  } finally {
    page.off('websocket', onSocket);
  }
});

await check('devtools: entities with search and referrers, results, the action log', async () => {
  await visit('/users', 'users-again', () => expectText('ul.users', 'Ada Lovelace'));
  if ((await page.locator('.rdc-devtools-body').count()) !== 0) throw new Error('the panel is open before it is asked for');
  await devtools('Entities');
  await page.fill('.rdc-devtools-search', 'Grace');
  await expectText('.rdc-devtools-tables li[data-table="User"]', 'Grace Hopper');
  const listed = await page.locator('.rdc-devtools-tables li[data-table="User"] .rdc-devtools-entity').allTextContents();
  if (listed.length !== 1) throw new Error(`the search for Grace lists ${JSON.stringify(listed)}`);
  await page.click('.rdc-devtools-entity');
  await expectText('.rdc-devtools-detail', 'Grace Hopper');
  await expectText('.rdc-devtools-referrers', 'result GET /api/users');
  await page.screenshot({ path: path.join(shots, 'devtools.png') });
  await devtools('Results');
  await expectText('.rdc-devtools-results li[data-status="valid"]', 'GET /api/users');
  await devtools('Log');
  await expectText('.rdc-devtools-log', 'stored GET /api/users');
  await closeDevtools();
  if ((await page.locator('.rdc-devtools-body').count()) !== 0) throw new Error('the panel stayed open');
});

await check('tabs: a user created in one tab shows in another without a request', async () => {
  // Two tabs of one browser profile (a context): they share BroadcastChannels.
  const context = await browser.newContext({ viewport: { width: 1200, height: 760 } });
  const [one, other] = [await context.newPage(), await context.newPage()];
  const otherRequests = [];
  other.on('request', (r) => otherRequests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  for (const tab of [other, one]) {
    await tab.goto(`${base}/users`);
    await tab.locator('ul.users').filter({ hasText: 'Ada Lovelace' }).first().waitFor({ timeout: 5000 });
  }
  const before = otherRequests.length;
  const name = `Tab ${Date.now()}`;
  await one.fill('#new-user', name);
  await one.click('button[type=submit]');
  await other.locator('ul.users').filter({ hasText: name }).first().waitFor({ timeout: 3000 });
  await other.waitForTimeout(300);
  const later = otherRequests.slice(before).filter((r) => r.includes('/api/'));
  if (later.length !== 0) throw new Error(`the other tab requested ${JSON.stringify(later)}`);
  await other.screenshot({ path: path.join(shots, 'tabs-other.png') });
  await context.close();
});

await check('reload: the users list shows from IndexedDB before any request answers', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 760 } });
  const tab = await context.newPage();
  await tab.goto(`${base}/users`);
  await tab.locator('ul.users').filter({ hasText: 'Ada Lovelace' }).first().waitFor({ timeout: 5000 });
  await tab.waitForTimeout(500); // saved 100 ms after the write, then IndexedDB's own time
  // From here on no API request answers: what shows came from IndexedDB.
  const held = [];
  await tab.route('**/api/**', (route) => { held.push(route.request().url()); });
  await tab.reload();
  await tab.locator('ul.users').filter({ hasText: 'Ada Lovelace' }).first().waitFor({ timeout: 3000 });
  await tab.screenshot({ path: path.join(shots, 'reload.png') });
  await context.close();
});

await check('faults: typed errors, stale data under a soft error, recovery by retry', async () => {
  await visit('/faults', 'faults', () => expectText('p.flaky', 'data:'));
  await page.click('#boundary-404');
  await expectText('p.boundary', 'HTTP 404');
  await page.screenshot({ path: path.join(shots, 'faults-error-boundary.png') });
  await page.click('#boundary-ok');
  await expectText('p.boundary-data', 'loaded:');
  await page.click('#fault-500');
  await expectText('p.probe', 'HTTP 500');
  await page.click('#fault-malformed');
  await expectText('p.probe', 'malformed JSON');
  await page.click('#flaky-fail');
  await expectText('p.flaky-error', '503');
  await expectText('p.flaky', 'data:');
  await page.screenshot({ path: path.join(shots, 'faults-soft-error.png') });
  await page.click('#flaky-recover');
  await page.locator('p.flaky-error').filter({ hasText: 'error' }).waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
  const error = (await page.textContent('p.flaky-error')) || '';
  if (error.includes('error')) throw new Error(`error still shown after recovery: ${error}`);
});

await check('routes: a deep link opens its page; the nav and Back navigate in the same document', async () => {
  await page.goto(`${base}/streams/shroud`);
  await expectText('dd.username', 'shroud');
  await page.evaluate(() => { window.sameDocument = true; });
  const prices = page.locator('nav a[href="/prices"]');
  await prices.click();
  await page.waitForURL(`${base}/prices`);
  await expectText('dd.decimal', '43250.123456789012345678');
  if (!(await prices.getAttribute('class'))?.split(' ').includes('active')) throw new Error('the Prices link is not marked active');
  await page.goBack();
  await expectText('dd.username', 'shroud');
  if (new URL(page.url()).pathname !== '/streams/shroud') throw new Error(`Back went to ${page.url()}`);
  if (!(await page.evaluate(() => window.sameDocument === true))) throw new Error('the page reloaded');
});

await browser.close();
checks.finish('demo e2e');
