// End-to-end test of the server-rendered demo (demo-ssr): the HTML the server
// sends holds each page's data before any script runs; after hydration the API
// server saw no request for that data; a mutation then updates the page; what
// the page carries cannot break out of its script; two users' pages rendered
// at once each hold only their own data; a form posting through a server
// function works before hydration (a plain post and a redirect) and after
// (its answer written into the store, no reload, no refetch); each user's own
// page holds that user only; a page reads through a `#[server]` function, and
// a link routes in the page (leptos_router).
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
// Leptos marks where dynamic text ends (`<!>`) for hydration: left out before matching.
const unmarked = (html) => html.replaceAll('<!>', '');
// The page's HTML as the server sends it, and the API requests it took.
async function serverHtml(path, headers = {}) {
  await clearLog();
  const html = unmarked(await (await fetch(`${base}${path}`, { headers })).text());
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
  let html = '';
  const { sent, stop } = recordRequests();
  try {
    const response = await page.goto(`${base}${path}`);
    html = unmarked(await response.text());
    await page.locator('body[data-hydrated]').waitFor({ timeout: 30000 });
    await page.waitForTimeout(500);
  } finally {
    stop();
  }
  const log = await apiLog();
  const browser = log.filter((r) => r.includes(' via '));
  const server = log.filter((r) => !r.includes(' via '));
  console.log(`     loading ${path}: the server asked ${JSON.stringify(server)}; ` +
    `the browser, through hydration and 500 ms after: ${JSON.stringify(browser)}; the page sent ` +
    `${JSON.stringify(sent.filter((r) => !r.startsWith('GET /pkg/')))}`);
  // What the server sent, when the browser asked again: its page and the store it carried.
  if (browser.length || server.length > 1) {
    console.log(`     the page: ${JSON.stringify(main(html))}`);
    console.log(`     it carried: ${JSON.stringify(html.slice(html.indexOf('__RESOLVED_RESOURCES')).slice(0, 1200))}`);
  }
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
    const html = unmarked(await (await fetch(`${base}/me`, { headers: { cookie: `user=${u}` } })).text());
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

// The form page posts through a server function (`/fn/create_user`), which asks the API.
await check('form: with JavaScript off the server-function form works; the redirect shows the new user', async () => {
  const noScript = await browser.newContext({ javaScriptEnabled: false });
  try {
    const plain = await noScript.newPage();
    await plain.goto(`${base}/form`);
    const action = await plain.locator('form').getAttribute('action');
    if (action !== '/fn/create_user') throw new Error(`the form posts to ${action}`);
    await clearLog();
    await plain.fill('#form-name', 'Hedy Lamarr');
    await plain.click('#form-submit');
    await plain.locator('ul.users li', { hasText: 'Hedy Lamarr' }).waitFor({ timeout: 10000 });
    // Back on the page (the handler's redirect keeps the page's query, here none).
    if (new URL(plain.url()).pathname !== '/form' || new URL(plain.url()).search !== '') throw new Error(`ended on ${plain.url()}`);
    const log = await apiLog();
    console.log(`     API requests: ${JSON.stringify(log)}`);
    // The server function created the user; the page it redirected to was rendered with it.
    if (JSON.stringify(log) !== '["POST /api/users","GET /api/users"]') throw new Error(`requests: ${JSON.stringify(log)}`);
    // The same as a plain HTTP post of the form: a redirect back to the page.
    const posted = await fetch(`${base}/fn/create_user`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', referer: `${base}/form` },
      body: 'name=Radia+Perlman',
    });
    if (posted.status !== 302 || new URL(posted.headers.get('location') ?? '/', base).pathname !== '/form') {
      throw new Error(`plain post: ${posted.status} to ${posted.headers.get('location')}`);
    }
    const { html } = await serverHtml('/form');
    if (!/<li data-id="u\d+">Radia Perlman<\/li>/.test(html)) throw new Error('the page after the post lacks Radia Perlman');
    // The server function's error comes back in the redirect and shows in the page the server renders.
    await plain.fill('#form-name', '   ');
    await plain.click('#form-submit');
    await plain.locator('main .error').waitFor({ timeout: 10000 });
    const shown = await plain.locator('main .error').textContent();
    if (!shown.includes('HTTP 422') || !shown.includes('name must not be empty')) throw new Error(`shows ${JSON.stringify(shown)}`);
    if (new URL(plain.url()).searchParams.get('__path') !== '/fn/create_user') throw new Error(`ended on ${plain.url()}`);
    // A second, different failure (a name too long): the redirect keeps the
    // first error's pair and adds the new one; the page shows the newer error.
    await plain.fill('#form-name', 'x'.repeat(300));
    await plain.click('#form-submit');
    await plain.waitForURL((u) => u.searchParams.getAll('__err').length === 2, { timeout: 10000 });
    const newer = await plain.locator('main .error').textContent();
    if (!newer.includes('too long') || newer.includes('must not be empty')) throw new Error(`after a second failure shows ${JSON.stringify(newer)}`);
    // A valid post: the user is added and no error shows.
    await plain.fill('#form-name', 'Barbara Liskov');
    await plain.click('#form-submit');
    await plain.locator('ul.users li', { hasText: 'Barbara Liskov' }).waitFor({ timeout: 10000 });
    if ((await plain.locator('main .error').count()) !== 0) throw new Error(`after a valid post shows ${await plain.locator('main .error').textContent()}`);
  } finally {
    await noScript.close();
  }
});

