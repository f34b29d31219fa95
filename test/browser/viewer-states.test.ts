// The viewer's states in a real browser (Debian chromium through playwright-core), issue 29: a new text
// empties every view of the previous one (explain panel, keywords, graph, compare) and the Sample menu
// names only the sample on screen; a KG search without a match leaves no entity behind; Tag, Compare and
// Ladder show their progress and disable their buttons until the answer (requests held by page.route,
// so the busy state is looked at while it lasts, never timed); the word graph's node-colour legend;
// F1 per batch file (and of the filtered records), an older batch page answer dropped; same-name KG entities told apart. Every wait is on a
// DOM state. Skips only where /usr/bin/chromium is absent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { CHROMIUM_PATH } from '../../src/html/records.js';
import { VIEWER_CHROMIUM_ARGS } from '../../src/serve/browser.js';
import { loadKg } from '../../src/kg/load.js';
import { goldScores, loadBatch } from '../../src/serve/batch.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { hasChromium, openViewer, SAMPLES, samples, skip, tagSamples } from './viewer-fixture.js';

declare const window: any;
declare const document: any;
declare const getComputedStyle: any;

const EXPLAIN_PLACEHOLDER = 'Hover a marked word to see what lifted it.';

let browser: Browser;
let server: RunningServer;
let homonyms: RunningServer;
let page: Page;
let dir: string;
let tags: string;
const pageErrors: string[] = [];

