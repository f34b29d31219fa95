/**
 * Kill -9 and --resume through bin/filmkw (run `npm run build` first), against a replay server on
 * 127.0.0.1: the resumed crawl ends with the same pages (and relevance decisions, DTFL updates
 * included) as an uninterrupted one, no page is requested twice except the one in flight at the kill,
 * the WARC holds one response record per fetched page, and the CLI's progress/summary and errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WARCParser } from 'warcio';
import { filmPage, manyHostWeb, offPage, serveWeb, type WebPage } from '../../crawl/web.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs bin/filmkw without blocking the event loop (the replay server lives in this process). */
function runCli(argv: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, argv, { cwd: root });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    c.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    c.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** 150 film pages in a grid (each links 3 others) and 60 off-topic pages, all reachable from the hub. */
function gridWeb(): WebPage[] {
  const films = [...Array(150).keys()].map((i) => `http://films.example/film/${i}`);
  const offs = [...Array(60).keys()].map((i) => `http://news.example/a/${i}`);
  return [
    { url: 'http://films.example/', body: filmPage('首页', [...films.slice(0, 5), ...offs.slice(0, 5)]) },
    ...films.map((u, i) => ({ url: u, body: filmPage(`影片${i}号作品`, [films[(i * 7 + 1) % 150]!, films[(i * 11 + 2) % 150]!, offs[i % 60]!, films[(i + 5) % 150]!]) })),
    ...offs.map((u, i) => ({ url: u, body: offPage(`新闻${i}`, [offs[(i + 1) % 60]!, films[(i * 13) % 150]!]) })),
  ];
}

// a generous timeout: on a loaded machine a 10 s timeout of one page would change the crawl (legitimately)
const args = (out: string, via: string) => ['bin/filmkw', 'crawl', '--seeds', 'http://films.example/', '--out', out, '--via', via, '--max-pages', '120', '--delay-ms', '8', '--concurrency', '1', '--set', 'updateEvery=20', '--set', 'timeoutMs=120000'];
type Line = { url: string; relevant: boolean; status: number; error?: string };
const index = (out: string): Line[] => readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
async function warcResponses(out: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const r of new WARCParser([readFileSync(join(out, 'crawl.warc.gz'))])) {
    await r.readFully();
    if (r.warcType === 'response') urls.push(r.warcTargetURI ?? '');
  }
  return urls;
}

/** Starts the crawl and kills it (SIGKILL) once index.jsonl has `at` lines; resolves false when it ended first. */
function runAndKill(argv: string[], out: string, at: number): Promise<boolean> {
  const child = spawn(process.execPath, argv, { cwd: root });
  return new Promise<boolean>((resolve) => {
    let killed = false;
    const timer = setInterval(() => {
      const n = existsSync(join(out, 'index.jsonl')) ? readFileSync(join(out, 'index.jsonl'), 'utf8').split('\n').length - 1 : 0;
      if (n >= at) {
        clearInterval(timer);
        killed = child.kill('SIGKILL');
      }
    }, 3);
    child.once('exit', () => {
      clearInterval(timer);
      resolve(killed);
    });
  });
}

