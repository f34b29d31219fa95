/**
 * `filmkw tag --queue` against a real Redis with real `filmkw worker` processes: output equal to a local
 * run byte for byte (error records included), results removed from Redis once written, `queue status`,
 * and loud refusals by a worker with another KG or another build.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { demoSnapshot } from '../batch/demo-kg.js';
import { corpus, countJobs, filmkw, flushDb, kgHandler, localTag, noStack, Proc, root, startWorker, tmp } from './cli.js';
import { redisSkipReason, sharedRedis, stopShared } from './redis.js';

const skip = redisSkipReason(false);
let url = '';
before(async () => {
  if (skip) return;
  url = await sharedRedis(1);
  await flushDb(url);
});
after(() => stopShared());

test('tag --queue with two worker processes writes the bytes of a local run, and leaves nothing in Redis', { skip: skip ?? false }, async (t) => {
  const d = tmp();
  const input = corpus(d, 25); // 300 documents + 12 bad records
  const expected = localTag(input, join(d, 'local.jsonl'));
  assert.match(expected, /"error":/u, 'the corpus has error records');
  const workers = [await startWorker(url, ['--name', 'w1']), await startWorker(url, ['--name', 'w2', '--workers', '2'])];
  try {
    const st = filmkw(['queue', 'status', '--queue', url, '--json']);
    assert.equal(st.status, 0, st.stderr);
    assert.deepEqual(JSON.parse(st.stdout).workers.map((w: { name: string }) => w.name).sort(), ['w1', 'w2']);

    const out = join(d, 'queue.jsonl');
    const r = filmkw(['tag', input, '--id-field', 'id', '--queue', url, '--chunk-docs', '16', '--queue-window', '4', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    assert.match(r.stderr, /tag: 312 records \(300 tagged, 12 error records\).*queue run [0-9a-f]{12}: 20 chunks \(20 enqueued\)/u);
    // stdout, the same bytes
    const s = filmkw(['tag', input, '--id-field', 'id', '--queue', url, '--chunk-docs', '50']);
    assert.equal(s.status, 0, s.stderr);
    assert.equal(s.stdout, expected);
    // every result was removed once written
    for (const state of ['wait', 'active', 'completed', 'failed'] as const) assert.equal(await countJobs(url, state), 0, state);
    const text = filmkw(['queue', 'status', '--queue', url]);
    assert.match(text.stdout, /^queue filmkw-tag at redis:\/\/127\.0\.0\.1:\d+\/1: 0 waiting, 0 active, 0 completed \(not yet collected\), 0 failed, 0 delayed\nworkers: 2\n {2}w\d /u);
    // on a terminal (a pty from util-linux `script`): the progress line
    const tty = spawnSync('script', ['-qec', `${JSON.stringify(process.execPath)} bin/filmkw tag ${input} --id-field id --queue ${url} --chunk-docs 8 --out ${join(d, 'tty.jsonl')}`, '/dev/null'], { cwd: root, encoding: 'utf8' });
    if (tty.error) t.diagnostic(`no pty: util-linux script is missing (${tty.error.message}); progress line not checked`);
    else {
      assert.equal(tty.status, 0, tty.stdout);
      assert.match(tty.stdout, /\r\x1b\[Kqueue [0-9a-f]{12}: chunks \d+ queued · \d+ active · \d+ done · \d+ failed \| \d+ records · [\d.]+ docs\/s/u);
      assert.equal(readFileSync(join(d, 'tty.jsonl'), 'utf8'), expected);
    }
    // both workers took chunks
    for (const w of workers) await w.kill();
    for (const w of workers) assert.match(w.stderr, /stopped after [1-9]\d* chunks/u, w.stderr);
  } finally {
    for (const w of workers) await w.kill('SIGKILL');
  }
});

test('tag --queue and worker: bad options and an unreachable Redis are one clear line with a documented exit code', { skip: skip ?? false }, () => {
  const d = tmp();
  const input = corpus(d, 1);
  const cases: [string[], number, RegExp][] = [
    [['tag', input, '--queue', 'http://x'], 2, /--queue must start with redis:\/\/ or rediss:\/\//u],
    [['tag', input, '--queue', 'redis://127.0.0.1:1/x'], 2, /the database must be a number/u],
    [['tag', input, '--queue', url, '--workers', '2'], 2, /^filmkw: tag: --workers cannot be used with --queue \(give it to `filmkw worker`\)\n$/u],
    [['tag', input, '--queue', url, '--kg', join(root, 'kg', 'demo')], 2, /--queue needs the KG as a snapshot file or URL/u],
    [['tag', input, '--queue', url, '--chunk-docs', '0'], 2, /--chunk-docs must be an integer from 1 to 10000/u],
    [['tag', input, '--queue', 'redis://127.0.0.1:1', '--queue-timeout', '1'], 8, /tag: --queue: Redis at redis:\/\/127\.0\.0\.1:1 did not answer for 1 s/u],
    [['worker', '--queue', 'redis:/'], 2, /worker: --queue/u],
    [['worker', '--queue', url, '--stall-timeout', '10'], 2, /--stall-timeout must be an integer from 500/u],
  ];
  for (const [args, code, re] of cases) {
    const r = filmkw(args);
    assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.match(r.stderr, /^filmkw: /mu);
    noStack(r.stderr);
  }
});

test('a worker whose KG has another content hash refuses the chunk loudly; --resume finishes with a right worker', { skip: skip ?? false }, async () => {
  const d = tmp();
  const input = corpus(d, 3);
  const kg = await demoSnapshot();
  const expected = localTag(input, join(d, 'local.jsonl'), ['--kg', kg]);
  // another KG: the demo snapshot with one more film
  const other = join(d, 'other.fkg');
  const mk = filmkw(['kg', 'import', '--out', other, `csv:${join(root, 'kg', 'demo')}`]);
  assert.equal(mk.status, 0, mk.stderr);
  const wrong = await startWorker(url, ['--kg', other, '--name', 'wrong']);
  const out = join(d, 'q.jsonl');
  try {
    const r = filmkw(['tag', input, '--id-field', 'id', '--kg', kg, '--queue', url, '--chunk-docs', '8', '--out', out]);
    if (r.status === 0) assert.fail(`expected a refusal; the KGs may be equal: ${r.stderr}`);
    assert.equal(r.status, 8, r.stderr);
    assert.match(r.stderr, /^filmkw: tag: chunk 0 \(input lines 1–8\) failed on the queue: refused by worker wrong: the KG given with --kg \(.*other\.fkg\) has content hash [0-9a-f]+, the run was submitted with [0-9a-f]+; fix the cause and run the same command with --resume; 0 records are in .*q\.jsonl/mu);
    noStack(r.stderr);
    await wrong.waitFor(/REFUSED chunk [0-9a-f]{12}-0: the KG given with --kg/u);
    // what the failed first run leaves: an empty output, its checkpoint (0 records) and the run file
    assert.equal(readFileSync(out, 'utf8'), '');
    assert.equal((JSON.parse(readFileSync(`${out}.progress.json`, 'utf8')) as { records: number }).records, 0);
    assert.ok(existsSync(`${out}.queue.json`));
  } finally {
    await wrong.kill();
  }
  const right = await startWorker(url, ['--kg', kg]);
  try {
    const r = filmkw(['tag', input, '--id-field', 'id', '--kg', kg, '--queue', url, '--chunk-docs', '8', '--out', out, '--resume']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
  } finally {
    await right.kill();
  }
});

test('a worker running another build refuses the run and stops', { skip: skip ?? false }, async () => {
  const d = tmp();
  const input = corpus(d, 1);
  // a copy of the build with another version number
  const copy = join(d, 'copy');
  mkdirSync(copy);
  cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
  cpSync(join(root, 'bin'), join(copy, 'bin'), { recursive: true });
  for (const x of ['kg', 'dictionaries', 'node_modules']) symlinkSync(join(root, x), join(copy, x));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...pkg, version: `${pkg.version}-other` }));
  const old = await startWorker(url, ['--name', 'old'], join(copy, 'bin', 'filmkw'));
  const tag = new Proc(['tag', input, '--id-field', 'id', '--queue', url, '--out', join(d, 'q.jsonl')]);
  try {
    assert.equal(await tag.exited, 8, tag.stderr);
    assert.match(tag.stderr, /failed on the queue: refused by worker old: code version \S+-other\+[0-9a-f]{16} differs from the submitter's/u);
    assert.equal(await old.exited, 8, old.stderr);
    assert.match(old.stderr, /^filmkw: worker old: stopped: the run was submitted by filmkw \S+ and this worker runs \S+-other/mu);
    noStack(old.stderr);
  } finally {
    await tag.kill('SIGKILL');
    await old.kill('SIGKILL');
    await flushDb(url);
  }
});

test('the KG as an http URL: the submitter and every worker download it and check its content hash', { skip: skip ?? false }, async () => {
  const d = tmp();
  const input = corpus(d, 2);
  const kg = await demoSnapshot();
  const expected = localTag(input, join(d, 'local.jsonl'), ['--kg', kg]);
  let requests = 0;
  const server = createServer(kgHandler(kg, () => requests++));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cache = join(d, 'cache'); // the worker's download cache (FILMKW_CACHE_DIR)
  const w = new Proc(['worker', '--queue', url], undefined, { FILMKW_CACHE_DIR: cache });
  try {
    await w.waitFor(/waiting for chunks/u);
    const out = join(d, 'q.jsonl');
    // child processes run asynchronously here: this process serves the KG
    const r = new Proc(['tag', input, '--id-field', 'id', '--kg', `${base}/kg.fkg`, '--queue', url, '--chunk-docs', '10', '--out', out]);
    assert.equal(await r.exited, 0, r.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    assert.equal(requests, 2, 'one download by the submitter, one by the worker (then cached)');
    const bad = new Proc(['tag', input, '--kg', `${base}/missing.fkg`, '--queue', url]);
    assert.equal(await bad.exited, 3, bad.stderr);
    assert.match(bad.stderr, /^filmkw: tag: KG http:\/\/127\.0\.0\.1:\d+\/missing\.fkg: download failed: HTTP 404\n$/u);
  } finally {
    await w.kill();
    server.close();
  }
});

test('tag --queue never overwrites a file by accident: --resume on a file it did not write, an --out that is the input', { skip: skip ?? false }, () => {
  const d = tmp();
  const input = corpus(d, 1);
  const mine = join(d, 'mine.jsonl');
  writeFileSync(mine, 'my own notes\n');
  const r = filmkw(['tag', input, '--queue', url, '--out', mine, '--resume']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^filmkw: tag: --resume: .*mine\.jsonl exists but there is no .*mine\.jsonl\.progress\.json/mu);
  assert.equal(readFileSync(mine, 'utf8'), 'my own notes\n');
  assert.ok(!existsSync(`${mine}.queue.json`) && !existsSync(`${mine}.progress.json`) && !existsSync(`${mine}.lock`), 'nothing written next to it');
  const same = filmkw(['tag', input, '--queue', url, '--out', input]);
  assert.equal(same.status, 2, same.stderr);
  assert.match(same.stderr, /--out .* is (one of )?the (command's )?input/u);
  assert.match(readFileSync(input, 'utf8'), /"id":"d0-0"/u, 'the input is intact');
  // Redis unreachable: refused before the output is opened
  const down = filmkw(['tag', input, '--queue', 'redis://127.0.0.1:1', '--queue-timeout', '1', '--out', mine]);
  assert.equal(down.status, 8, down.stderr);
  assert.equal(readFileSync(mine, 'utf8'), 'my own notes\n');
});

test('tag --queue carries the document context: --film-field and --title-field give the bytes of a local run, and the films the KG lacks are reported once', { skip: skip ?? false }, async () => {
  const d = tmp();
  const input = join(d, 'context.jsonl');
  const texts = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text);
  const films = ['长津湖', '没有这部电影', '', '长津湖'];
  writeFileSync(input, texts.map((t, i) => JSON.stringify({ id: `c${i}`, text: t, meta: { film: films[i % films.length], title: i % 2 === 0 ? `标题${i}` : null } })).join('\n') + '\n');
  const flags = ['--film-field', 'meta.film', '--title-field', 'meta.title', '--explain'];
  const local = filmkw(['tag', input, '--id-field', 'id', '--out', join(d, 'local.jsonl'), ...flags]);
  assert.equal(local.status, 0, local.stderr);
  const expected = readFileSync(join(d, 'local.jsonl'), 'utf8');
  const unknown = texts.filter((_, i) => i % 4 === 1).length;
  assert.ok(unknown > 0);
  const warning = `tag: WARNING: 1 film of ${unknown} record${unknown === 1 ? '' : 's'} not in the KG ("没有这部电影"); those records were tagged without their film`;
  assert.ok(local.stderr.includes(warning), local.stderr);
  const w = await startWorker(url, ['--name', 'ctx']);
  try {
    const q = filmkw(['tag', input, '--id-field', 'id', '--queue', url, '--chunk-docs', '3', '--out', join(d, 'queue.jsonl'), ...flags]);
    assert.equal(q.status, 0, q.stderr);
    assert.equal(readFileSync(join(d, 'queue.jsonl'), 'utf8'), expected);
    assert.equal(q.stderr.split('\n').filter((l) => l.includes('not in the KG')).length, 1, q.stderr);
    assert.ok(q.stderr.includes(warning), q.stderr);
    const refused = filmkw(['tag', input, '--queue', url, '--corpus-stats', 'self']);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--queue takes --corpus-stats none or no --corpus-stats/u);
  } finally {
    await w.kill('SIGKILL');
  }
});