before(async () => {
  if (!hasChromium) return;
  dir = mkdtempSync(join(tmpdir(), 'filmkw-serve-states-'));
  tags = await tagSamples(dir);
  server = await startServer({ kg: await loadKg(), kgLabel: 'demo KG', batch: await loadBatch({ files: [tags], input: SAMPLES, idField: 'id', gold: SAMPLES }), port: 0 });
  homonyms = await startServer({ kg: await loadKg({ kg: 'test/fixtures/kg-sources/csv-homonyms' }), kgLabel: 'homonyms', batch: [], port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...VIEWER_CHROMIUM_ARGS] });
  page = await openViewer(browser, server.url, pageErrors);
});
after(async () => {
  await browser?.close();
  await server?.close();
  await homonyms?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Pick a sample and wait for its result. */
async function pickSample(id: string): Promise<void> {
  await page.evaluate(() => delete window.filmkw.lastTag);
  await page.selectOption('#sample', id);
  await page.waitForFunction(() => window.filmkw.lastTag !== undefined);
}

/** Hold every request to `path` until the returned release() is called. */
async function hold(path: string): Promise<{ held: Promise<void>; release: () => Promise<void> }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const held = new Promise<void>((r) => (arrived = r));
  let passed!: () => void;
  const through = new Promise<void>((r) => (passed = r));
  const handler = async (route: Route) => {
    arrived();
    await gate;
    await route.continue();
    passed();
  };
  await page.route(`**${path}`, handler);
  return {
    held,
    release: async () => {
      release();
      await through; // the held request went on before the route is removed
      await page.unroute(`**${path}`, handler);
    },
  };
}

test('a new text (Batch → Open, typing) empties the views of the previous one; the Sample menu names only the sample shown', { skip }, async () => {
  await page.click('#tabs button[data-view=text]');
  await pickSample('sample-01');
  await page.hover('#keywords li[data-rank="1"]');
  await page.waitForFunction(() => document.querySelector('#explain b')?.textContent === '1. 长津湖');
  assert.equal(await page.inputValue('#sample'), 'sample-01');
  // Batch → Open the record of sample-02
  await page.click('#tabs button[data-view=batch]');
  await page.waitForFunction(() => document.querySelectorAll('#batch-records tr').length > 2);
  await page.evaluate(() => delete window.filmkw.lastTag);
  await page.click('#batch-records tr:nth-child(3) button');
  await page.waitForFunction(() => window.filmkw.lastTag !== undefined);
  assert.equal(await page.inputValue('#text'), samples[1].text);
  assert.equal(await page.textContent('#explain'), EXPLAIN_PLACEHOLDER, 'no keyword of the previous text in the explain panel');
  assert.equal(await page.inputValue('#sample'), '', 'the Sample menu no longer names sample-01');
  assert.equal(await page.inputValue('#gold'), samples[1].tag.join(', '), 'the record\'s gold came with it');
  await page.hover('#keywords li[data-rank="1"]');
  await page.waitForFunction(() => document.querySelector('#explain b')?.textContent === '1. 程勇'); // sample-02's first keyword (filmkw tag)
  // compare columns of this text, then a typed change: every view of the old text goes
  await page.click('#tabs button[data-view=compare]');
  await page.click('#compare');
  await page.waitForFunction(() => document.querySelectorAll('#compare-out .card').length === 2);
  await page.click('#tabs button[data-view=text]');
  await page.fill('#text', '《长津湖》里易烊千玺扮演的伍万里');
  await page.waitForFunction(() => document.getElementById('status').textContent === 'the text changed: press Tag');
  assert.equal(await page.textContent('#explain'), EXPLAIN_PLACEHOLDER);
  assert.equal(await page.$$eval('#doc *, #keywords li, #compare-out .card', (els) => els.length), 0);
  assert.equal(await page.evaluate(() => window.filmkw.result), undefined);
  assert.equal(await page.inputValue('#gold'), '', 'gold keywords of the previous text are gone');
  await page.click('#tabs button[data-view=graph]');
  assert.equal(await page.$$eval('#sigma canvas, #node-legend *, #node-info *', (els) => els.length), 0, 'no graph of the previous text');
  await page.click('#tabs button[data-view=text]');
  assert.deepEqual(pageErrors, []);
});

test('a KG search without a match leaves nothing of the previous entity on screen', { skip }, async () => {
  await page.click('#tabs button[data-view=kg]');
  await page.fill('#kg-query', '吴京');
  await page.click('#kg-form button');
  await page.waitForFunction(() => document.querySelector('#entity-card .muted')?.textContent === 'person/name/吴京');
  await page.fill('#kg-query', '没有这个名字');
  await page.click('#kg-form button');
  await page.waitForFunction(() => /no entity named like/u.test(document.getElementById('kg-results').textContent));
  assert.equal(await page.$$eval('#kg-entity *', (els) => els.length), 0);
});

test('Tag, Compare and Ladder: buttons disabled and a progress line while the request runs, the old columns dimmed', { skip }, async () => {
  await page.click('#tabs button[data-view=text]');
  await pickSample('sample-01');
  const tagGate = await hold('/api/extract');
  await page.click('#run');
  await tagGate.held;
  await page.waitForSelector('#run:disabled');
  assert.equal(await page.isVisible('#tag-progress progress'), true);
  assert.match((await page.textContent('#tag-progress')) ?? '', /^ tagging…/u);
  await page.evaluate(() => delete window.filmkw.lastTag);
  await tagGate.release();
  await page.waitForFunction(() => window.filmkw.lastTag !== undefined && !document.getElementById('run').disabled && document.getElementById('tag-progress').hidden);

  await page.click('#tabs button[data-view=compare]');
  await page.click('#compare');
  await page.waitForFunction(() => document.querySelectorAll('#compare-out .card').length === 2);
  const gate = await hold('/api/compare');
  await page.click('#ladder');
  await gate.held;
  for (const b of ['#compare', '#ladder', '#run']) assert.equal(await page.isDisabled(b), true, `${b} disabled`);
  assert.match((await page.textContent('#compare-progress')) ?? '', /comparing 4 presets…/u);
  assert.equal(await page.getAttribute('#compare-out', 'class'), 'columns stale', 'the previous columns are marked out of date');
  assert.equal(await page.$$eval('#compare-out .card', (c) => c.length), 2, 'still the previous result');
  await gate.release();
  await page.waitForFunction(() => document.querySelectorAll('#compare-out .card').length === 4 && !document.getElementById('ladder').disabled);
  assert.equal(await page.isHidden('#compare-progress'), true);
  assert.equal(await page.getAttribute('#compare-out', 'class'), 'columns');
  assert.deepEqual(await page.$$eval('#compare-out .card h2', (els) => els.map((e) => e.textContent)), ['textrank', 'textrank+w', 'textrank+w+g', 'textrank+w+g+r']);
});

test('word graph: a legend names the colour of every kind of node drawn', { skip }, async () => {
  await page.click('#tabs button[data-view=text]');
  await pickSample('sample-01');
  await page.click('#tabs button[data-view=graph]');
  await page.waitForFunction(() => document.querySelector('#sigma canvas') && document.querySelectorAll('#node-legend .node-kind').length > 0);
  const kinds = await page.evaluate(() => [...new Set(window.filmkw.result.nodes.map((n: { kind?: string }) => n.kind ?? 'word'))]);
  const legend = await page.$$eval('#node-legend .node-kind', (els) => els.map((e) => [e.getAttribute('data-kind'), e.textContent, getComputedStyle(e.querySelector('.dot')).backgroundColor]));
  const order = ['Movie', 'Person', 'Character', 'Genre', 'phrase', 'word'];
  assert.deepEqual(legend.map((l) => l[0]), order.filter((k) => kinds.includes(k)));
  const words: Record<string, string> = { Movie: 'film (KG)', Person: 'person (KG)', Character: 'character (KG)', Genre: 'genre (KG)', word: 'other word' };
  const colours: Record<string, string> = { Movie: 'rgb(217, 72, 15)', Person: 'rgb(25, 113, 194)', Character: 'rgb(43, 138, 62)', Genre: 'rgb(156, 54, 181)', word: 'rgb(134, 142, 150)' };
  for (const [kind, text, colour] of legend) {
    assert.equal(text, words[kind!], kind!);
    assert.equal(colour, colours[kind!], `${kind}: the node colour`);
  }
  await page.click('#tabs button[data-view=text]');
});

test('Batch: F1 of the whole file against its gold keywords, and of the records a filter keeps', { skip }, async () => {
  const file = (await loadBatch({ files: [tags], input: SAMPLES, idField: 'id', gold: SAMPLES }))[0];
  const all = goldScores(file.records)!;
  const f = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(3));
  await page.click('#tabs button[data-view=batch]');
  await page.fill('#batch-keyword', '');
  await page.click('#batch-go');
  await page.waitForFunction(() => document.querySelector('#batch-scores [data-scope=file]') && !document.querySelector('#batch-scores [data-scope=matched]'));
  assert.equal(await page.textContent('#batch-scores [data-scope=file]'), `this file: F1@5 ${f(all.macro.f1)} · P ${f(all.macro.p)} · R ${f(all.macro.r)} (macro over ${samples.length} records with gold; micro F1 ${f(all.micro.f1)})`);
  assert.ok(all.macro.f1 > 0 && all.docs === samples.length);
  await page.fill('#batch-keyword', '长津湖');
  await page.click('#batch-go');
  await page.waitForSelector('#batch-scores [data-scope=matched]');
  const kept = goldScores(file.records.filter((r) => r.keywords.some((k) => k.word.includes('长津湖'))))!;
  assert.equal(await page.textContent('#batch-scores [data-scope=matched]'), `the records shown: F1@5 ${f(kept.macro.f1)} · P ${f(kept.macro.p)} · R ${f(kept.macro.r)} (macro over ${kept.docs} record${kept.docs === 1 ? '' : 's'} with gold; micro F1 ${f(kept.micro.f1)})`);
  await page.fill('#batch-keyword', '');
});