test('kill -9 at many points, --resume each time: same pages, order and decisions as an uninterrupted crawl; no completed record fetched again', { timeout: 1_200_000 }, async () => {
  const base = mkdtempSync(join(tmpdir(), 'filmkw-resume-'));
  const a = await serveWeb(gridWeb(), { front: true });
  const outA = join(base, 'a');
  try {
    const r = await runCli(args(outA, a.url));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /crawl: 120 pages, \d+ relevant \(harvest [\d.]+%\), frontier \d+, \d+ errors, \d+ pages\/s; [\d.]+ s, stopped by budget; \d+ saved/);
  } finally {
    await a.close();
  }
  const b = await serveWeb(gridWeb(), { front: true });
  const outB = join(base, 'b');
  try {
    // kills early, in the middle, near the budget (during the last fetches, the final save decisions
    // and the index rewrite); each kill may leave one request in flight: its intent is the journal's last line
    const inFlight = new Set<string>();
    let kills = 0;
    let resumed = false;
    for (const at of [5, 20, 36, 52, 70, 88, 104, 118, 120]) {
      const killed = await runAndKill(resumed ? [...args(outB, b.url), '--resume'] : args(outB, b.url), outB, at);
      resumed = true;
      if (!killed) break;
      kills++;
      const journal = readFileSync(join(outB, '.state', 'journal.jsonl'), 'utf8').split('\n').filter(Boolean);
      const last = journal.length ? (JSON.parse(journal[journal.length - 1]!) as { t: string; url: string }) : undefined;
      if (last?.t === 'intent') inFlight.add(last.url);
      if (kills === 1) {
        const again = await runCli(args(outB, b.url));
        assert.equal(again.status, 2);
        assert.match(again.stderr, /already holds a crawl; pass --resume/);
      }
    }
    assert.ok(kills >= 6, `killed ${kills} times`);
    const r = await runCli([...args(outB, b.url), '--resume']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /\d+ replayed from the journal/);
    const la = index(outA);
    const lb = index(outB);
    const failed = [...la, ...lb].filter((l) => l.error && !/^HTTP 404$/u.test(l.error));
    assert.deepEqual(failed, [], 'no fetch failed in either run (the comparison needs the same web)');
    assert.deepEqual(lb.map((l) => [l.url, l.relevant]), la.map((l) => [l.url, l.relevant]), 'same pages, same order, same decisions');
    assert.equal(readFileSync(join(outB, 'index.jsonl'), 'utf8').replace(/"time":"[^"]*"/gu, ''), readFileSync(join(outA, 'index.jsonl'), 'utf8').replace(/"time":"[^"]*"/gu, ''));
    const twice = [...b.stats.hits].filter(([k, n]) => n > 1 && !k.endsWith('/robots.txt'));
    assert.ok(twice.every(([, n]) => n === 2), `requested more than twice: ${JSON.stringify(twice)}`);
    assert.ok(twice.length <= kills, `${twice.length} pages requested twice after ${kills} kills`);
    for (const [k] of twice) assert.ok([...inFlight].some((u) => k.endsWith(u.replace(/^https?:\/\//u, ''))), `${k} was requested twice but was not in flight at a kill (${[...inFlight].join(' ')})`);
    assert.deepEqual(await warcResponses(outB), await warcResponses(outA));
    const texts = (o: string) => readFileSync(join(o, 'texts.jsonl'), 'utf8');
    assert.equal(texts(outB), texts(outA));
    const pages = (o: string) => (readdirSync(join(o, 'pages'), { recursive: true }) as string[]).sort();
    assert.deepEqual(pages(outB), pages(outA));
    assert.deepEqual(readdirSync(join(outB, '.state', 'pending')), []);
  } finally {
    await b.close();
  }
});

test('kill -9 at many points at concurrency 8, --resume each time (the last at concurrency 1): no completed page fetched twice, nothing lost, one WARC record per fetched page, texts and pages match the saves', { timeout: 1_200_000 }, async () => {
  const base = mkdtempSync(join(tmpdir(), 'filmkw-resume-cc-'));
  // latency keeps several requests in flight (the kills land with up to 8 open); the front server as above
  const s = await serveWeb(manyHostWeb(16, 12, 4), { front: true, replay: { latency: { minMs: 10, maxMs: 40, perHost: false } } });
  const out = join(base, 'c');
  const argv = ['bin/filmkw', 'crawl', '--seeds', 'http://h0.example/', 'http://h5.example/', 'http://h10.example/', '--out', out, '--via', s.url, '--max-pages', '150', '--concurrency', '8', '--set', 'updateEvery=10', '--set', 'timeoutMs=120000'];
  try {
    const inFlight = new Set<string>();
    let kills = 0;
    let resumed = false;
    for (const at of [3, 15, 30, 48, 66, 85, 104, 122, 140, 149]) {
      const killed = await runAndKill(resumed ? [...argv, '--resume'] : argv, out, at);
      resumed = true;
      if (!killed) break;
      kills++;
      // requests taken and not finished at the kill: an intent line without its fetch line
      const open = new Set<string>();
      for (const l of readFileSync(join(out, '.state', 'journal.jsonl'), 'utf8').split('\n')) {
        let e: { t: string; url: string };
        try {
          e = JSON.parse(l) as { t: string; url: string };
        } catch {
          continue;
        }
        if (e.t === 'intent') open.add(e.url);
        if (e.t === 'fetch') open.delete(e.url);
      }
      for (const u of open) inFlight.add(u);
    }
    assert.ok(kills >= 7, `killed ${kills} times`);
    // the last resume at concurrency 1: the journal replays the same at any concurrency
    const r = await runCli([...argv.map((x) => (x === '8' ? '1' : x)), '--resume']);
    assert.equal(r.status, 0, r.stderr);
    const lines = index(out);
    assert.equal(lines.length, 150, 'the budget, no line lost or doubled');
    assert.equal(new Set(lines.map((l) => l.url)).size, 150);
    assert.deepEqual(lines.filter((l) => l.error && !/^HTTP 404$/u.test(l.error)), []);
    const twice = [...s.stats.hits].filter(([k, n]) => n > 1 && !k.endsWith('/robots.txt'));
    assert.ok(twice.every(([, n]) => n === 2), `requested more than twice: ${JSON.stringify(twice)}`);
    for (const [k] of twice) assert.ok([...inFlight].some((u) => u.replace(/^https?:\/\//u, '') === k), `${k} was requested twice but was not in flight at a kill`);
    const fetchedOnce = lines.filter((l) => l.status === 200).map((l) => l.url).sort();
    assert.deepEqual((await warcResponses(out)).sort(), fetchedOnce, 'one WARC response record per fetched page');
    const saved = lines.filter((l) => l.relevant).map((l) => l.url).sort();
    const texts = readFileSync(join(out, 'texts.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    assert.deepEqual([...texts].sort(), saved, 'one text per saved page');
    assert.equal((readdirSync(join(out, 'pages'), { recursive: true }) as string[]).filter((f) => f.endsWith('.html')).length, saved.length);
    assert.deepEqual(readdirSync(join(out, '.state', 'pending')), []);
    const idx = await runCli([join('node_modules', 'warcio', 'dist', 'cli.js'), 'index', join(out, 'crawl.warc.gz')]);
    assert.equal(idx.status, 0, idx.stderr);
    assert.equal(idx.stdout.trim().split('\n').length, fetchedOnce.length + 1 + lines.filter((l) => l.status !== 200 && l.status > 0).length, 'warcio index reads every record');
  } finally {
    await s.close();
  }
});

test('filmkw crawl: usage errors are one line with exit 2; progress line on a terminal; the output feeds `filmkw html text` and `filmkw tag`', async (t) => {
  const run = (...a: string[]) => runCli(['bin/filmkw', ...a]);
  const help = await run('crawl', '--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout.replace(/\s+/gu, ' '), /--mode <mode> focused \(default\) \| bfs \| static \| one-step \| best-first \| shark/u, 'all six modes');
  assert.match(help.stdout, /--concurrency <n>/u);
  assert.match(help.stdout, /--contact <url\|email>/u);
  let r = await run('crawl', '--out', '/tmp/x');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'filmkw: crawl: --seeds <url…|file> is required\n');
  r = await run('crawl', '--seeds', 'http://a.example/', '--out', '/tmp/x', '--mode', 'dfs');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^filmkw: crawl: --mode must be one of focused, bfs, static, one-step, best-first, shark, got "dfs"\n$/u);
  r = await run('crawl', '--seeds', 'http://a.example/', '--out', '/tmp/x', '--via', 'https://127.0.0.1:1/x');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--via must be http:\/\/HOST:PORT/);
  r = await run('crawl', '--seeds', '/nonexistent/seeds.txt', '--out', '/tmp/x');
  assert.equal(r.status, 3);
  assert.equal(r.stderr, 'filmkw: crawl: seed file /nonexistent/seeds.txt: no such file\n');
  const s = await serveWeb(gridWeb());
  try {
    const out = join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-cli-')), 'c');
    r = await run('crawl', '--seeds', 'http://films.example/', '--out', out, '--via', s.url, '--max-pages', '12', '--json');
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as { fetched: number; relevant: number; saved: number };
    assert.equal(summary.fetched, 12);
    assert.ok(summary.saved > 0);
    const html = await run('html', 'text', out);
    assert.equal(html.status, 0, html.stderr);
    assert.equal(html.stdout.trim().split('\n').length, summary.saved);
    const tag = await run('tag', join(out, 'texts.jsonl'), '--id-field', 'id', '--top', '3');
    assert.equal(tag.status, 0, tag.stderr);
    const tagged = tag.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; keywords: unknown[] });
    assert.equal(tagged.length, summary.saved);
    assert.match(tagged[0]!.id, /^http:\/\/films\.example\//);
    // on a terminal (a pty from util-linux `script`): the progress line, then the summary
    const ttyOut = join(mkdtempSync(join(tmpdir(), 'filmkw-crawl-tty-')), 'c');
    const tty = await runCli(['-e', `require('node:child_process').execFileSync('script', ['-qec', ${JSON.stringify(`${JSON.stringify(process.execPath)} bin/filmkw crawl --seeds http://films.example/ --out ${ttyOut} --via ${s.url} --max-pages 12`)}, '/dev/null'], { stdio: 'inherit' })`]);
    if (/ENOENT/u.test(tty.stderr)) t.diagnostic('no pty: util-linux script is missing; progress line not checked');
    else {
      assert.equal(tty.status, 0, tty.stdout + tty.stderr);
      assert.match(tty.stdout, /\r\x1b\[2Kcrawl: \d+ pages, \d+ relevant \(harvest [\d.]+%\), frontier \d+, \d+ errors, \d+ pages\/s/u);
      assert.match(tty.stdout, /crawl: 12 pages, .*stopped by budget; \d+ saved/u);
    }
    const tagDir = await run('tag', out, '--top', '3');
    assert.equal(tagDir.status, 0, tagDir.stderr);
    assert.equal(tagDir.stdout.trim().split('\n').length, summary.saved);
  } finally {
    await s.close();
  }
});

test('the list pages of a crawl are a `kg import html-list:` source (CLI, a small web with a Douban list page)', { timeout: 600_000 }, async () => {
  const list = readFileSync(join(root, 'test', 'fixtures', 'html', 'records', 'douban-list.html'));
  const subjects = [...new Set([...list.toString('utf8').matchAll(/https:\/\/movie\.douban\.com\/subject\/\d+\//gu)].map((m) => m[0]))];
  assert.equal(subjects.length, 4);
  const s = await serveWeb([
    { url: 'https://movie.douban.com/top250', body: list },
    ...subjects.map((u, i) => ({ url: u, body: filmPage(`影片${i}`, [subjects[(i + 1) % 4]!, 'http://news.example/a/0']) })),
    { url: 'http://news.example/a/0', body: offPage('新闻', []) },
  ]);
  try {
    const dir = mkdtempSync(join(tmpdir(), 'filmkw-crawl-kg-'));
    const out = join(dir, 'c');
    let r = await runCli(['bin/filmkw', 'crawl', '--seeds', 'https://movie.douban.com/top250', '--out', out, '--via', s.url, '--threshold', '0.05', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as { fetched: number; saved: number };
    const lines = index(out);
    assert.equal(summary.fetched, lines.length);
    assert.ok(lines.find((l) => l.url === 'https://movie.douban.com/top250')?.relevant, 'the list page is saved');
    const filmSaved = lines.filter((l) => l.relevant && l.url !== 'https://movie.douban.com/top250').length;
    r = await runCli(['bin/filmkw', 'kg', 'import', '--out', join(dir, 'kg.fkg'), `html-list:${join(out, 'pages')}`]);
    assert.equal(r.status, 0, r.stderr);
    // the list page's four films with their directors and genres; the saved film pages hold no record group
    assert.match(r.stderr, /kg import: \d+ entities \(Movie 4, Person \d+, Character 0, Genre \d+\)/);
    assert.match(r.stderr, new RegExp(`dropped \\(by design / not resolvable\\): ${filmSaved}\\b`));
    r = await runCli(['bin/filmkw', 'kg', 'stats', '--kg', join(dir, 'kg.fkg')]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /Movie\s+4\b/);
  } finally {
    await s.close();
  }
});
