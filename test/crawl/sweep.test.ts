/**
 * The two measurements of issue 27 that `crawl eval` writes into results.md, on small local webs: the
 * off-topic seed sweep (every configuration from every seed, counted from the index against a gold) and
 * the throughput run (a generated web served by `filmkw replay` in its own process: run `npm run build`
 * first). Counts only (pages, requests in flight seen by the server), never a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSeedSweep, sweepTable, SWEEP_CONFIGS } from '../../src/crawl/sweep.js';
import { measureThroughput, throughputTable } from '../../src/crawl/throughput.js';
import { filmPage, plainResources, serveWeb, type WebPage } from './web.js';

/** An off-topic page whose only links are in its navigation bar. */
const navPage = (title: string, nav: string[]): string =>
  `<html><head><title>${title}</title></head><body><div id="db-global-nav" class="global-nav">${nav.map((l, i) => `<a href="${l}">栏目${i}</a>`).join(' ')}</div>` +
  `<h1>${title}</h1><div class="article"><p>今天的天气很好，市场上的蔬菜价格平稳，居民出行方便，公园里有很多人散步。</p></div></body></html>`;

/** seed → (nav) a → (nav) b → (nav) film page → film page: the film pages only through navigation bars. */
const navChain: WebPage[] = [
  { url: 'http://off.example/', body: navPage('读书', ['http://off.example/a']) },
  { url: 'http://off.example/a', body: navPage('音乐', ['http://off.example/b']) },
  { url: 'http://off.example/b', body: navPage('小组', ['http://films.example/1']) },
  { url: 'http://films.example/1', body: filmPage('影片一号', ['http://films.example/2']) },
  { url: 'http://films.example/2', body: filmPage('影片二号', []) },
];

test('seed sweep: per configuration, the seeds whose crawl fetches a film page, harvest and budget counted from the index; strict filtering stops before the navigation links; the table states the targets', async () => {
  const s = await serveWeb(navChain);
  const gold = { relevant: new Map(navChain.map((p) => [p.url, p.url.startsWith('http://films.')])), real: new Set(navChain.map((p) => p.url)) };
  try {
    const rows = await runSeedSweep({ seeds: [{ url: 'http://off.example/', distance: 3 }], gold, via: s.url, work: mkdtempSync(join(tmpdir(), 'filmkw-sweep-')), maxPages: 50, resources: () => plainResources, say: () => {} });
    assert.deepEqual(
      rows.map((r) => r.label),
      SWEEP_CONFIGS.map((c) => c.label),
    );
    const row = (label: string) => rows.find((r) => r.label === label)!;
    for (const label of ['focused (default)', 'bfs', 'shark']) {
      const r = row(label);
      assert.equal(r.reached, 1, label);
      // the five pages and the film pages' navigation link to films.example/ (a 404 here)
      assert.equal(r.fetched, 6, `${label}: the whole web, nothing twice`);
      assert.equal(r.relevant, 2, label);
      assert.deepEqual(r.firstRelevant, [3], `${label}: the first film page is the 4th fetch`);
      assert.deepEqual(r.harvests, [2 / 6], label);
      assert.equal(r.budgetSpent, 0, `${label}: the frontier ran empty before the budget`);
    }
    const strict = row('focused, strict (tunnel off)');
    assert.equal(strict.reached, 0);
    assert.equal(strict.fetched, 1, 'strict filtering fetches the seed only');
    const md = sweepTable([{ url: 'http://off.example/', distance: 3 }], rows, 50);
    assert.match(md, /^\| focused \(default\) \| 1 \/ 1 \| 33\.3 \| 33\.3 \| 3 \| 0 \/ 1 \|$/mu);
    assert.match(md, /^\| focused, strict \(tunnel off\) \| 0 \/ 1 \| 0\.0 \| 0\.0 \| — \| 0 \/ 1 \|$/mu);
    assert.match(md, /Targets: default reaches film pages from more seeds than bfs: 1 vs 1 \(NOT met\); from at least 10: 1 \(NOT met\); higher harvest than bfs: 33\.3 vs 33\.3 \(NOT met\)\./u);
  } finally {
    await s.close();
  }
});

test('throughput run: each concurrency crawls the budget from a generated web of several hosts served by `filmkw replay --latency` in its own process; the server saw at most `concurrency` requests at once and one per host; the bound is Σ hosts / delay', { timeout: 120_000 }, async () => {
  const said: string[] = [];
  const setup = { hosts: 3, pages: 4, latency: { minMs: 1, maxMs: 3, perHost: false }, delayMs: 40, maxPages: 12 };
  const rows = await measureThroughput({ ...setup, concurrencies: [1, 8], res: plainResources, say: (m) => said.push(m) });
  assert.deepEqual(
    rows.map((r) => [r.concurrency, r.fetched, r.politenessBound]),
    [
      [1, 12, 75],
      [8, 12, 75],
    ],
  );
  assert.equal(rows[0]!.maxInFlight, 1);
  assert.ok(rows[1]!.maxInFlight >= 1 && rows[1]!.maxInFlight <= 3, `at most one per host of 3: ${rows[1]!.maxInFlight}`);
  for (const r of rows) assert.equal(r.maxHostInFlight, 1, 'never two requests to one host at once');
  assert.equal(said.length, 2);
  const md = throughputTable(rows, setup);
  assert.match(md, /^\| 8 \| [\d.]+ \| [\d.]+ \| 75\.0 \| 4000\.0 \| [\d.]+ \| \d \| 1 \|$/mu);
  assert.match(md, /Target: at concurrency 8, ≥ 0\.8 × the politeness bound \(60\.0 pages\/s\): after start-up [\d.]+ \((met|NOT met)\), overall [\d.]+ \((met|NOT met)\)\./u);
});