test('Batch: a page answer that arrives after a newer filter\'s answer is dropped (the records shown are the filter\'s)', { skip }, async () => {
  const file = (await loadBatch({ files: [tags], input: SAMPLES, idField: 'id', gold: SAMPLES }))[0];
  const kept = file.records.filter((r) => r.keywords.some((k) => k.word.includes('长津湖')));
  assert.ok(kept.length > 0 && kept.length < file.records.length, 'the filter keeps some records, not all');
  await page.click('#tabs button[data-view=batch]');
  await page.fill('#batch-keyword', '');
  const before: number = await page.evaluate(() => window.filmkw.batchAnswers);
  // hold the first page request (no filter); let every later one through
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const held = new Promise<void>((r) => (arrived = r));
  let first = true;
  const isBatch = (url: URL) => url.pathname.startsWith('/api/batch/');
  const handler = async (route: Route) => {
    if (first) {
      first = false;
      arrived();
      await gate;
    }
    await route.continue();
  };
  await page.route(isBatch, handler);
  try {
    await page.click('#batch-go');
    await held;
    await page.fill('#batch-keyword', '长津湖');
    await page.click('#batch-go');
    await page.waitForFunction((n) => window.filmkw.batchAnswers === n, before + 1);
    const filtered = `${kept.length} of ${file.records.length} record(s), 1–${kept.length} shown`;
    assert.equal(await page.textContent('#batch-count'), filtered);
    const rows = await page.$$eval('#batch-records tr td:first-child', (els) => els.map((e) => e.textContent));
    assert.deepEqual(rows, kept.map((r) => r.id));
    release();
    await page.waitForFunction((n) => window.filmkw.batchAnswers === n, before + 2);
    assert.equal(await page.textContent('#batch-count'), filtered, 'the older, unfiltered answer is not shown');
    assert.deepEqual(await page.$$eval('#batch-records tr td:first-child', (els) => els.map((e) => e.textContent)), rows);
    assert.ok(await page.isVisible('#batch-scores [data-scope=matched]'), 'the scores are the filter\'s too');
  } finally {
    release();
    await page.unroute(isBatch, handler);
    await page.fill('#batch-keyword', '');
  }
});

