/**
 * The frontier that spends the budget (issue 27): links the focused order leaves out (navigation links)
 * wait in tunnel entries below every other entry, by a priority halved per page below η on the way; the
 * crawl reaches a film page five links away through off-topic pages whose only way on is their
 * navigation bar (Douban's case), takes the tunnel only when nothing else waits, and `tunnel: false`
 * (strict filtering) stops with the frontier empty as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawl } from '../../src/crawl/crawler.js';
import { Frontier } from '../../src/crawl/frontier.js';
import { reserveKey, tunnelKey } from '../../src/crawl/relevance.js';
import { filmPage, opts, plainResources, serveWeb, type WebPage } from './web.js';

const outDir = () => join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-tunnel-')), 'out');
const index = (out: string) => readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { url: string; relevant: boolean; depth: number; status: number });

/** An off-topic page whose only links sit in its navigation bar (plus content links, if any). */
const navPage = (title: string, nav: string[], content: string[] = []): string =>
  `<html><head><title>${title}</title></head><body><div id="db-global-nav" class="global-nav">${nav.map((l, i) => `<a href="${l}">栏目${i}</a>`).join(' ')}</div>` +
  `<h1>${title}</h1><div class="article"><p>今天的天气很好，市场上的蔬菜价格平稳，居民出行方便，公园里有很多人散步，城市交通运行正常。</p></div>` +
  `<ul>${content.map((l, i) => `<li><a href="${l}">新闻${i}</a></li>`).join('')}</ul></body></html>`;

/**
 * seed → (nav) s1 → (nav) s2 → (nav) s3 → (nav) s4 → (content) film, five links; the seed's content
 * links lead to a small film hub (reached first) and to a dead-end off-topic page.
 */
function tunnelWeb(): WebPage[] {
  const hub = [...Array(4).keys()].map((i) => `http://films.example/f/${i}`);
  return [
    { url: 'http://books.example/', body: navPage('读书首页', ['http://books.example/s1'], ['http://films.example/', 'http://books.example/dead']) },
    { url: 'http://books.example/dead', body: navPage('死胡同', []) },
    { url: 'http://films.example/', body: filmPage('影片首页', hub) },
    ...hub.map((u, i) => ({ url: u, body: filmPage(`影片${i}号`, [hub[(i + 1) % hub.length]!]) })),
    { url: 'http://books.example/s1', body: navPage('音乐', ['http://books.example/s2']) },
    { url: 'http://books.example/s2', body: navPage('小组', ['http://books.example/s3']) },
    { url: 'http://books.example/s3', body: navPage('话题', ['http://books.example/s4']) },
    { url: 'http://books.example/s4', body: navPage('日记', [], ['http://far.example/film']) },
    { url: 'http://far.example/film', body: filmPage('远处的影片', []) },
  ];
}

test('tunnel: a film page five links away through pages whose only way on is the navigation bar is reached; the tunnel is taken only when nothing else waits', async () => {
  const s = await serveWeb(tunnelWeb());
  try {
    for (const mode of ['focused', 'shark', 'one-step', 'static'] as const) {
      const out = outDir();
      const sum = await crawl({ seeds: ['http://books.example/'], out, via: s.url }, opts({ mode, maxPages: 100 }), plainResources);
      const lines = index(out);
      const urls = lines.map((l) => l.url);
      const far = lines.find((l) => l.url === 'http://far.example/film');
      assert.ok(far, `${mode}: the far film page is reached: ${urls.join(' ')}`);
      assert.equal(far.depth, 5);
      assert.equal(far.relevant, true);
      assert.equal(sum.stoppedBy, 'frontier empty', 'the whole reachable web was crawled');
      // 12 pages, and the film pages' navigation link to far.example/ (the small web has no such page)
      assert.equal(sum.fetched, 13, urls.join(' '));
      // the tunnel (s1…) only after every page reachable without it
      const firstTunnel = urls.indexOf('http://books.example/s1');
      for (const u of ['http://films.example/', 'http://films.example/f/0', 'http://films.example/f/3', 'http://books.example/dead']) assert.ok(urls.indexOf(u) < firstTunnel, `${mode}: ${u} before the tunnel`);
    }
  } finally {
    await s.close();
  }
});

test('tunnel: false is strict filtering: navigation links dropped, the crawl stops with the frontier empty before the far page', async () => {
  const s = await serveWeb(tunnelWeb());
  try {
    const out = outDir();
    const sum = await crawl({ seeds: ['http://books.example/'], out, via: s.url }, opts({ maxPages: 100, tunnel: false }), plainResources);
    assert.equal(sum.stoppedBy, 'frontier empty');
    assert.deepEqual(
      index(out).map((l) => l.url).sort(),
      ['http://books.example/', 'http://books.example/dead', 'http://films.example/', ...[0, 1, 2, 3].map((i) => `http://films.example/f/${i}`)].sort(),
    );
    assert.equal(s.stats.hits.get('books.example/s1'), undefined, 'the navigation link is never requested');
  } finally {
    await s.close();
  }
});

