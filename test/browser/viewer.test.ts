// The viewer in a real browser: Debian chromium through playwright-core (never a downloaded browser),
// one browser for the whole file, against a real listening server with the demo KG and a batch file.
// Loads the page, tags texts, checks the highlighted keywords against `filmkw tag` (the real CLI),
// checks that a review with <script> and <img onerror> stays text, opens the graph (clicks a node on
// the canvas), KG, compare and batch views, and shows a bad request's error in the page. Screenshots
// go to a temp folder printed as a test diagnostic. Skips only where /usr/bin/chromium is absent (and
// FILMKW_REQUIRE_CHROMIUM is not 1).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from '../../src/html/records.js';
import { VIEWER_CHROMIUM_ARGS } from '../../src/serve/browser.js';
import { loadKg } from '../../src/kg/load.js';
import { loadBatch } from '../../src/serve/batch.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { hasChromium, openViewer, SAMPLES, samples, skip, tagSamples } from './viewer-fixture.js';
import { FEATURE_GLOSSARY, TERM_GLOSSARY } from '../../src/pipeline/glossary.js';

// The callbacks given to page.evaluate run in the page; the project compiles without the DOM library.
declare const window: any;
declare const document: any;
declare const requestAnimationFrame: (cb: () => void) => number;
type HTMLElement = { dataset: Record<string, string>; childNodes: Iterable<{ nodeName: string; textContent: string | null }> };

let browser: Browser;
let server: RunningServer;
let page: Page;
let dir: string;
let shots: string;
const pageErrors: string[] = [];

