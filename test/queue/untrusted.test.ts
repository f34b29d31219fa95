/**
 * Issue 26 item 3: every job in Redis is untrusted, and so is every result. Against a private
 * redis-server and real `filmkw worker` / `filmkw tag --queue` processes (run `npm run build` first):
 *
 * - planted jobs: a `kg.hash` of `../../victim/precious` (which made the worker delete victim/precious.fkg),
 *   a KG path that is a FIFO (which wedged the pool for ever), a KG URL that serves something else or
 *   announces 3 GB, a URL that stalls, malformed records (which made the worker write `"line":x`): each
 *   fails alone with the reason, the victim file is intact, the worker keeps running, and a legitimate
 *   run submitted afterwards writes the bytes of a local run;
 * - rogue results: a "worker" that returns garbage lines, 1 line for 12 records, 13 lines, no final
 *   newline: the submitter refuses each, tags the chunk again once (a real worker then gives the right
 *   output, written as a local run), and exits 8 naming the chunk when the result is malformed again,
 *   having written nothing of it;
 * - the submitter's own bounds: `--chunk-docs` above 10,000 and `--queue-timeout 0` are refused (exit 2).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { demoSnapshot } from '../batch/demo-kg.js';
import { corpus, filmkw, localTag, noStack, Proc, root, tmp } from './cli.js';
import { PrivateRedis, redisSkipReason } from './redis.js';

const skip = redisSkipReason(true) ?? (existsSync(join(root, 'dist', 'batch', 'queue', 'protocol.js')) ? null : 'run `npm run build` first');
let redis: PrivateRedis;
before(async () => {
  if (!skip) redis = await PrivateRedis.start();
});
after(() => redis?.stop());

const QUEUE = 'filmkw-tag';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The code version of the built worker (dist/), so that a planted job passes that check. */
async function distCode(): Promise<string> {
  const m = (await import(pathToFileURL(join(root, 'dist', 'batch', 'queue', 'protocol.js')).href)) as { codeVersion(): string };
  return m.codeVersion();
}

/** Wait (state, not time) until the job is failed or completed; its reason or result. */
async function settled(q: Queue, id: string): Promise<{ state: string; reason: string; value: unknown }> {
  for (let i = 0; i < 2400; i++) {
    const state = await q.getJobState(id);
    if (state === 'failed' || state === 'completed') {
      const job = (await q.getJob(id)) as Job;
      return { state, reason: job.failedReason ?? '', value: job.returnvalue };
    }
    await sleep(25);
  }
  throw new Error(`job ${id} never settled`);
}

const hex = (c: string) => c.repeat(64);
const RECORDS = [{ line: 1, id: 'a', text: '《长津湖》里易烊千玺扮演的伍万里。' }];