/**
 * Two chains of off-topic pages linked as content (no navigation link): off → o1 → o2 → o3 → film (four
 * off-topic pages in a row), and off → hub (a film page) → p1 → p2 → film2 (two after the hub).
 */
function budgetWeb(): WebPage[] {
  return [
    { url: 'http://off.example/', body: navPage('读书首页', [], ['http://off.example/o1', 'http://hub.example/']) },
    { url: 'http://off.example/o1', body: navPage('音乐', [], ['http://off.example/o2']) },
    { url: 'http://off.example/o2', body: navPage('小组', [], ['http://off.example/o3']) },
    { url: 'http://off.example/o3', body: navPage('话题', [], ['http://far.example/film']) },
    { url: 'http://far.example/film', body: filmPage('远处的影片', []) },
    { url: 'http://hub.example/', body: filmPage('影片首页', ['http://hub.example/p1']) },
    { url: 'http://hub.example/p1', body: navPage('日记', [], ['http://hub.example/p2']) },
    { url: 'http://hub.example/p2', body: navPage('随笔', [], ['http://hub2.example/film']) },
    { url: 'http://hub2.example/film', body: filmPage('第二部影片', []) },
  ];
}

test('depth budget (Fish-Search): a page at or above τ_low restores it, pages below spend it, a spent page\'s content links wait in the reserve below the tunnel; bfs and 0 ignore it', async () => {
  const s = await serveWeb(budgetWeb());
  const all = budgetWeb().map((p) => p.url);
  /** The fetch order: pages of the web by path, the film pages' navigation link to their host's front page (a 404 here, a tunnel entry) as `tunnel:<host>`. */
  const order = async (o: Parameters<typeof opts>[0]) => {
    const out = outDir();
    const sum = await crawl({ seeds: ['http://off.example/'], out, via: s.url }, opts({ maxPages: 100, maxDepth: 100, ...o }), plainResources);
    assert.equal(sum.stoppedBy, 'frontier empty');
    return index(out).map((l) => (all.includes(l.url) ? l.url.replace('http://', '') : `tunnel:${new URL(l.url).host}`));
  };
  const ordinary = ['off.example/', 'off.example/o1', 'hub.example/', 'hub.example/p1'];
  try {
    // no budget: every page in the focused order, the tunnel (the film pages' navigation links) last
    const none = [...ordinary, 'off.example/o2', 'hub.example/p2', 'off.example/o3', 'hub2.example/film', 'far.example/film', 'tunnel:hub2.example', 'tunnel:far.example'];
    assert.deepEqual(await order({ depthBudget: 0 }), none);
    // D = 2: the seed (below τ_low) has 1, o1 0: o2 waits in the reserve; the hub restores 2, p1 1, p2 0: film2 waits there too.
    // The reserve is taken when nothing else waits: film2 first (its link inherits from the hub), then film2's own navigation
    // link (a tunnel entry: above the reserve), then o2 → o3 → the far film (each spent in turn)
    assert.deepEqual(await order({ depthBudget: 2 }), [...ordinary, 'hub.example/p2', 'hub2.example/film', 'tunnel:hub2.example', 'off.example/o2', 'off.example/o3', 'far.example/film', 'tunnel:far.example']);
    // D = 3: o2 is spent, so o3 (and the far film behind it) come after the tunnel; film2 is within the budget
    for (const mode of ['focused', 'shark'] as const) {
      const d3 = await order({ mode, depthBudget: 3 });
      const tunnelAt = d3.indexOf('tunnel:hub2.example');
      assert.ok(tunnelAt > d3.indexOf('hub2.example/film') && tunnelAt < d3.indexOf('off.example/o3'), `${mode}: ${d3.join(' ')}`);
      assert.deepEqual(d3.slice(-3), ['off.example/o3', 'far.example/film', 'tunnel:far.example'], `${mode}: the reserve last: ${d3.join(' ')}`);
      assert.deepEqual([...d3].sort(), [...none].sort(), `${mode}: the whole web is fetched`);
    }
    // D = 4: only o3 is spent: the far film after the tunnel
    const d4 = await order({ depthBudget: 4 });
    assert.ok(d4.indexOf('far.example/film') > d4.indexOf('tunnel:hub2.example'), d4.join(' '));
    // D = 5: nothing is spent (the seed and o1–o3 are four pages below τ_low in a row): the order of no budget
    assert.deepEqual(await order({ depthBudget: 5 }), none);
    assert.deepEqual((await order({ mode: 'bfs', depthBudget: 1 })).sort(), [...none].sort());
    // strict filtering: no tunnel and no reserve; a spent page's content links are dropped (Fish-Search)
    const strict = await order({ depthBudget: 3, tunnel: false });
    assert.ok(!strict.includes('off.example/o3') && !strict.includes('far.example/film') && strict.includes('hub2.example/film'), strict.join(' '));
  } finally {
    await s.close();
  }
  assert.throws(() => opts({ depthBudget: -1 }), /depthBudget must be an integer/u);
});

