/**
 * The crawler on small local webs (127.0.0.1 only, through the replay server): outputs (index.jsonl,
 * WARC readable by warcio, texts.jsonl, pages/), modes, robots.txt and Crawl-delay, host limits, and
 * every bad input of issue 12 (redirect loops, endless redirects, error statuses, huge / binary /
 * mis-declared pages, endless pagination, garbage or failing robots.txt, unreachable host, timeouts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, relative, isAbsolute } from 'node:path';
import iconv from 'iconv-lite';
import { WARCParser } from 'warcio';
import { crawl, readSeedFile, resolveSeeds } from '../../src/crawl/crawler.js';
import { resolveCrawlOptions } from '../../src/crawl/options.js';
import { FilmkwError } from '../../src/errors.js';
import { filmPage, hubWeb, offPage, opts, plainResources, serveWeb } from './web.js';
import { writeFileSync } from 'node:fs';

const outDir = () => join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-')), 'out');
type Line = { url: string; status: number; relevant: boolean; score: number; twoStep?: number; depth: number; parent: string | null; time: string; error?: string; finalUrl?: string };
const index = (out: string): Line[] => readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);

test('crawl: index line per fetched URL, relevant film pages saved as text and HTML, WARC records readable by warcio', async () => {
  const s = await serveWeb(hubWeb(6, 4));
  try {
    const out = outDir();
    const sum = await crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 50 }), plainResources);
    const lines = index(out);
    assert.equal(lines.length, 11, 'hub + 6 films + 4 news');
    assert.equal(sum.fetched, 11);
    assert.deepEqual(Object.keys(lines[0]!), ['url', 'status', 'relevant', 'score', 'twoStep', 'depth', 'parent', 'time']);
    // saveRule score (default): saved = two-step score ≥ η, known for every page (leaves: their own sim)
    assert.ok(lines.every((l) => typeof l.twoStep === 'number' && l.relevant === l.twoStep >= 0.1), JSON.stringify(lines));
    assert.equal(lines.filter((l) => l.relevant).length, sum.saved);
    assert.equal(lines[0]!.parent, null);
    const films = lines.filter((l) => l.url.includes('/film/'));
    const news = lines.filter((l) => l.url.includes('news.example'));
    assert.ok(films.every((l) => l.relevant && l.score >= 0.1 && l.status === 200), JSON.stringify(films));
    assert.ok(news.every((l) => !l.relevant && l.score < 0.1), JSON.stringify(news));
    assert.ok(lines.slice(1).every((l) => l.depth >= 1 && l.parent !== null));
    const texts = readFileSync(join(out, 'texts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; text: string });
    assert.equal(texts.length, sum.saved);
    assert.match(texts[1]!.text, /剧情简介/);
    const files = readdirSync(join(out, 'pages'), { recursive: true }).filter((f) => String(f).endsWith('.html'));
    assert.equal(files.length, sum.saved);
    assert.deepEqual(readdirSync(join(out, '.state', 'pending')), [], 'no staged body left when the crawl ends');
    const records: Record<string, unknown>[] = [];
    for await (const r of new WARCParser([readFileSync(join(out, 'crawl.warc.gz'))])) {
      await r.readFully();
      records.push({ type: r.warcType, url: r.warcTargetURI, status: r.httpHeaders?.statusCode });
    }
    assert.equal(records[0]!.type, 'warcinfo');
    assert.equal(records.filter((r) => r.type === 'response').length, 11);
    assert.deepEqual(records[1], { type: 'response', url: 'http://films.example/', status: 200 });
  } finally {
    await s.close();
  }
});

test('crawl modes: focused reaches the film pages before the off-topic ones; bfs takes them in link order', async () => {
  // the hub lists off-topic links first: breadth-first fetches them first, the focused crawler ranks by relevance
  const films = [...Array(8).keys()].map((i) => `http://films.example/film/${i}`);
  const offs = [...Array(8).keys()].map((i) => `http://news.example/a/${i}`);
  const web = [
    { url: 'http://portal.example/', body: offPage('门户', ['http://news.example/', 'http://films.example/']) },
    { url: 'http://news.example/', body: offPage('新闻', offs) },
    { url: 'http://films.example/', body: filmPage('电影频道', films) },
    ...films.map((u, i) => ({ url: u, body: filmPage(`影片${i}`, [films[(i + 1) % 8]!]) })),
    ...offs.map((u, i) => ({ url: u, body: offPage(`新闻${i}`, [offs[(i + 1) % 8]!]) })),
  ];
  const s = await serveWeb(web);
  try {
    const run = async (mode: 'focused' | 'bfs' | 'one-step') => {
      const out = outDir();
      await crawl({ seeds: ['http://portal.example/'], out, via: s.url }, opts({ mode, maxPages: 12, maxLookahead: 2 }), plainResources);
      return index(out).filter((l) => l.relevant).length;
    };
    const focused = await run('focused');
    const bfs = await run('bfs');
    assert.ok(focused > bfs, `focused ${focused} relevant vs bfs ${bfs}`);
    assert.ok((await run('one-step')) >= 1);
  } finally {
    await s.close();
  }
});

test('crawl: robots.txt disallow is honoured (never requested), Crawl-delay spaces requests, garbage robots.txt allows all', async () => {
  const s = await serveWeb([
    { url: 'http://films.example/robots.txt', body: 'User-agent: *\nDisallow: /private/\nCrawl-delay: 0.25\n', contentType: 'text/plain' },
    { url: 'http://films.example/', body: filmPage('首页', ['/private/x', '/film/1', '/film/2', 'http://garbage.example/']) },
    { url: 'http://films.example/private/x', body: filmPage('秘密', []) },
    { url: 'http://films.example/film/1', body: filmPage('影片1', []) },
    { url: 'http://films.example/film/2', body: filmPage('影片2', []) },
    { url: 'http://garbage.example/robots.txt', body: '\u0000\u0001 <html> this is not { a robots file\nDisallow', contentType: 'text/plain' },
    { url: 'http://garbage.example/', body: filmPage('乱码站', []) },
  ]);
  try {
    const out = outDir();
    const t0 = performance.now();
    await crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 20 }), plainResources);
    const ms = performance.now() - t0;
    const lines = index(out);
    const priv = lines.find((l) => l.url.endsWith('/private/x'));
    assert.match(priv?.error ?? '', /disallowed by robots\.txt \(line 2\)/);
    assert.equal(s.stats.hits.get('films.example/private/x'), undefined, 'the disallowed page was requested');
    assert.ok(ms >= 2 * 250 - 20, `3 pages on a host with Crawl-delay 0.25 s took ${ms} ms`);
    assert.equal(lines.find((l) => l.url === 'http://garbage.example/')?.status, 200);
  } finally {
    await s.close();
  }
});

test('crawl bad input: redirect loop, endless redirects, 404/500, huge, binary, mis-declared charset, endless pagination, timeout — each a clear index line', async () => {
  const gbk = iconv.encode(filmPage('国产电影', []).replace('<head>', '<head><meta charset="utf-8">'), 'gbk');
  const pages = [
    { url: 'http://bad.example/', body: filmPage('首页', ['/loop1', '/r0', '/missing', '/err', '/huge', '/bin', '/bin-as-html', '/gbk', '/list?page=1', '/slow', 'mailto:a@b.c', 'javascript:void(0)', 'ftp://x.example/f']) },
    { url: 'http://bad.example/loop1', special: 'redirect:/loop2' },
    { url: 'http://bad.example/loop2', special: 'redirect:/loop1' },
    ...[...Array(10).keys()].map((i) => ({ url: `http://bad.example/r${i}`, special: `redirect:/r${i + 1}` })),
    { url: 'http://bad.example/err', special: 'status:500' },
    { url: 'http://bad.example/huge', body: filmPage('大', [], '很长'.repeat(400_000)) },
    { url: 'http://bad.example/bin', body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]), contentType: 'image/png' },
    { url: 'http://bad.example/bin-as-html', body: new Uint8Array(4096).map((_, i) => (i * 7919) & 255), contentType: 'text/html' },
    { url: 'http://bad.example/gbk', body: gbk },
    ...[...Array(60).keys()].map((i) => ({ url: `http://bad.example/list?page=${i + 1}`, body: filmPage(`列表${i}`, [`/list?page=${i + 2}`]) })),
    { url: 'http://bad.example/slow', special: 'slow:2000:p0.html' },
  ];
  const s = await serveWeb(pages);
  try {
    const out = outDir();
    const sum = await crawl({ seeds: ['http://bad.example/'], out, via: s.url }, opts({ maxPages: 200, maxDepth: 5, maxBytes: 200_000, timeoutMs: 300, maxRedirects: 5, maxLookahead: 30 }), plainResources);
    const by = new Map(index(out).map((l) => [l.url, l]));
    assert.match(by.get('http://bad.example/loop1')!.error!, /redirect loop back to http:\/\/bad\.example\/loop1/);
    assert.match(by.get('http://bad.example/r0')!.error!, /more than 5 redirects/);
    assert.equal(by.get('http://bad.example/missing')!.error, 'HTTP 404');
    assert.equal(by.get('http://bad.example/err')!.error, 'HTTP 500');
    assert.match(by.get('http://bad.example/huge')!.error!, /larger than the cap of 200000 bytes/);
    assert.equal(by.get('http://bad.example/bin')!.error, 'content-type image/png is not HTML');
    assert.match(by.get('http://bad.example/bin-as-html')!.error!, /not HTML|encoding|decode/i);
    const g = by.get('http://bad.example/gbk')!;
    assert.equal(g.error, undefined);
    assert.equal(g.relevant, true, 'a GBK page declared utf-8 is decoded and scored');
    assert.match(by.get('http://bad.example/slow')!.error!, /timeout after 300 ms/);
    const pagination = [...by.keys()].filter((u) => u.includes('/list?page='));
    assert.ok(pagination.length <= 5, `endless pagination stopped by maxDepth: ${pagination.length} pages`);
    assert.ok(![...by.keys()].some((u) => /^(mailto|javascript|ftp):/u.test(u)), 'only http(s) links are followed');
    assert.equal(sum.stoppedBy, 'frontier empty');
  } finally {
    await s.close();
  }
});

test('crawl: unreachable host and failing robots.txt give index lines, not a crash; excluded hosts are never requested', async () => {
  const s = await serveWeb([
    { url: 'http://films.example/', body: filmPage('首页', ['http://down.example/a', 'http://other.example/', '/film/1']) },
    { url: 'http://films.example/film/1', body: filmPage('影片1', []) },
    { url: 'http://down.example/robots.txt', special: 'status:503' },
    { url: 'http://other.example/', body: filmPage('别站', []) },
  ]);
  try {
    const out = outDir();
    await crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 20, allowHosts: ['films.example', 'down.example'] }), plainResources);
    const by = new Map(index(out).map((l) => [l.url, l]));
    assert.match(by.get('http://down.example/a')!.error!, /robots\.txt unavailable \(status 503\): host not crawled/);
    assert.equal(by.get('http://other.example/')!.error, 'host other.example is excluded by the options');
    assert.equal(s.stats.hits.get('other.example/'), undefined);
    assert.equal(s.stats.hits.get('down.example/a'), undefined);
    // a deny list (suffix match) excludes a host whatever the allow list
    const outDeny = outDir();
    await crawl({ seeds: ['http://films.example/'], out: outDeny, via: s.url }, opts({ maxPages: 20, denyHosts: ['example'] }), plainResources);
    assert.deepEqual(index(outDeny).map((l) => l.error), ['host films.example is excluded by the options']);
    assert.equal(s.stats.hits.get('films.example/'), 1, 'only the first crawl requested the seed');
    const out2 = outDir();
    const sum = await crawl({ seeds: ['http://films.example/'], out: out2, via: 'http://127.0.0.1:9' }, opts({ maxPages: 5 }), plainResources);
    assert.equal(sum.fetched, 1);
    assert.match(index(out2)[0]!.error!, /robots\.txt unavailable \(connection refused\)/);
  } finally {
    await s.close();
  }
});

test('crawl: an existing crawl is never overwritten without --resume; --resume of nothing is refused', async () => {
  const s = await serveWeb(hubWeb(2, 1));
  try {
    const out = outDir();
    await crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 3 }), plainResources);
    await assert.rejects(crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 3 }), plainResources), /already holds a crawl; pass --resume/);
    await assert.rejects(crawl({ seeds: ['http://films.example/'], out, via: s.url, resume: true }, opts({ maxPages: 9 }), plainResources), /--resume refused: the seeds, options or KG differ/);
    await assert.rejects(crawl({ seeds: ['http://films.example/'], out: outDir(), via: s.url, resume: true }, opts({ maxPages: 3 }), plainResources), /holds no crawl to resume/);
  } finally {
    await s.close();
  }
});

test('seeds and options: bad seed URL, bad seed file line, unknown option and bad value are clear errors', () => {
  assert.throws(() => resolveSeeds(['ftp://x.example/']), /bad seed URL "ftp:\/\/x\.example\/": scheme ftp is not http\(s\)/);
  const d = mkdtempSync(join(tmpdir(), 'filmkw-seeds-'));
  writeFileSync(join(d, 'seeds.txt'), '# films\nhttp://a.example/\n\nhttp://[bad\n');
  assert.throws(() => readSeedFile(join(d, 'seeds.txt')), /seeds\.txt:4: bad seed URL: not a URL/);
  writeFileSync(join(d, 'empty.txt'), '# nothing\n');
  assert.throws(() => readSeedFile(join(d, 'empty.txt')), /has no URL/);
  assert.throws(() => readSeedFile(join(d, 'none.txt')), /none\.txt: no such file/);
  assert.deepEqual(resolveSeeds(['http://A.example/x#top', 'http://a.example/x']), ['http://a.example/x']);
  const usage = (f: () => unknown, re: RegExp) => assert.throws(f, (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message));
  usage(() => resolveCrawlOptions({ bogus: 1 } as never), /unknown option bogus/);
  usage(() => resolveCrawlOptions({ alpha: 1.5 }), /alpha must be a number in \[0, 1\]/);
  usage(() => resolveCrawlOptions({ mode: 'dfs' as never }), /--mode must be one of focused, bfs, static, one-step/);
  usage(() => resolveCrawlOptions({ impact1: { title: 1 } as never }), /option impact1\.heading must be a number/);
  assert.ok(Object.isFrozen(resolveCrawlOptions()));
});

test('crawl output paths never leave the output directory', async () => {
  const { pageFileName } = await import('../../src/crawl/url.js');
  const out = resolve('/tmp/out-dir');
  for (const u of ['http://../../etc/passwd', 'http://a.example/../../x', 'http://%2e%2e/x', 'http://a..b.example/', 'not a url', 'http://[::1]:80/']) {
    const p = resolve(out, pageFileName(u));
    const rel = relative(out, p);
    assert.ok(!rel.startsWith('..') && !isAbsolute(rel), `${u} → ${p}`);
  }
  assert.ok(existsSync(tmpdir()));
});

test('saveRule: score (default) saves a page by its two-step score after its lookahead (the tunnel page), sim by its own relevance; case (b) leaves a page whose children are all off-topic at its own sim; best-first and shark modes', async () => {
  const films = [...Array(4).keys()].map((i) => `http://films.example/film/${i}`);
  const s = await serveWeb([
    { url: 'http://films.example/', body: filmPage('首页', ['http://blog.example/p', 'http://spam.example/']) },
    { url: 'http://blog.example/p', body: offPage('日记', films) },
    { url: 'http://spam.example/', body: filmPage('大全', ['http://news.example/1', 'http://news.example/2', 'http://news.example/3']) },
    ...films.map((u, i) => ({ url: u, body: filmPage(`影片${i}`, []) })),
    ...[1, 2, 3].map((i) => ({ url: `http://news.example/${i}`, body: offPage(`新闻${i}`, []) })),
  ]);
  try {
    const run = async (o: Parameters<typeof opts>[0]) => {
      const out = outDir();
      const sum = await crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 50, ...o }), plainResources);
      const texts = readFileSync(join(out, 'texts.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { url: string }).url);
      return { sum, by: new Map(index(out).map((l) => [l.url, l])), lines: index(out), texts, pages: readdirSync(join(out, 'pages'), { recursive: true }).filter((f) => String(f).endsWith('.html')).length };
    };
    const score = await run({});
    const sim = await run({ saveRule: 'sim' });
    const filmSim = score.by.get(films[0]!)!.score;
    // the blog page: own sim 0, children all films → 0.3 · mean sim(children) ≥ η: saved only by the two-step rule
    const blog = score.by.get('http://blog.example/p')!;
    assert.equal(blog.score, 0);
    assert.ok(Math.abs(blog.twoStep! - 0.3 * filmSim) < 1e-5, `${blog.twoStep} vs 0.3 × ${filmSim}`);
    assert.equal(blog.relevant, true);
    assert.equal(sim.by.get('http://blog.example/p')!.relevant, false);
    assert.ok(score.texts.includes('http://blog.example/p') && !sim.texts.includes('http://blog.example/p'));
    assert.equal(score.pages, sim.pages + 1);
    assert.equal(score.sum.saved, sim.sum.saved + 1);
    // the keyword page whose children are all off-topic: 004 case (b), its own relevance stands
    const spam = score.by.get('http://spam.example/')!;
    assert.equal(spam.twoStep, spam.score);
    for (const l of score.lines) assert.equal(l.relevant, l.twoStep! >= 0.1, l.url);
    for (const l of sim.lines) assert.equal(l.relevant, l.score >= 0.1, l.url);
    assert.deepEqual(sim.lines.map((l) => l.url), score.lines.map((l) => l.url), 'the save rule does not change the fetch order');
    // best-first: all children of the most relevant page, document order; no two-step score
    const bf = await run({ mode: 'best-first' });
    assert.deepEqual(bf.lines.slice(0, 3).map((l) => l.url), ['http://films.example/', 'http://blog.example/p', 'http://spam.example/']);
    assert.ok(bf.lines.every((l) => l.twoStep === undefined && l.relevant === l.score >= 0.1));
    const sh = await run({ mode: 'shark' });
    assert.deepEqual(sh.lines.map((l) => l.url).sort(), score.lines.map((l) => l.url).sort(), 'shark reaches the same 10 pages');
    assert.ok(sh.lines.every((l) => l.twoStep === undefined));
  } finally {
    await s.close();
  }
});

test('saveRule score with a tiny frontier: entries dropped beyond maxFrontier (and the children they hold) are decided on their own sim, nothing stays pending', async () => {
  const s = await serveWeb(hubWeb(40, 20));
  try {
    const out = outDir();
    // tunnel off: its entries (navigation links) would be dropped first and counted in `evicted` too
    const sum = await crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 50, maxFrontier: 1, tunnel: false }), plainResources);
    assert.ok(sum.evicted > 0, `evicted ${sum.evicted}`);
    // dropped entries are decided when dropped, not kept pending to the end (memory stays bounded)
    const journal = readFileSync(join(out, '.state', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: string });
    const atEnd = journal.slice(journal.map((e) => e.t).lastIndexOf('fetch') + 1).filter((e) => e.t === 'save').length;
    assert.ok(atEnd <= sum.fetched - sum.evicted - 1, `${atEnd} decisions left to the end of ${sum.fetched} pages, ${sum.evicted} dropped`);
    const lines = index(out);
    assert.ok(lines.every((l) => typeof l.twoStep === 'number' && l.relevant === l.twoStep >= 0.1), JSON.stringify(lines));
    assert.equal(lines.filter((l) => l.relevant).length, sum.saved);
    assert.deepEqual(readdirSync(join(out, '.state', 'pending')), []);
    const texts = readFileSync(join(out, 'texts.jsonl'), 'utf8').trim().split('\n');
    assert.equal(texts.length, sum.saved);
  } finally {
    await s.close();
  }
});

test('seenSet bloom: a fixed-size Bloom filter gives the same crawl as the exact set on a small web; its size and rate are validated', async () => {
  const { createSeenSet } = await import('../../src/crawl/seen.js');
  const b = createSeenSet(resolveCrawlOptions({ seenSet: 'bloom', bloomCapacity: 10_000, bloomFpRate: 0.001 }));
  for (let k = 0; k < 5_000; k++) b.add(k * 7919);
  assert.ok([...Array(5_000).keys()].every((k) => b.has(k * 7919)), 'no false negative');
  const fp = [...Array(20_000).keys()].filter((k) => b.has(1e9 + k)).length;
  assert.ok(fp <= 20, `${fp} false positives of 20,000 (rate ≤ 0.001 at half the capacity)`);
  const s = await serveWeb(hubWeb(10, 6));
  try {
    const lines = async (o: Parameters<typeof opts>[0]) => {
      const out = outDir();
      await crawl({ seeds: ['http://films.example/'], out, via: s.url }, opts({ maxPages: 30, ...o }), plainResources);
      return index(out).map((l) => [l.url, l.relevant, l.score]);
    };
    assert.deepEqual(await lines({ seenSet: 'bloom', bloomCapacity: 1000 }), await lines({}));
  } finally {
    await s.close();
  }
  assert.throws(() => resolveCrawlOptions({ seenSet: 'bitmap' as never }), /seenSet must be one of exact, bloom/);
  assert.throws(() => resolveCrawlOptions({ bloomFpRate: 0 }), /bloomFpRate must be a number in \[1e-9, 0\.5\]/);
});

test('shark on a tunnel (eval/crawl/ANALYSIS.md): a link below zero-sim pages with a topic-free anchor has prior 0 and waits until the inherited chain of a relevant page ends at maxDepth; focused takes it once the pages with sim > 0 are expanded', async () => {
  // front (off-topic seed) → t0 → t1 → three film pages: the tunnel, no topic word on the way;
  // front → rel (a film page, relevant) → c0 → c1 → … → c9: an off-topic chain that inherits rel's relevance
  const films = [0, 1, 2].map((i) => `http://films.example/film/${i}`);
  const chain = [...Array(10).keys()].map((i) => `http://chain.example/${i}`);
  const web = (tunnelAnchor: string) => [
    { url: 'http://front.example/', body: offPage('首页', ['http://front.example/t0', 'http://rel.example/']) },
    { url: 'http://front.example/t0', body: offPage('专栏', []).replace('</body>', `<div class="more"><a href="http://front.example/t1">${tunnelAnchor}</a></div></body>`) },
    { url: 'http://front.example/t1', body: offPage('专栏二', films) },
    { url: 'http://rel.example/', body: filmPage('影评', [chain[0]!]) },
    ...chain.map((u, i) => ({ url: u, body: offPage(`新闻${i}`, chain[i + 1] ? [chain[i + 1]!] : []) })),
    ...films.map((u, i) => ({ url: u, body: filmPage(`影片${i}`, []) })),
  ];
  const crawlOrder = async (anchor: string, o: Parameters<typeof opts>[0]) => {
    const s = await serveWeb(web(anchor));
    try {
      const out = outDir();
      await crawl({ seeds: ['http://front.example/'], out, via: s.url }, opts({ maxPages: 40, ...o }), plainResources);
      return index(out).map((l) => l.url);
    } finally {
      await s.close();
    }
  };
  const at = (order: string[], u: string) => order.indexOf(u);
  // shark: every chain page the depth limit allows (rel is at depth 1, c_k at depth k + 2) comes before the tunnel's second page
  const shark = await crawlOrder('延伸阅读', { mode: 'shark' });
  const reached = chain.slice(0, 7);
  assert.ok(reached.every((u) => at(shark, u) >= 0) && at(shark, chain[7]!) === -1, `maxDepth 8 ends the chain at c6: ${shark.join(' ')}`);
  assert.equal(at(shark, 'http://front.example/t1'), at(shark, chain[6]!) + 1, `the tunnel waits for the whole chain: ${shark.join(' ')}`);
  assert.ok(films.every((u) => at(shark, u) > at(shark, 'http://front.example/t1')), 'and then goes through');
  // a shorter depth limit ends the decay sooner: the tunnel comes after c1
  const shallow = await crawlOrder('延伸阅读', { mode: 'shark', maxDepth: 3 });
  assert.equal(at(shallow, 'http://front.example/t1'), at(shallow, chain[1]!) + 1, shallow.join(' '));
  // focused: keyed by own sim before the lookahead, sim-0 pages in discovery order: t0 (found by the seed) before the chain
  const focused = await crawlOrder('延伸阅读', { mode: 'focused' });
  assert.ok(at(focused, 'http://front.example/t1') < at(focused, chain[2]!), focused.join(' '));
  // an anchor that names the topic is all shark needs: the tunnel link outranks the inherited chain
  const named = await crawlOrder('电影', { mode: 'shark' });
  assert.ok(at(named, 'http://front.example/t1') < at(named, chain[1]!), named.join(' '));
});