// Makes the page ask the API for something harmless (through the demo's proxy)
// and waits until the API logged it: every request the page made before is in
// the log by then. Returns the log and the browser's requests before the barrier.
let barriers = 0;
async function barrier(sent) {
  const mark = `/api/health?barrier=${++barriers}`;
  await page.evaluate((url) => fetch(url).then((r) => r.text()), mark);
  const log = await apiLogWith((r) => r.startsWith(`GET ${mark}`));
  const upTo = (list) => list.slice(0, list.findIndex((r) => r.startsWith(`GET ${mark}`)));
  if (!log.some((r) => r.startsWith(`GET ${mark}`))) throw new Error(`the barrier ${mark} never reached the API: ${JSON.stringify(log)}`);
  return { api: upTo(log), browser: upTo(sent) };
}
// Records the requests `page` sends to the demo (its own page only).
function recordRequests() {
  const sent = [];
  const record = (r) => { if (r.url().startsWith(base)) sent.push(`${r.method()} ${new URL(r.url()).pathname}${new URL(r.url()).search}`); };
  page.on('request', record);
  return { sent, stop: () => page.off('request', record) };
}

await check('form: after hydration it posts without a reload; the answer lands in the store (no refetch)', async () => {
  await hydrate('/form');
  await page.evaluate(() => { window.sameDocument = true; });
  await clearLog();
  const { sent, stop } = recordRequests();
  try {
    const answered = page.waitForResponse((r) => r.url().endsWith('/fn/create_user'));
    await page.fill('#form-name', 'Katherine Johnson');
    await page.click('#form-submit');
    const created = await (await answered).json();
    const shown = page.locator('ul.users li', { hasText: 'Katherine Johnson' });
    await shown.waitFor({ timeout: 5000 });
    if ((await shown.getAttribute('data-id')) !== created.id) throw new Error(`shown with id ${await shown.getAttribute('data-id')}, created ${created.id}`);
    if (!(await page.evaluate(() => window.sameDocument === true))) throw new Error('the page reloaded');
    // A refetch would be sent as the store write lands: a request made after it reaches the API after it.
    const before = await barrier(sent);
    console.log(`     before the barrier the browser sent ${JSON.stringify(before.browser)}; the API saw ${JSON.stringify(before.api)}`);
    if (JSON.stringify(before.api) !== '["POST /api/users"]') throw new Error(`API requests: ${JSON.stringify(before.api)}`);
    if (JSON.stringify(before.browser) !== '["POST /fn/create_user"]') throw new Error(`the browser sent ${JSON.stringify(before.browser)}`);
  } finally {
    stop();
  }
});

await check('form: the server function\'s error shows on the page and the list keeps what it had', async () => {
  await hydrate('/form');
  const before = await page.locator('ul.users li').count();
  const logged = failures.length;
  await clearLog();
  const { sent, stop } = recordRequests();
  try {
    await page.fill('#form-name', '   ');
    await page.click('#form-submit');
    await page.locator('main .error').waitFor({ timeout: 5000 });
    const shown = await page.locator('main .error').textContent();
    if (!shown.includes('HTTP 422') || !shown.includes('name must not be empty')) throw new Error(`shows ${JSON.stringify(shown)}`);
    const requests = await barrier(sent);
    if (JSON.stringify(requests.api) !== '["POST /api/users"]') throw new Error(`API requests: ${JSON.stringify(requests.api)}`);
    if (JSON.stringify(requests.browser) !== '["POST /fn/create_user"]') throw new Error(`the browser sent ${JSON.stringify(requests.browser)}`);
    if ((await page.locator('ul.users li').count()) !== before) throw new Error('the list changed');
  } finally {
    stop();
  }
  // Chromium logs the server function's error status (500) as a console error: expected here, and only that.
  const unexpected = failures.splice(logged).filter((f) => !/Failed to load resource: .* status of 500/.test(f));
  failures.push(...unexpected);
});