test('planted jobs fail alone with their reason; nothing outside the cache is deleted; the worker keeps running; a real run afterwards is right', { skip: skip ?? false }, async () => {
  const url = `${redis.url}/3`;
  const d = tmp();
  const cache = join(d, 'cache');
  const victim = join(d, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'precious.fkg'), 'my precious data\n');
  const fifo = join(d, 'kg.fifo');
  execFileSync('mkfifo', [fifo]);
  const snapshot = await demoSnapshot();
  const stalled: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${'x'.repeat(1 << 20)}</html>`);
    else if (req.url === '/huge') res.writeHead(200, { 'content-length': String(3 * 2 ** 30) }).write('FKWKG');
    else if (req.url === '/stall') {
      res.writeHead(200).write(readFileSync(snapshot).subarray(0, 100));
      stalled.push(() => res.destroy());
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const w = new Proc(['worker', '--queue', url, '--name', 'w'], undefined, { FILMKW_CACHE_DIR: cache, FILMKW_KG_DOWNLOAD_TIMEOUT_MS: '1500' });
  const conn = new Redis(url, { maxRetriesPerRequest: null });
  const q = new Queue(QUEUE, { connection: conn as never });
  try {
    await w.waitFor(/waiting for chunks/u);
    const code = await distCode();
    const job = (over: Record<string, unknown>) => ({ protocol: 1, code, run: 'abcdefabcdef', chunk: 0, kg: { hash: hex('a'), location: { kind: 'demo' } }, options: { explain: false }, records: RECORDS, ...over });
    const planted: [string, Record<string, unknown>, RegExp][] = [
      ['traversal', job({ kg: { hash: '../../victim/precious', location: { kind: 'url', url: `${base}/x` } } }), /malformed job: kg\.hash: must be 64 lower-case hex digits/u],
      ['fifo', job({ kg: { hash: hex('b'), location: { kind: 'snapshot', path: fifo } } }), /not a regular file \(a FIFO/u],
      ['html', job({ kg: { hash: hex('c'), location: { kind: 'url', url: `${base}/html` } } }), /not a filmkw KG snapshot \(it starts with "<html>x/u],
      ['huge', job({ kg: { hash: hex('d'), location: { kind: 'url', url: `${base}/huge` } } }), /3221225472 bytes, over the 2147483648-byte bound of a snapshot; not downloaded/u],
      ['stall', job({ kg: { hash: hex('e'), location: { kind: 'url', url: `${base}/stall` } } }), /download stopped: not complete after 1500 ms/u],
      ['records', job({ records: [{ line: 'x', id: undefined, text: 'abc' }] }), /malformed job: records\[0\]/u],
      ['relative', job({ kg: { hash: hex('f'), location: { kind: 'snapshot', path: '../victim/precious.fkg' } } }), /malformed job: kg\.location\.path: must be an absolute path/u],
      ['extra', job({ evil: true }), /malformed job: .*evil/u],
      ['options', job({ options: { explain: 'yes' } }), /malformed job: options\.explain/u],
    ];
    for (const [id, data, why] of planted) {
      await q.add('chunk', data, { jobId: `planted-${id}` });
      const r = await settled(q, `planted-${id}`);
      assert.equal(r.state, 'failed', id);
      assert.match(r.reason, why, `${id}: ${r.reason}`);
      assert.equal(w.child.exitCode, null, `${id}: the worker is still running`);
    }
    for (const f of stalled) f();
    assert.equal(readFileSync(join(victim, 'precious.fkg'), 'utf8'), 'my precious data\n', 'the victim file is intact');
    assert.doesNotMatch(planted.map(() => w.stderr).join(''), /precious data/u);
    // a legitimate run now: tagged as locally
    const input = corpus(d, 2);
    const expected = localTag(input, join(d, 'local.jsonl'));
    const out = join(d, 'q.jsonl');
    const tag = new Proc(['tag', input, '--id-field', 'id', '--queue', url, '--chunk-docs', '8', '--out', out]);
    assert.equal(await tag.exited, 0, tag.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    noStack(w.stderr);
  } finally {
    await w.kill('SIGKILL');
    await q.close();
    conn.disconnect();
    server.closeAllConnections();
    server.close();
  }
});

/** A rogue worker: answers each chunk with `lie(records)`, at most `times` chunks, then stops taking any. */
function rogue(url: string, lie: (records: { id?: string; line: number }[]) => string, times: number): { done: Promise<void>; stop: () => Promise<void> } {
  let n = 0;
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const conn = new Redis(url, { maxRetriesPerRequest: null });
  const worker = new Worker(
    QUEUE,
    async (job: Job) => {
      n++;
      if (n >= times) setImmediate(() => void worker.close().then(finish));
      return { lines: lie((job.data as { records: { id?: string; line: number }[] }).records), worker: 'rogue' };
    },
    { connection: conn as never, concurrency: 1 },
  );
  return { done, stop: () => worker.close().finally(() => conn.disconnect()) };
}

const LIES: [string, (records: { id?: string; line: number }[]) => string, RegExp][] = [
  ['garbage', () => 'garbage\nmore garbage\n', /2 output lines for 12 records|not valid JSON/u],
  ['one line for 12 records', (rs) => `{"id":${JSON.stringify(rs[0].id)},"keywords":[]}\n`, /1 output lines for 12 records/u],
  ['13 lines', (rs) => [...rs, rs[0]].map((r) => `{"id":${JSON.stringify(r.id ?? null)},"keywords":[]}\n`).join(''), /13 output lines for 12 records/u],
  ['no final newline', (rs) => rs.map((r) => `{"id":${JSON.stringify(r.id ?? null)},"keywords":[]}`).join('\n'), /does not end with a newline/u],
  ['ids out of order', (rs) => [...rs].reverse().map((r) => `{"id":${JSON.stringify(r.id ?? null)},"keywords":[]}\n`).join(''), /id "d0-11" instead of "d0-0"/u],
];

test('rogue results are refused: the chunk is tagged again once, then exit 8 naming it; nothing malformed is written', { skip: skip ?? false }, async () => {
  const url = `${redis.url}/4`;
  const d = tmp();
  const input = join(d, 'in.jsonl');
  writeFileSync(input, readFileSync(corpus(d, 1), 'utf8').split('\n').slice(0, 12).join('\n') + '\n');
  const expected = localTag(input, join(d, 'local.jsonl'));
  for (const [name, lie, why] of LIES) {
    const r = rogue(url, lie, 2);
    const out = join(d, `${name.replace(/\W+/gu, '-')}.jsonl`);
    const tag = new Proc(['tag', input, '--id-field', 'id', '--queue', url, '--chunk-docs', '12', '--out', out]);
    try {
      assert.equal(await tag.exited, 8, `${name}: ${tag.stderr}`);
      assert.match(tag.stderr, new RegExp(`chunk 0: the result from worker rogue is malformed \\(.*(?:${why.source})`, 'u'), name);
      assert.match(tag.stderr, /chunk 0 \(input lines 1–12\): the result from worker rogue is malformed again .*nothing of it was written/u, name);
      noStack(tag.stderr);
      assert.equal(existsSync(out) ? readFileSync(out, 'utf8') : '', '', `${name}: nothing written`);
    } finally {
      await r.stop();
      await tag.kill('SIGKILL');
    }
  }
  // the re-do: the rogue answers once, then a real worker tags the chunk again
  const r = rogue(url, LIES[0][1], 1);
  const out = join(d, 'redo.jsonl');
  const tag = new Proc(['tag', input, '--id-field', 'id', '--queue', url, '--chunk-docs', '12', '--out', out]);
  let w: Proc | null = null;
  try {
    await r.done;
    w = new Proc(['worker', '--queue', url, '--name', 'honest']);
    assert.equal(await tag.exited, 0, tag.stderr);
    assert.match(tag.stderr, /chunk 0: the result from worker rogue is malformed .*; the chunk is tagged again/u);
    assert.equal(readFileSync(out, 'utf8'), expected);
  } finally {
    await w?.kill('SIGKILL');
    await tag.kill('SIGKILL');
    await r.stop();
  }
});

test('the submitter refuses --chunk-docs over 10,000 and --queue-timeout 0 (exit 2, one line)', { skip: skip ?? false }, () => {
  const d = tmp();
  const input = corpus(d, 1);
  for (const [args, re] of [
    [['--chunk-docs', '10001'], /--chunk-docs must be an integer from 1 to 10000, got 10001/u],
    [['--queue-timeout', '0'], /--queue-timeout must be a whole number of seconds from 1 to 86400 .*got 0/u],
    [['--queue-window', '100000'], /--queue-window must be an integer from 1 to 10000/u],
  ] as const) {
    const r = filmkw(['tag', input, '--queue', `${redis.url}/5`, ...args]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