before(async () => {
  if (!hasChromium) return;
  dir = mkdtempSync(join(tmpdir(), 'filmkw-serve-browser-'));
  shots = mkdtempSync(join(tmpdir(), 'filmkw-serve-screenshots-'));
  const tags = await tagSamples(dir);
  server = await startServer({ kg: await loadKg(), kgLabel: 'demo KG', batch: await loadBatch({ files: [tags], input: SAMPLES, idField: 'id', gold: SAMPLES }), port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...VIEWER_CHROMIUM_ARGS] });
  page = await openViewer(browser, server.url, pageErrors);
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Type a text, press Tag, wait for the drawn result. */
async function tagInPage(text: string, topK = 5): Promise<void> {
  await page.evaluate(() => delete (window as any).filmkw.lastTag);
  await page.fill('#text', text);
  await page.fill('#topk', String(topK));
  await page.click('#run');
  await page.waitForFunction(() => (window as any).filmkw.lastTag !== undefined || !document.getElementById('error')!.hidden);
}

/** The keywords highlighted in the text, in rank order (each rank once). */
async function highlighted(): Promise<string[]> {
  return page.evaluate(() => {
    const byRank = new Map<number, string>();
    for (const el of document.querySelectorAll("#doc [data-rank]") as HTMLElement[]) {
      const r = Number(el.dataset.rank);
      const own = [...el.childNodes].filter((n) => n.nodeName !== 'SUP').map((n) => n.textContent).join('');
      if (!byRank.has(r)) byRank.set(r, own);
    }
    return [...byRank.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  });
}

/** The text of the document view without the rank marks (<sup>). */
function shownText(): Promise<string> {
  // a string, so that no compiler helper (tsx's __name) leaks into the page
  return page.evaluate(`(() => {
    const walk = (n) => (n.nodeName === 'SUP' ? '' : n.nodeType === 3 ? n.textContent : [...n.childNodes].map(walk).join(''));
    return walk(document.getElementById('doc'));
  })()`);
}

test('Text view: the highlighted keywords are filmkw tag’s, in rank order', { skip }, async () => {
  const texts = [samples[0].text, samples[4].text, samples.map((s) => s.text).join('')];
  const cli = spawnSync(process.execPath, ['bin/filmkw', 'tag', '-', '--format', 'txt', '--top', '8'], { input: texts.join('\n') + '\n', encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  const expected = cli.stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l).keywords as { word: string }[]).map((k) => k.word));
  for (let i = 0; i < texts.length; i++) {
    await tagInPage(texts[i], 8);
    assert.deepEqual(await highlighted(), expected[i], `text ${i}`);
    const listed = await page.$$eval('#keywords li .word', (els) => els.map((e) => e.textContent));
    assert.deepEqual(listed, expected[i]);
    assert.equal(await shownText(), texts[i], 'the text is shown whole (rank marks aside)');
  }
  // hovering a keyword shows its explain parts
  await tagInPage(samples[0].text);
  await page.hover('#doc [data-rank="1"]');
  const tip = await page.textContent('#tip');
  assert.match(tip ?? '', /co-occurrence .* KG .* semantic/u);
  assert.match(tip ?? '', new RegExp(expected[0][0], 'u'));
  // the default preset (filmkw-rerank): the score is the re-ranker's σ(logit), with its largest feature contributions
  const cliExplain = spawnSync(process.execPath, ['bin/filmkw', 'tag', '-', '--format', 'txt', '--top', '1', '--explain'], { input: `${samples[0].text}\n`, encoding: 'utf8' });
  const top = JSON.parse(cliExplain.stdout).keywords[0] as { score: number; explain: { rerank: { logit: number; features: { feature: string }[] } } };
  assert.match(tip ?? '', /= σ\(logit [-\d.]+\) · graph score [\d.]+ × IDF [\d.]+/u);
  assert.match(tip ?? '', /logit = bias [-\d.e]+ \+ Σ contributions/u);
  assert.equal(await page.$$eval('#tip table.rerank tr', (rows) => rows.length), 1 + Math.min(6, top.explain.rerank.features.length));
  for (const f of top.explain.rerank.features.slice(0, 6)) assert.ok(tip!.includes(f.feature), f.feature);
  await page.screenshot({ path: join(shots, 'text.png') });
});

test('Text view: explanations in plain words (the why sentence of tag --explain, glossary tooltips, the glossary panel)', { skip }, async () => {
  await page.click('#tabs button[data-view=text]');
  await tagInPage(samples[1].text);
  const cli = spawnSync(process.execPath, ['bin/filmkw', 'tag', '-', '--format', 'txt', '--top', '5', '--explain'], { input: `${samples[1].text}\n`, encoding: 'utf8' });
  const keywords = JSON.parse(cli.stdout).keywords as { word: string; explain: { why: string; rerank: { features: { feature: string }[] } } }[];
  await page.hover('#keywords li[data-rank="2"]');
  await page.waitForFunction((w) => document.querySelector('#explain b')?.textContent === `2. ${w}`, keywords[1].word);
  assert.equal(await page.textContent('#explain .why'), keywords[1].explain.why);
  assert.match(keywords[1].explain.why, /^ranked second: /u);
  const titles = await page.$$eval('#explain table.rerank [data-feature]', (els) => els.map((e) => [e.getAttribute('data-feature'), e.getAttribute('title')]));
  assert.equal(titles.length, Math.min(6, keywords[1].explain.rerank.features.length));
  for (const [feature, title] of titles) assert.equal(title, FEATURE_GLOSSARY[feature as keyof typeof FEATURE_GLOSSARY].means, feature!);
  for (const key of ['score', 'sigmoid', 'logit', 'bias', 'cooc', 'kg', 'sem', 'rank', 'idf']) {
    assert.equal(await page.getAttribute(`#explain [data-term="${key}"]`, 'title'), TERM_GLOSSARY[key].means, key);
  }
  await page.click('#glossary summary');
  const listed = await page.$$eval('#glossary-list dt', (els) => els.map((e) => e.textContent));
  assert.deepEqual(listed, [...Object.values(TERM_GLOSSARY).map((t) => t.label), ...Object.keys(FEATURE_GLOSSARY)]);
  await page.click('#glossary summary');
});

test('Text view: a review with <script> and <img onerror> is shown as text', { skip }, async () => {
  const evil = '《长津湖》<script>window.__pwned = 1; alert("x")</script>很好看，<img src=x onerror="window.__pwned = 2">伍万里<b>吴京</b>';
  await tagInPage(evil);
  assert.equal(await page.$$eval('#doc img, #doc script, #doc b, #keywords img', (els) => els.length), 0);
  assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
  assert.equal(await shownText(), evil);
  // a frame later: anything the page would run (or throw) has run
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
  assert.deepEqual(pageErrors, []);
});

test('Word graph view: drawn with the three edge kinds; clicking a node lists its neighbours', { skip }, async () => {
  await tagInPage(samples[0].text);
  await page.click('#tabs button[data-view=graph]');
  await page.waitForFunction(() => (window as any).filmkw.lastGraphMs !== undefined && document.querySelector('#sigma canvas'));
  const result = await page.evaluate(() => (window as any).filmkw.result);
  const top = result.keywords[0].word as string;
  const at = await page.evaluate((w) => (window as any).filmkw.nodePosition(w), top);
  assert.ok(at, 'the top keyword is drawn');
  await page.mouse.click(at.x, at.y);
  await page.waitForSelector('#node-info h2');
  assert.match((await page.textContent('#node-info h2')) ?? '', new RegExp(top, 'u'));
  const rows = await page.$$eval('#node-info table tr', (trs) => trs.length - 1);
  const degree = result.edges.filter((e: { source: number; target: number }) => result.nodes[e.source].word === top || result.nodes[e.target].word === top).length;
  assert.equal(rows, degree);
  assert.ok(result.edges.some((e: { kinds: string[] }) => e.kinds.includes('kg')), 'KG edges in the full model');
  await page.screenshot({ path: join(shots, 'graph.png') });
  // drag the node: it follows the mouse (sigma starts the drag at the first move, so up to one step behind)
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  for (let k = 1; k <= 5; k++) await page.mouse.move(at.x + 12 * k, at.y + 8 * k);
  await page.mouse.up();
  const moved = await page.evaluate((w) => (window as any).filmkw.nodePosition(w), top);
  assert.ok(moved.x - at.x >= 46 && moved.x - at.x <= 62 && moved.y - at.y >= 30 && moved.y - at.y <= 42, `dragged to ${JSON.stringify(moved)} from ${JSON.stringify(at)}`);
  // zoom with the wheel: the node moves away from the pointer
  const pointer = { x: moved.x - 80, y: moved.y - 60 };
  await page.mouse.move(pointer.x, pointer.y);
  await page.mouse.wheel(0, -300);
  // the camera animates: wait until the node has moved away from the pointer (a state, not a time)
  const before = Math.hypot(moved.x - pointer.x, moved.y - pointer.y);
  await page.waitForFunction(
    ([w, px, py, d]) => {
      const p = (window as any).filmkw.nodePosition(w);
      return p !== null && Math.hypot(p.x - px, p.y - py) > d * 1.2;
    },
    [top, pointer.x, pointer.y, before] as const,
  );
  // hiding co-occurrence edges keeps the page working
  await page.uncheck('.edge-kinds input[data-kind=cooc]');
  assert.deepEqual(pageErrors, []);
  await page.check('.edge-kinds input[data-kind=cooc]');
});

test('KG view: jump from a keyword to its entity, search by name, open a neighbour', { skip }, async () => {
  await page.click('#tabs button[data-view=text]');
  await tagInPage(samples[0].text);
  const first = await page.evaluate(() => (window as any).filmkw.result.keywords.find((k: { entityId?: string }) => k.entityId));
  await page.click(`#keywords li[data-rank="${first.rank}"] button`);
  await page.waitForSelector('#entity-card');
  assert.match((await page.textContent('#entity-card .title')) ?? '', new RegExp(first.word, 'u'));
  await page.fill('#kg-query', '吴京');
  await page.click('#kg-form button');
  await page.waitForFunction(() => document.querySelector('#entity-card .muted')?.textContent === 'person/name/吴京');
  assert.match((await page.textContent('#entity-card')) ?? '', /主演 acted in/u);
  await page.click('#entity-card .nb[data-id="movie/name/长津湖"]');
  await page.waitForFunction(() => document.querySelector('#entity-card .muted')?.textContent === 'movie/name/长津湖');
  await page.screenshot({ path: join(shots, 'kg.png') });
});

test('Compare view: presets side by side with gold hits, and the ladder', { skip }, async () => {
  await page.click('#tabs button[data-view=text]');
  await page.selectOption('#sample', 'sample-01');
  await page.waitForFunction(() => (window as any).filmkw.lastTag !== undefined);
  await page.click('#tabs button[data-view=compare]');
  await page.selectOption('#preset-a', 'textrank');
  await page.selectOption('#preset-b', 'textrank+w+g+r');
  await page.click('#compare');
  await page.waitForFunction(() => document.querySelectorAll('#compare-out .card').length === 2);
  const heads = await page.$$eval('#compare-out .card h2', (els) => els.map((e) => e.textContent));
  assert.deepEqual(heads, ['textrank', 'textrank+w+g+r']);
  const hits = await page.$$eval('#compare-out .card:nth-child(2) .hit', (els) => els.map((e) => e.textContent));
  assert.ok(hits.length >= 1 && hits.every((w) => samples[0].tag.includes(w!)));
  assert.ok((await page.$$('#compare-out .only')).length >= 1, 'differences marked');
  // the paper's ladder in four columns
  await page.click('#ladder');
  await page.waitForFunction(() => document.querySelectorAll('#compare-out .card').length === 4);
  assert.deepEqual(await page.$$eval('#compare-out .card h2', (els) => els.map((e) => e.textContent)), ['textrank', 'textrank+w', 'textrank+w+g', 'textrank+w+g+r']);
  await page.screenshot({ path: join(shots, 'compare.png') });
});

test('Batch view: records, filter by a frequent keyword, open a record in the Text view', { skip }, async () => {
  await page.click('#tabs button[data-view=batch]');
  await page.waitForFunction(() => document.querySelectorAll('#batch-records tr').length > 1);
  assert.equal(await page.$$eval('#batch-records tr', (t) => t.length - 1), samples.length);
  await page.fill('#batch-keyword', '长津湖');
  await page.click('#batch-go');
  await page.waitForFunction(() => /of 12 record/u.test(document.getElementById('batch-count')!.textContent ?? '') && document.querySelectorAll('#batch-records tr').length - 1 < 12);
  const ids = await page.$$eval('#batch-records tr td:first-child', (tds) => tds.map((t) => t.textContent));
  assert.ok(ids.includes('sample-01'));
  await page.screenshot({ path: join(shots, 'batch.png') });
  await page.evaluate(() => delete (window as any).filmkw.lastTag);
  await page.click('#batch-records tr:nth-child(2) button');
  await page.waitForFunction(() => (window as any).filmkw.lastTag !== undefined);
  assert.equal(await page.inputValue('#text'), samples[0].text);
});

test('Film picker: typing a title offers the KG\'s films by id; the tag uses the film and says how the KG read it; a sample fills the title', { skip }, async () => {
  await page.click('#tabs button[data-view=text]');
  await page.fill('#film', '长津');
  await page.waitForFunction(() => document.querySelectorAll('#film-list option').length > 0);
  const offered = await page.$$eval('#film-list option', (els) => els.map((e) => [(e as any).value, e.textContent]));
  assert.ok(offered.some(([value]) => value === 'movie/name/长津湖'), JSON.stringify(offered));
  assert.ok(offered.every(([value]) => String(value).startsWith('movie/')), 'films only');
  await page.fill('#film', 'movie/name/长津湖');
  await page.fill('#doc-title', '长津湖观后感');
  await tagInPage(samples[0].text);
  assert.match(await page.textContent('#status') ?? '', /film 长津湖 \(movie\/name\/长津湖\)/u);
  const sent = await page.evaluate(() => (window as any).filmkw.result.film);
  assert.deepEqual(sent, { value: 'movie/name/长津湖', id: 'movie/name/长津湖', name: '长津湖' });
  await page.fill('#film', '没有这部电影');
  await tagInPage(samples[0].text);
  assert.match(await page.textContent('#status') ?? '', /film "没有这部电影" not in the KG: tagged without it/u);
  await page.fill('#film', '');
  await page.selectOption('#sample', 'sample-01');
  await page.waitForFunction(() => (document.getElementById('doc-title') as any).value !== '长津湖观后感');
  assert.equal(await page.inputValue('#doc-title'), '透过伍万里的眼睛看长津湖');
});

test('errors are shown in the page, naming the field', { skip }, async (t) => {
  await page.click('#tabs button[data-view=text]');
  await tagInPage(samples[0].text, 0);
  assert.equal(await page.isVisible('#error'), true);
  assert.match((await page.textContent('#error')) ?? '', /topK/u);
  assert.equal(await page.getAttribute('#topk', 'class'), 'invalid');
  await page.fill('#options', 'graph.window=wide');
  await tagInPage(samples[0].text, 5);
  assert.match((await page.textContent('#error')) ?? '', /^options: bad value for graph\.window: "wide"/u, 'the field named once (was "options: options: overrides: …")');
  // the placeholder's example is a valid override (was prior.idf=none, refused)
  const example = (await page.getAttribute('#options', 'placeholder'))!;
  assert.equal(example, 'graph.window=3, prior.idf=off');
  await page.fill('#options', example);
  await tagInPage(samples[0].text, 5);
  assert.equal(await page.isVisible('#error'), false, (await page.textContent('#error')) ?? '');
  await page.fill('#options', '');
  await tagInPage(samples[0].text, 5);
  assert.equal(await page.isVisible('#error'), false);
  assert.deepEqual(pageErrors, []);
  t.diagnostic(`screenshots: ${shots}`);
});
