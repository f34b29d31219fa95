/**
 * Replay server (src/crawl/replay.ts) on 127.0.0.1: dispatch on Host + path, per-host robots.txt
 * (manifest or allow-all), redirects, 404/500, slow pages, latency (per request, per host, slow hosts) and
 * the in-flight statistics, manifest errors naming file:line:field, and `filmkw replay` through
 * bin/filmkw (run `npm run build` first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { latencyOf, parseLatency, startReplay } from '../../src/crawl/replay.js';
import { readManifest } from '../../src/crawl/manifest.js';
import { FilmkwError } from '../../src/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** GET `path` from the server with a Host header; resolves status, headers and body text. */
export function get(port: number, host: string, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

function site(): string {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-replay-'));
  writeFileSync(join(d, 'a.html'), '<html><body>page a of site one</body></html>');
  writeFileSync(join(d, 'b.html'), '<html><body>page b of site two</body></html>');
  writeFileSync(join(d, 'robots-one.txt'), 'User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n');
  writeFileSync(
    join(d, 'manifest.tsv'),
    [
      'url\tfile\tlabel',
      'https://one.example/a?utm_source=x\ta.html\treal',
      'http://two.example/a\tb.html\tgenerated',
      'https://one.example/robots.txt\trobots-one.txt\treal',
      'https://one.example/old\tredirect:/a\treal',
      'https://one.example/broken\tstatus:500\treal',
      'https://slow.example/\tslow:300:a.html\tgenerated',
      '',
    ].join('\n'),
  );
  return d;
}

test('replay: same path on two hosts gives two pages; tracking parameters normalised away; 404 elsewhere', async () => {
  const d = site();
  const s = await startReplay([join(d, 'manifest.tsv')]);
  try {
    assert.equal(s.entries, 6);
    assert.equal(s.hosts, 3);
    const a = await get(s.port, 'one.example', '/a');
    assert.equal(a.status, 200);
    assert.match(a.body, /site one/);
    assert.equal(a.headers['content-type'], 'text/html');
    const b = await get(s.port, 'two.example', '/a');
    assert.match(b.body, /site two/);
    const missing = await get(s.port, 'two.example', '/nothing');
    assert.equal(missing.status, 404);
    const other = await get(s.port, 'three.example', '/a');
    assert.equal(other.status, 404);
    assert.equal(s.stats.hits.get('one.example/a'), 1);
  } finally {
    await s.close();
  }
});

test('replay: robots.txt per host, allow-all default; redirect, 500 and slow page as listed', async () => {
  const d = site();
  const s = await startReplay([join(d, 'manifest.tsv')]);
  try {
    const r1 = await get(s.port, 'one.example', '/robots.txt');
    assert.match(r1.body, /Disallow: \/private\//);
    assert.equal(r1.headers['content-type'], 'text/plain');
    const r2 = await get(s.port, 'two.example', '/robots.txt');
    assert.equal(r2.body, 'User-agent: *\nAllow: /\n');
    const red = await get(s.port, 'one.example', '/old');
    assert.equal(red.status, 301);
    assert.equal(red.headers.location, '/a');
    assert.equal((await get(s.port, 'one.example', '/broken')).status, 500);
    const slow = await get(s.port, 'slow.example', '/');
    assert.equal(slow.status, 200);
    assert.ok(slow.ms >= 250, `slow page answered in ${slow.ms} ms`);
  } finally {
    await s.close();
  }
});

test('replay manifest: bad header, short line, bad URL and duplicate URL are errors naming file:line and field', async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-replay-bad-'));
  const m = (name: string, body: string) => {
    writeFileSync(join(d, name), body);
    return join(d, name);
  };
  const bad = (p: string, re: RegExp) =>
    assert.throws(() => readManifest(p), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && re.test(e.message));
  bad(m('h.tsv', 'link\tfile\tlabel\n'), /h\.tsv:1: expected the header/);
  bad(m('s.tsv', 'url\tfile\tlabel\nhttps://a.example/\ta.html\n'), /s\.tsv:2: expected 3 or 4 tab-separated fields/);
  bad(m('u.tsv', 'url\tfile\tlabel\nftp://a.example/x\ta.html\treal\n'), /u\.tsv:2: field url: scheme ftp is not http\(s\)/);
  bad(m('st.tsv', 'url\tfile\tlabel\nhttps://a.example/x\tstatus:abc\treal\n'), /st\.tsv:2: field file: expected status/);
  m('d.tsv', 'url\tfile\tlabel\nhttps://a.example/x\ta.html\treal\nhttps://a.example/x#frag\tb.html\treal\n');
  await assert.rejects(startReplay([join(d, 'd.tsv')]), /d\.tsv:3: URL https:\/\/a\.example\/x is already listed at .*d\.tsv:2/);
});

test('filmkw replay --port 0 prints the port, serves, and stops cleanly on SIGTERM', async () => {
  const d = site();
  const child = spawn(process.execPath, ['bin/filmkw', 'replay', join(d, 'manifest.tsv'), '--port', '0'], { cwd: root });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+) \(6 URLs on 3 hosts\)/u.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`replay exited early: ${out}${err}`)));
  });
  const a = await get(port, 'one.example', '/a');
  assert.match(a.body, /site one/);
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', (c) => resolve(c));
    child.kill('SIGTERM');
  });
  assert.equal(code, 0, err);
  assert.match(err, /replay: stopped after 1 request/);
});