test('depth budget: the film page five links away through four pages whose only way on is the navigation bar is reached at every D (the reserve), after everything else', async () => {
  const s = await serveWeb(tunnelWeb());
  try {
    for (const depthBudget of [2, 3, 4]) {
      const out = outDir();
      const sum = await crawl({ seeds: ['http://books.example/'], out, via: s.url }, opts({ maxPages: 100, maxDepth: 1000, depthBudget }), plainResources);
      const urls = index(out).map((l) => l.url);
      assert.equal(sum.stoppedBy, 'frontier empty');
      assert.equal(sum.fetched, 13, urls.join(' '));
      assert.equal(index(out).find((l) => l.url === 'http://far.example/film')?.depth, 5, `D = ${depthBudget}: ${urls.join(' ')}`);
      // s4 (budget spent at every D ≤ 4) keeps its content link in the reserve, taken when the tunnel is empty
      assert.ok(urls.indexOf('http://far.example/film') > urls.indexOf('http://books.example/s4'));
    }
  } finally {
    await s.close();
  }
});

test('reserve key: a tier below every tunnel key, decayed the same way', () => {
  for (const h of [1, 2, 5, 40, 2000]) {
    assert.ok(reserveKey(h, 1, 0.5) < tunnelKey(2000, 0, 0.5), `hops ${h}`);
    assert.ok(reserveKey(h, 0, 0.5) >= -2);
  }
  assert.equal(reserveKey(1, 0, 0.5), tunnelKey(1, 0, 0.5) - 1);
  assert.ok(reserveKey(1, 0, 0.5) > reserveKey(2, 0, 0.5));
});

test('tunnel key: below every ordinary key, halved per page below η on the way, the link prior breaking ties; evicted first', () => {
  const keys = [0, 1, 2, 5].map((h) => tunnelKey(h, 0.2, 0.5));
  assert.ok(keys.every((k) => k > -1 && k < 0));
  assert.ok(keys.every((k, i) => i === 0 || k < keys[i - 1]!), 'decays with hops');
  assert.equal(tunnelKey(1, 0, 0.5) + 1, 0.25);
  assert.equal(tunnelKey(2, 0, 0.5) + 1, 0.125);
  assert.ok(tunnelKey(1, 0.8, 0.5) > tunnelKey(1, 0.1, 0.5));
  const f = new Frontier(3);
  const entry = (url: string, key: number, tunnel = false) => ({ seq: 0, url, depth: 1, sim: 0, key, links: '', inherited: 0, ...(tunnel ? { tunnel } : {}) });
  f.push(entry('t1', tunnelKey(0, 0.9, 0.5), true));
  f.push(entry('a', 0));
  f.push(entry('t2', tunnelKey(3, 0, 0.5), true));
  f.push(entry('b', 0.01));
  for (let i = 0; i < 20; i++) f.push(entry(`c${i}`, 0.001));
  assert.deepEqual(
    [f.pop(), f.pop(), f.pop()].map((e) => e?.url),
    ['b', 'c0', 'c1'],
    'ordinary entries first; tunnel entries were dropped first when the frontier shrank',
  );
  const rest: string[] = [];
  for (let e = f.pop(); e; e = f.pop()) rest.push(e.url);
  assert.ok(!rest.includes('t1') && !rest.includes('t2'), rest.join(' '));
});

test('sweep seeds: real off-topic pages from which a relevant page is reachable (navigation links and redirects followed), nearest first', async () => {
  const { tunnelSeeds } = await import('../../src/crawl/sweep.js');
  const { writeWeb } = await import('./web.js');
  const web = tunnelWeb();
  web.push({ url: 'http://books.example/moved', special: 'redirect:http://books.example/s3' });
  web.push({ url: 'http://island.example/', body: navPage('孤岛', ['http://island.example/x', 'http://books.example/gone']) });
  web.push({ url: 'http://near.example/', body: navPage('近处', ['http://books.example/moved']) });
  const { dir } = writeWeb(web);
  const relevant = new Map(web.map((p) => [p.url, /films\.example|far\.example/u.test(p.url)]));
  const real = new Set(['http://books.example/', 'http://books.example/dead', 'http://island.example/', 'http://near.example/', 'http://films.example/']);
  assert.deepEqual(tunnelSeeds(dir, { relevant, real }), [
    { url: 'http://books.example/', distance: 1 },
    { url: 'http://near.example/', distance: 3 },
  ]);
});