test('KG: entities of the same name, each with the line that tells it apart (films, directors, Douban ids)', { skip }, async () => {
  const other = await openViewer(browser, homonyms.url, pageErrors);
  try {
    await other.click('#tabs button[data-view=kg]');
    await other.fill('#kg-query', '英雄');
    await other.click('#kg-form button');
    await other.waitForFunction(() => document.querySelectorAll('#kg-results li .about').length === 2 && document.querySelector('#entity-card .about'));
    assert.deepEqual(await other.$$eval('#kg-results li .about', (els) => els.map((e) => e.textContent)), [
      'film · directed by 张艺谋 · with 李连杰 · Douban subject 1306123',
      'film · directed by 吴宇森 · with 王伟 · Douban subject 3001',
    ]);
    await other.click('#kg-results li[data-id="movie/douban/3001"]');
    await other.waitForFunction(() => document.querySelector('#entity-card .muted')?.textContent === 'movie/douban/3001');
    assert.equal(await other.textContent('#entity-card .about'), 'film · directed by 吴宇森 · with 王伟 · Douban subject 3001');
    assert.match((await other.textContent('#entity-card')) ?? '', /导演 directed by/u, 'relations read in words from the entity shown');
    await other.fill('#kg-query', '王伟');
    await other.click('#kg-form button');
    await other.waitForFunction(() => document.querySelectorAll('#kg-results li .about').length === 2 && /^person/u.test(document.querySelector('#kg-results li .about').textContent));
    assert.deepEqual(await other.$$eval('#kg-results li .about', (els) => els.map((e) => e.textContent)), ['person · directed 白夜追凶 · Douban celebrity 2001', 'person · acted in 天龙八部, 英雄 · Douban celebrity 2002']);
  } finally {
    await other.close();
  }
});

test('the viewer\'s chromium reaches only 127.0.0.1 (the network block of src/html/render.ts kept for every other host)', { skip }, async () => {
  const other = await browser.newPage();
  try {
    const ok = await other.goto(server.url);
    assert.equal(ok?.status(), 200, 'the viewer on 127.0.0.1');
    const url = new URL(server.url);
    await assert.rejects(other.goto(`http://localhost:${url.port}/`), /ERR_NAME_NOT_RESOLVED/u, 'the same server under a host name is not reached');
  } finally {
    await other.close();
  }
});