await check('form: a server-function post over 16 KiB is refused at once (413), not read', async () => {
  const posted = await fetch(`${base}/fn/create_user`, {
    method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(10000),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', referer: `${base}/form` },
    body: `name=${'x'.repeat(64 * 1024)}`,
  });
  if (posted.status !== 413) throw new Error(`a 64 KiB post answered ${posted.status}`);
});

await check('form: a crafted error in the page address is not shown as written', async () => {
  // leptos_router reads `__err` as an encoded server-function error: text that
  // is not one shows as a decoding error, never as the text someone wrote.
  const crafted = `Your account is locked: call ${'A'.repeat(40)}`;
  const { html } = await serverHtml(`/form?__path=/fn/create_user&__err=${encodeURIComponent(crafted)}`);
  if (main(html).includes(crafted) || main(html).includes('A'.repeat(40))) throw new Error('the page shows the crafted text');
});

await check("users/:id: pages of different users rendered at once each hold their own user and no other", async () => {
  const users = { u1: 'Ada Lovelace', u2: 'Grace Hopper', u3: 'Alan Turing' };
  const pages = await Promise.all(Object.keys(users).flatMap((id) => [id, id].map(async () => {
    const response = await fetch(`${base}/users/${id}`);
    return { id, status: response.status, html: unmarked(await response.text()) };
  })));
  for (const { id, status, html } of pages) {
    if (status !== 200) throw new Error(`/users/${id} answered ${status}`);
    if (!html.includes(`<p id="user" data-id="${id}">${users[id]}</p>`)) throw new Error(`/users/${id}: ${JSON.stringify(main(html))}`);
    for (const [other, name] of Object.entries(users).filter(([o]) => o !== id)) {
      if (html.includes(name) || html.includes(`"${other}"`)) throw new Error(`/users/${id} holds ${other}'s data`);
    }
  }
  const after = await hydrate('/users/u2');
  if (after.length !== 0) throw new Error(`the browser asked for ${JSON.stringify(after)}`);
  if ((await page.locator('#user').textContent()) !== 'Grace Hopper') throw new Error('the hydrated page lost its user');
});

await check('team: read through a #[server] function as an rdc endpoint; the server HTML holds it, hydration calls nothing', async () => {
  const { html, requests } = await serverHtml('/team');
  if (!/<ul class="team"><li data-id="u1">Ada Lovelace<\/li>/.test(html)) throw new Error(`no team in ${JSON.stringify(main(html))}`);
  // The server function asked the API itself (no `via`: not through the proxy).
  if (JSON.stringify(requests) !== '["GET /api/users"]') throw new Error(`server render made ${JSON.stringify(requests)}`);
  await hydrate('/team');
  const log = await apiLog();
  if (JSON.stringify(log) !== '["GET /api/users"]') throw new Error(`loading /team made ${JSON.stringify(log)}: the browser called the function again`);
});

await check("team: a link followed after hydration routes in the page and calls the server function once", async () => {
  await hydrate('/users');
  await page.evaluate(() => { window.sameDocument = true; });
  const { sent, stop } = recordRequests();
  try {
    await page.click('nav a[href="/team"]');
    await page.locator('ul.team li', { hasText: 'Ada Lovelace' }).waitFor({ timeout: 10000 });
    if (new URL(page.url()).pathname !== '/team') throw new Error(`ended on ${page.url()}`);
    if (!(await page.evaluate(() => window.sameDocument === true))) throw new Error('the link reloaded the page');
    const before = await barrier(sent);
    if (JSON.stringify(before.browser) !== '["POST /fn/team"]') throw new Error(`the browser sent ${JSON.stringify(before.browser)}`);
  } finally {
    stop();
  }
});

await browser.close();
checks.finish('server-rendered demo e2e');
