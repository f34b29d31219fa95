/**
 * Concurrency with per-host politeness (issue 27) on small local webs served by the replay server:
 * concurrency honoured (the most requests in flight the server sees; answers are held until that many
 * are in, so the check does not depend on the machine's speed), at most one request per host, per-host
 * spacing from the recorded request times (relative to each other, never a wall-clock bound), a page's
 * record the same at any concurrency, the User-Agent's contact, `delayMs: auto`, the AutoThrottle rule.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WARCParser } from 'warcio';
import { crawl } from '../../src/crawl/crawler.js';
import { REAL_HOST_DELAY_MS, resolveCrawlOptions, resolvedDelayMs } from '../../src/crawl/options.js';
import { autoThrottleDelay } from '../../src/crawl/politeness.js';
import { startReplay, type ReplayServer } from '../../src/crawl/replay.js';
import { filmPage, manyHostWeb, opts, plainResources, writeWeb, type WebPage } from './web.js';

const outDir = () => join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-cc-')), 'out');
type Line = { url: string; status: number; relevant: boolean; score: number; error?: string; finalUrl?: string; depth: number };
const index = (out: string): Line[] => readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
const journal = (out: string) => readFileSync(join(out, '.state', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: string; url: string; sent?: number });

/** Serves `pages`, holding every answer until `target` requests are in flight (once; later answers go at once). */
async function heldWeb(pages: WebPage[], target: number, extra: Parameters<typeof startReplay>[1] = {}): Promise<ReplayServer> {
  const { manifest } = writeWeb(pages);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const s: ReplayServer = await startReplay([manifest], {
    ...extra,
    beforeAnswer: () => {
      if (s.stats.inFlight >= target) open();
      return gate;
    },
  });
  // a broken crawler that never reaches the target must not hang the test: its assertion fails instead
  setTimeout(open, 60_000).unref();
  return s;
}

test('concurrency honoured: the server sees exactly `concurrency` requests in flight (or one per host when hosts are fewer), never two for one host', { timeout: 180_000 }, async () => {
  for (const [concurrency, hosts, expected] of [
    [4, 12, 4],
    [16, 12, 12],
    [8, 1, 1],
  ] as const) {
    const web = manyHostWeb(hosts, 6);
    const seeds = [...Array(hosts).keys()].map((h) => `http://h${h}.example/`);
    const s = await heldWeb(web, expected);
    try {
      const sum = await crawl({ seeds, out: outDir(), via: s.url }, opts({ mode: 'bfs', concurrency, maxPages: 40 }), plainResources);
      assert.equal(sum.fetched, Math.min(40, web.length));
      assert.equal(s.stats.maxInFlight, expected, `concurrency ${concurrency} over ${hosts} hosts`);
      assert.equal(s.stats.maxHostInFlight, 1, 'at most one request per host');
    } finally {
      await s.close();
    }
  }
});

test('per-host spacing: two requests to one host start at least delayMs apart (robots Crawl-delay raises it), and never overlap, at concurrency 4', { timeout: 180_000 }, async () => {
  const web = manyHostWeb(3, 5);
  web.push({ url: 'http://h2.example/robots.txt', body: 'User-agent: *\nCrawl-delay: 0.25\n', contentType: 'text/plain' });
  const { manifest } = writeWeb(web);
  const s = await startReplay([manifest], { log: true, latency: { minMs: 5, maxMs: 30, perHost: false } });
  try {
    const out = outDir();
    await crawl({ seeds: ['http://h0.example/', 'http://h1.example/', 'http://h2.example/'], out, via: s.url }, opts({ mode: 'bfs', concurrency: 4, delayMs: 120, maxPages: 15 }), plainResources);
    const sent = new Map<string, number[]>();
    for (const e of journal(out)) if (e.t === 'fetch' && e.sent !== undefined) sent.set(new URL(e.url).host, [...(sent.get(new URL(e.url).host) ?? []), e.sent]);
    assert.deepEqual([...sent.keys()].sort(), ['h0.example', 'h1.example', 'h2.example']);
    for (const [host, times] of sent) {
      assert.equal(times.length, 5, host);
      const sorted = [...times].sort((a, b) => a - b);
      const gaps = sorted.slice(1).map((t, i) => t - sorted[i]!);
      const least = host === 'h2.example' ? 250 : 120;
      assert.ok(gaps.every((g) => g >= least - 0.1), `${host}: gaps ${gaps.map((g) => g.toFixed(1)).join(' ')} ms, least ${least}`);
    }
    // the server's side: a host's next request arrives only after its previous answer was handed over
    const byHost = new Map<string, { start: number; end?: number }[]>();
    for (const e of s.stats.log!) byHost.set(e.host, [...(byHost.get(e.host) ?? []), e]);
    for (const [host, es] of byHost) for (let i = 1; i < es.length; i++) assert.ok(es[i]!.start >= es[i - 1]!.end!, `${host}: request ${i} overlaps the one before`);
    assert.equal(s.stats.maxHostInFlight, 1);
  } finally {
    await s.close();
  }
});

