/**
 * The formulas of src/crawl/relevance.ts (004's worked example, 003's block weights), the topic library
 * and its tokenizer, the generated-page marker staying out of the relevance model, the frontier's
 * order and size bound, and the test web builder on a tiny input (real page + KG records).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blockWeights, cosine, pageRelevance, twoStepScore, linkPrior } from '../../src/crawl/relevance.js';
import { parsePage } from '../../src/crawl/page.js';
import { TopicLibrary } from '../../src/crawl/topic.js';
import { Frontier } from '../../src/crawl/frontier.js';
import { resolveCrawlOptions } from '../../src/crawl/options.js';
import { buildTestWeb, isFilmPageType } from '../../src/crawl/testweb.js';
import { KgStore } from '../../src/kg/store.js';
import type { KgData } from '../../src/kg/model.js';
import { normalizeUrl } from '../../src/crawl/url.js';

test("twoStepScore reproduces seed 004's worked example and its cases (a) and (b)", () => {
  // a: 0.7·0.9 + 0.3·(0.9+0.8+0.7)/3 = 0.87
  assert.equal(twoStepScore(0.9, [0.9, 0.8, 0.7], 0.7, 0.05, 0.5).toFixed(2), '0.87');
  // case (a): a child below τ_low leaves the mean
  assert.equal(twoStepScore(0.9, [0.9, 0.8, 0.7, 0.01], 0.7, 0.05, 0.5).toFixed(2), '0.87');
  // case (b): no child reaches τ_high → the page's own relevance
  assert.equal(twoStepScore(0.4, [0.2, 0.3], 0.7, 0.05, 0.5), 0.4);
  assert.equal(twoStepScore(0.4, [], 0.7, 0.05, 0.5), 0.4);
  // α = 1 is the one-step VSM
  assert.equal(twoStepScore(0.4, [0.9, 0.9], 1, 0.05, 0.5), 0.4);
  // tunnel: an off-topic page with relevant children rises above zero
  assert.ok(twoStepScore(0, [0.3, 0.25], 0.7, 0.05, 0.2) > 0.08);
});

test('blockWeights: 003 impact = λ·key-tag share + (1−λ)·type constant, propagated to the enclosing block, normalised to 1', () => {
  const o = resolveCrawlOptions();
  const blocks = [
    { type: 'other' as const, text: '', keyTags: 0, parent: -1, linkChars: 0 },
    { type: 'content' as const, text: 'x', keyTags: 2, parent: 0, linkChars: 0 },
    { type: 'navigation' as const, text: 'y', keyTags: 0, parent: 0, linkChars: 0 },
  ];
  const w = blockWeights(blocks, o);
  const content = 0.3 * 1 + 0.7 * 0.6;
  const nav = 0.7 * 0.1;
  const outer = 0.7 * 0.2 + 0.5 * Math.max(content, nav);
  const sum = content + nav + outer;
  assert.deepEqual([...w].map((x) => x.toFixed(6)), [outer / sum, content / sum, nav / sum].map((x) => x.toFixed(6)));
  assert.ok(linkPrior(0.5, 0, 0.2, 0.8, 0.5) < linkPrior(0.5, 0.3, 0, 0.8, 0.5));
});

test('topic library: KG names by kind become concept dimensions (003 concept replacement), common words stay out, tokens by longest match', () => {
  const data: KgData = {
    entities: [
      { id: 'movie/douban/1', kind: 'Movie', name: '霸王别姬', surfaces: ['霸王别姬'], aliases: ['再见我的妾'] },
      { id: 'movie/douban/2', kind: 'Movie', name: '英雄本色', surfaces: ['英雄本色'], aliases: [] },
      { id: 'person/douban/3', kind: 'Person', name: '张国荣', surfaces: ['张国荣'], aliases: [] },
      { id: 'genre/剧情', kind: 'Genre', name: '剧情', surfaces: ['剧情'], aliases: [] },
    ],
    relations: [],
  };
  const kg = KgStore.fromData(data);
  const o = resolveCrawlOptions();
  const lib = TopicLibrary.fromKg(kg, o, (n) => n === '英雄本色');
  const toks: string[] = [];
  lib.tokenize('张国荣主演的再见我的妾是电影，不是英雄本色。abc DEF', (t) => toks.push(t));
  // the alias 再见我的妾 counts toward @Movie; 英雄本色 is a common word here, so it is two bigrams;
  // a lone CJK character between two terms is no token
  assert.deepEqual(toks, ['@Person', '主演', '@Movie', '电影', '不是', '英雄', '本色', 'abc', 'def']);
  assert.equal(lib.weight('@Movie'), 1);
  assert.equal(lib.weight('剧情'), 1, 'a hand-list word keeps its own dimension');
  assert.equal(lib.weight('又名'), 0.5, 'judgement words weigh β_v');
  assert.deepEqual(lib.extend(['张国荣', '胶片质感', '胶片质感'], 0.5, 10), ['胶片质感']);
  assert.equal(lib.weight('胶片质感'), 0.5);
});

test('the generated-page marker and other meta tags never change a relevance score', () => {
  const lib = TopicLibrary.fromKg(null, resolveCrawlOptions());
  const o = resolveCrawlOptions({ idfSource: 'none' });
  const body = '<body><h1>电影</h1><div><p>导演和主演谈这部影片的剧情与票房，上映日期已定，片长两小时。</p></div><div class="nav"><a href="/">首页</a></div></body>';
  const plain = `<html><head><title>影片</title></head>${body}</html>`;
  const marked = `<html><head><title>影片</title><meta name="filmkw-generated" content="电影 导演 主演 影评 票房"><meta name="keywords" content="电影"></head>${body}</html>`;
  for (const pageRelevance_ of ['weightedVector', 'blockSum', 'plainCosine'] as const) {
    const oo = { ...o, pageRelevance: pageRelevance_ };
    const a = pageRelevance(parsePage(plain), lib, () => 1, oo);
    const b = pageRelevance(parsePage(marked), lib, () => 1, oo);
    assert.ok(a > 0.1, `${pageRelevance_}: ${a}`);
    assert.equal(a, b, pageRelevance_);
  }
  const p = parsePage(body);
  assert.deepEqual(p.links.map((l) => [l.href, l.anchor, l.blockType]), [['/', '首页', 'navigation']]);
  assert.equal(cosine(new Map(), lib), 0);
});

test('frontier: highest key first, ties by discovery then URL; beyond the bound the lowest entries are dropped', () => {
  const f = new Frontier(1000);
  const e = (seq: number, key: number, url = `u${seq}`) => ({ seq, url, depth: 0, sim: key, key, links: '', inherited: 0 });
  f.push(e(1, 0.5));
  f.push(e(0, 0.5));
  f.push(e(2, 0.9));
  f.push(e(3, 0.5, 'a'));
  f.push(e(3, 0.5, 'b'));
  assert.deepEqual([1, 2, 3, 4, 5].map(() => f.pop()!.url), ['u2', 'u0', 'u1', 'a', 'b']);
  for (let i = 0; i < 200_000; i++) f.push(e(i, (i * 7919) % 100_003));
  assert.ok(f.size <= 1000 + 64, `${f.size} entries kept`);
  assert.equal(f.evicted + f.size, 200_000);
  assert.equal(f.pop()!.key, 100_002, 'the best entry survives eviction');
});

test('normalizeUrl: lower-case host, no fragment, tracking parameters dropped, query sorted, relative links resolved', () => {
  assert.deepEqual(normalizeUrl('HTTP://WWW.Example.COM:80/a/../b?z=1&utm_source=x&a=2#frag'), { url: 'http://www.example.com/b?a=2&z=1' });
  assert.deepEqual(normalizeUrl('../c', 'https://a.example/x/y/z'), { url: 'https://a.example/x/c' });
  assert.deepEqual(normalizeUrl('javascript:void(0)'), { error: 'scheme javascript is not http(s)' });
  assert.deepEqual(normalizeUrl('http://user:pw@a.example/'), { error: 'URL with credentials' });
});

test('crawl testweb: real pages at their URLs with their bytes, KG records rendered at Douban URLs, everything labelled in the gold', () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-tw-'));
  const real = join(dir, 'top.html');
  writeFileSync(real, '<html><head><title>豆瓣电影 Top 250</title></head><body><a href="https://movie.douban.com/subject/1/">霸王别姬</a></body></html>');
  const off = join(dir, 'news.html');
  writeFileSync(off, `<html><head><title>天气新闻</title></head><body><div><p>${'今天的天气很好，城市交通运行正常，市民出行方便。'.repeat(20)}</p></div></body></html>`);
  const kg: KgData = {
    entities: [
      { id: 'movie/douban/1', kind: 'Movie', name: '霸王别姬', surfaces: ['霸王别姬'], aliases: ['再见我的妾'] },
      { id: 'person/douban/9', kind: 'Person', name: '陈凯歌', surfaces: ['陈凯歌'], aliases: [] },
      { id: 'genre/剧情', kind: 'Genre', name: '剧情', surfaces: ['剧情'], aliases: [] },
    ],
    relations: [
      { kind: 'DIRECTED', from: 'person/douban/9', to: 'movie/douban/1' },
      { kind: 'HAS_GENRE', from: 'movie/douban/1', to: 'genre/剧情' },
    ],
  };
  const out = join(dir, 'web');
  const r = buildTestWeb(
    { pages: [{ path: real, url: 'https://movie.douban.com/top250', pageType: 'douban Top250 list page' }, { path: off, pageType: 'zh article/news/blog' }], kg, facts: new Map([['1', { summary: '段小楼与程蝶衣的故事。', year: '1993' }]]) },
    out,
    { users: 5, groups: 3, tunnelSiteArticles: 40, portalPages: 2 },
  );
  assert.equal(r.real, 2);
  const gold = readFileSync(join(out, 'gold.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
  assert.deepEqual(gold[0], ['url', 'relevant', 'grade', 'provenance', 'kind']);
  const row = (u: string) => gold.find((g) => g[0] === u);
  assert.deepEqual(row('https://movie.douban.com/top250'), ['https://movie.douban.com/top250', '1', '1', 'real', 'real-film']);
  assert.deepEqual(row('https://movie.douban.com/subject/1/')?.slice(1), ['1', '1', 'generated', 'kg-film']);
  assert.deepEqual(row('https://movie.douban.com/celebrity/9/')?.slice(1), ['1', '1', 'generated', 'kg-person']);
  assert.equal(row('http://www.citynews.example/')?.[1], '0');
  const manifest = readFileSync(join(out, 'manifest.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
  const file = (u: string) => join(out, manifest.find((m) => m[0] === u)![1]!);
  assert.equal(readFileSync(file('https://movie.douban.com/top250'), 'utf8'), readFileSync(real, 'utf8'), 'real bytes served');
  const film = readFileSync(file('https://movie.douban.com/subject/1/'), 'utf8');
  assert.match(film, /<meta name="filmkw-generated"/);
  assert.match(film, /<a href="\/celebrity\/9\/">陈凯歌<\/a>/);
  assert.match(film, /段小楼与程蝶衣的故事/);
  assert.match(film, /又名:<\/span> 再见我的妾/);
  assert.ok(manifest.every((m, i) => i === 0 || m[2] === 'real' || m[2] === 'generated'));
  assert.ok(isFilmPageType('douban subject page (movie/TV)') && !isFilmPageType('douban book subject page (not film)'));
  const seeds = readFileSync(join(out, 'seeds.tsv'), 'utf8');
  assert.match(seeds, /^set\turl\non-topic\thttps:\/\/movie\.douban\.com\/top250\n/u);
  // 004's fake-keyword and modest pages: generated, off-topic in the gold, labelled in the page,
  // advertised on the portal (not on the tunnel site by default), a link directory as the fourth seed set
  assert.match(seeds, /\nfake-keywords\thttp:\/\/www\.yule-daohang\.example\/\n/u);
  for (const [u, kind] of [
    ['http://www.yingshidaquan.example/', 'fake-keyword-aggregator'],
    ['http://lp.adclick.example/lp/0.html', 'fake-keyword-ad'],
    ['http://shop.zhoubian.example/item/0.html', 'fake-keyword-shop'],
    ['http://blog.xiaoying.example/post/0.html', 'modest-blog'],
    ['http://www.yule-daohang.example/', 'directory'],
  ]) {
    assert.deepEqual(row(u!)?.slice(1), ['0', '0', 'generated', kind], u);
    assert.match(readFileSync(file(u!), 'utf8'), /<meta name="filmkw-generated"/);
  }
  const agg = readFileSync(file('http://www.yingshidaquan.example/'), 'utf8');
  assert.match(agg, /《霸王别姬》高清下载/);
  assert.match(agg, /href="https:\/\/movie\.douban\.com\/subject\/1\/">霸王别姬 豆瓣评分/);
  assert.match(readFileSync(file('http://blog.xiaoying.example/post/0.html'), 'utf8'), /<a href="https:\/\/movie\.douban\.com\/subject\/1\/">这一部<\/a>/);
  assert.match(readFileSync(file('http://www.newsportal.example/'), 'utf8'), /<li class="promo"><a href="http:\/\/www\.yingshidaquan\.example\/">/);
  const graph = readFileSync(join(out, 'graph.tsv'), 'utf8');
  assert.ok(!/^http:\/\/www\.citynews\.example\/\S*\thttp:\/\/www\.yingshidaquan/mu.test(graph), 'no ad on the tunnel site by default');
  // the portal and everything drawn before the new region are the same as in a web built without it
  const without = join(dir, 'web-without');
  buildTestWeb(
    { pages: [{ path: real, url: 'https://movie.douban.com/top250', pageType: 'douban Top250 list page' }, { path: off, pageType: 'zh article/news/blog' }], kg, facts: new Map([['1', { summary: '段小楼与程蝶衣的故事。', year: '1993' }]]) },
    without,
    { users: 5, groups: 3, tunnelSiteArticles: 40, portalPages: 2, aggregatorPages: 0, blogPosts: 0 },
  );
  const m2 = new Map(readFileSync(join(without, 'manifest.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t') as [string, string]));
  const same = manifest.filter((m) => /^https?:\/\/(www\.citynews\.example|www\.douban\.com)\//u.test(m[0]!) && !m[1]!.includes(":"));
  assert.ok(same.length > 40);
  for (const m of same) assert.equal(readFileSync(join(out, m[1]!), 'utf8'), readFileSync(join(without, m2.get(m[0]!)!), 'utf8'), m[0]);
});