test('filmkw replay: bad port is a usage error, missing manifest an input error, one line each', async () => {
  const runQuiet = (args: string[]) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const c = spawn(process.execPath, ['bin/filmkw', 'replay', ...args], { cwd: root });
      let err = '';
      c.stderr.on('data', (b: Buffer) => (err += b.toString()));
      c.once('exit', (code) => resolve({ code, err }));
    });
  const p = await runQuiet(['x.tsv', '--port', 'http']);
  assert.equal(p.code, 2);
  assert.match(p.err, /^filmkw: replay: --port must be an integer/u);
  const m = await runQuiet(['/nonexistent/manifest.tsv']);
  assert.equal(m.code, 3);
  assert.equal(m.err, 'filmkw: replay: /nonexistent/manifest.tsv: no such file\n');
});

test('replay latency: ms or min-max, drawn from a hash (the same every run), per request or per host; slow hosts; counted from the server side', async () => {
  assert.deepEqual(parseLatency('150'), { minMs: 150, maxMs: 150 });
  assert.deepEqual(parseLatency('100-300'), { minMs: 100, maxMs: 300 });
  for (const bad of ['', '300-100', '-5', '1.5', '10-', 'a-b', '10000000']) assert.equal(parseLatency(bad), null, bad);
  const range = { minMs: 100, maxMs: 300, perHost: false };
  const draws = [...Array(400).keys()].map((i) => latencyOf(range, `h${i % 20}.example`, `h${i % 20}.example/p${i}`, 1));
  assert.ok(draws.every((x) => x >= 100 && x <= 300 && Number.isInteger(x)));
  assert.ok(Math.min(...draws) < 120 && Math.max(...draws) > 280, 'the range is covered');
  assert.equal(latencyOf(range, 'a.example', 'a.example/x', 1), latencyOf(range, 'a.example', 'a.example/x', 1), 'deterministic');
  const perHost = { ...range, perHost: true };
  assert.equal(latencyOf(perHost, 'a.example', 'a.example/x', 1), latencyOf(perHost, 'a.example', 'a.example/y', 7), 'one latency per host');
  const hosts = new Set([...Array(20).keys()].map((i) => latencyOf(perHost, `h${i}.example`, '', 1)));
  assert.ok(hosts.size > 10, 'hosts differ');
  const d = site();
  // answers are held until all three requests are in (so they overlap whatever the machine's load)
  let all!: () => void;
  const three = new Promise<void>((r) => (all = r));
  const s = await startReplay([join(d, 'manifest.tsv')], {
    latency: { minMs: 40, maxMs: 40, perHost: false },
    slowHosts: new Map([['two.example', 60]]),
    log: true,
    beforeAnswer: () => {
      if (s.stats.inFlight >= 3) all();
      return three;
    },
  });
  try {
    await Promise.all([get(s.port, 'one.example', '/a'), get(s.port, 'two.example', '/a'), get(s.port, 'one.example', '/nothing')]);
    assert.equal(s.stats.log!.length, 3);
    // timers never fire much early: each answer waited at least its latency (server clock, lower bound only)
    for (const e of s.stats.log!) assert.ok(e.end! - e.start >= (e.host === 'two.example' ? 100 : 40) - 2, JSON.stringify(e));
    assert.equal(s.stats.maxInFlight, 3, 'the three requests were answered at once');
    assert.equal(s.stats.maxHostInFlight, 2);
    assert.equal(s.stats.inFlight, 0);
  } finally {
    await s.close();
  }
});

test('filmkw replay: bad --latency, --per-host without --latency, bad --slow-host are usage errors', async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const c = spawn(process.execPath, ['bin/filmkw', 'replay', join(site(), 'manifest.tsv'), ...args], { cwd: root });
      let err = '';
      c.stderr.on('data', (b: Buffer) => (err += b.toString()));
      c.once('exit', (code) => resolve({ code, err }));
    });
  for (const [args, msg] of [
    [['--latency', '300-100'], /^filmkw: replay: --latency must be MS or MIN-MAX \(milliseconds, MIN ≤ MAX\), got "300-100"\n$/u],
    [['--per-host'], /^filmkw: replay: --per-host needs --latency\n$/u],
    [['--slow-host', 'a.example:80'], /^filmkw: replay: --slow-host must be HOST=MS, got "a\.example:80"\n$/u],
  ] as const) {
    const r = await run([...args]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, msg);
  }
});