test('a page record is the same at any concurrency (status, score, error, WARC payload, text); with the whole web fetched (no depth limit) the set is the same too', { timeout: 180_000 }, async () => {
  const web = manyHostWeb(6, 8, 5);
  web.push({ url: 'http://h3.example/moved', special: 'redirect:http://h3.example/p/2' }, { url: 'http://h4.example/gone', special: 'status:500' });
  web[0] = { url: 'http://h0.example/', body: filmPage('站点0影片0号', ['http://h0.example/p/1', 'http://h3.example/moved', 'http://h4.example/gone', 'http://h5.example/missing']) };
  const { manifest } = writeWeb(web);
  const s = await startReplay([manifest], { latency: { minMs: 1, maxMs: 15, perHost: false } });
  const records = async (concurrency: number, maxPages: number) => {
    const out = outDir();
    await crawl({ seeds: ['http://h0.example/'], out, via: s.url }, opts({ concurrency, maxPages, maxDepth: 100, dynamicLibrary: 'off', saveRule: 'sim' }), plainResources);
    const rec = new Map<string, string>();
    for (const l of index(out)) rec.set(l.url, JSON.stringify([l.status, l.score, l.relevant, l.error ?? null, l.finalUrl ?? null]));
    for await (const r of new WARCParser([readFileSync(join(out, 'crawl.warc.gz'))])) {
      const body = Buffer.from(await r.readFully()).toString('base64');
      if (r.warcType === 'response') rec.set(`warc ${r.warcTargetURI}`, `${r.httpHeaders?.statusCode} ${body}`);
    }
    for (const l of readFileSync(join(out, 'texts.jsonl'), 'utf8').trim().split('\n')) rec.set(`text ${(JSON.parse(l) as { id: string }).id}`, l);
    return rec;
  };
  try {
    const one = await records(1, 500);
    for (const [concurrency, budget] of [
      [4, 500],
      [8, 500],
      [8, 25],
    ] as const) {
      const many = await records(concurrency, budget);
      if (budget === 500) assert.deepEqual([...many.keys()].sort(), [...one.keys()].sort(), `concurrency ${concurrency}: the same pages`);
      let shared = 0;
      for (const [k, v] of many) {
        if (!one.has(k)) continue;
        shared++;
        assert.equal(v, one.get(k), `concurrency ${concurrency}: ${k}`);
      }
      assert.ok(shared >= 25, `${shared} records compared`);
    }
  } finally {
    await s.close();
  }
});

test('User-Agent names the contact; delayMs auto is 1 s on the real web and 0 through a replay server', async () => {
  assert.equal(resolvedDelayMs(resolveCrawlOptions(), undefined), REAL_HOST_DELAY_MS);
  assert.equal(REAL_HOST_DELAY_MS, 1000);
  assert.equal(resolvedDelayMs(resolveCrawlOptions(), 'http://127.0.0.1:9'), 0);
  assert.equal(resolvedDelayMs(resolveCrawlOptions({ delayMs: 250 }), 'http://127.0.0.1:9'), 250);
  assert.throws(() => resolveCrawlOptions({ contact: 'a b' }), /contact must be a URL or an e-mail address/u);
  assert.throws(() => resolveCrawlOptions({ concurrency: 0 }), /concurrency must be an integer in \[1, 256\]/u);
  assert.throws(() => resolveCrawlOptions({ delayMs: 'slow' as never }), /delayMs must be an integer/u);
  const agents: string[] = [];
  const server = createServer((req, res) => {
    agents.push(String(req.headers['user-agent']));
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: filmkw-crawler\nDisallow: /private\n');
    res.writeHead(200, { 'content-type': 'text/html' }).end(filmPage('影片', ['/private/x']));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const out = outDir();
    await crawl({ seeds: ['http://ua.example/'], out, via: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, opts({ contact: 'mailto:crawl@example.org', maxPages: 5 }), plainResources);
    assert.deepEqual(agents, ['filmkw-crawler (+mailto:crawl@example.org)', 'filmkw-crawler (+mailto:crawl@example.org)'], 'robots.txt and the page');
    assert.match(index(out).find((l) => l.url.endsWith('/private/x'))!.error!, /^disallowed by robots\.txt/u, 'robots rules still match the product token');
  } finally {
    server.close();
  }
});

test("AutoThrottle rule (Scrapy's): halfway to latency / target, never below the target or the minimum, an error never lowers it, capped", () => {
  const o = { target: 1, minDelayMs: 100, maxDelayMs: 5000 };
  assert.equal(autoThrottleDelay(1000, 200, true, o), 600, 'mean of 1000 and 200');
  assert.equal(autoThrottleDelay(100, 800, true, o), 800, 'never below latency / target');
  assert.equal(autoThrottleDelay(300, 20, true, o), 160, 'halfway down');
  assert.equal(autoThrottleDelay(120, 20, true, o), 100, 'not below the minimum (delayMs / Crawl-delay)');
  assert.equal(autoThrottleDelay(1000, 200, false, o), 1000, 'an error does not lower the delay');
  assert.equal(autoThrottleDelay(1000, 3000, false, o), 3000, 'an error may raise it');
  assert.equal(autoThrottleDelay(4000, 9000, true, o), 5000, 'capped');
  assert.equal(autoThrottleDelay(1000, 400, true, { ...o, target: 2 }), 600, 'target concurrency 2: 400/2 = 200, mean 600');
});
