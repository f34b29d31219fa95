/**
 * Faults of a queue run, each against a real redis-server and real `filmkw` processes, each ending with
 * an output equal byte for byte to a local run (no gap, no duplicate):
 * - a worker killed (SIGKILL) while it holds chunks: they are re-delivered after the stall timeout;
 * - the submitter killed: `--resume` collects the chunks done meanwhile and enqueues only the others;
 * - Redis killed and restarted empty mid-run: the submitter enqueues the lost chunks again and goes on;
 * - Redis with AOF persistence (appendonly yes) killed and restarted mid-run: the queue comes back from its
 *   append-only file, the run goes on without enqueueing anything again;
 * - Redis away longer than --queue-timeout: exit 8 with a clear line, then `--resume` finishes.
 * Stall timeouts are 1 s here (30 s by default).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { corpus, countJobs, localTag, Proc, startWorker, tmp } from './cli.js';
import { PrivateRedis, redisSkipReason } from './redis.js';
import { until } from '../helpers/wait.js';

const skip = redisSkipReason(true);
let redis: PrivateRedis;
before(async () => {
  if (!skip) redis = await PrivateRedis.start();
});
after(() => redis?.stop());

/** The submitter (`tag`) and the worker have both reported that Redis went away (and that they retry). */
const sawRedisGo = (tag: Proc, w: Proc) => /Redis at redis:\/\/\S+: .*; retrying for up to \d+ s/u.test(tag.stderr) && /Redis: .*(ECONNRESET|ECONNREFUSED).* \(retrying\)/u.test(w.stderr);
/** Records the checkpoint of `out` says are written. */
const written = (out: string) => (existsSync(out) ? statSync(out).size : 0);
const checkpointed = (out: string) => (existsSync(`${out}.progress.json`) ? (JSON.parse(readFileSync(`${out}.progress.json`, 'utf8')) as { records: number }).records : 0);

async function setup(times: number) {
  const d = tmp();
  const input = corpus(d, times);
  return { d, input, expected: localTag(input, join(d, 'local.jsonl')), out: join(d, 'q.jsonl') };
}
const tagArgs = (input: string, url: string, out: string, extra: string[] = []) => ['tag', input, '--id-field', 'id', '--queue', url, '--chunk-docs', '8', '--out', out, ...extra];

test('a worker killed with SIGKILL mid-chunk: its chunks are re-delivered after the stall timeout and written once', { skip: skip ?? false }, async () => {
  const url = `${redis.url}/1`;
  const { input, expected, out } = await setup(30);
  const a = await startWorker(url, ['--stall-timeout', '1000', '--name', 'a']);
  const tag = new Proc(tagArgs(input, url, out));
  let b: Proc | null = null;
  try {
    await a.waitFor(/ready for run/u);
    await until('a chunk held by worker a', async () => (await countJobs(url, 'active')) > 0);
    await a.kill('SIGKILL');
    b = await startWorker(url, ['--stall-timeout', '1000', '--name', 'b']);
    assert.equal(await tag.exited, 0, tag.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    await b.waitFor(/chunk [0-9a-f]{12}-\d+ re-delivered \(attempt 2, stalled 1 times\)/u);
  } finally {
    await tag.kill('SIGKILL');
    await a.kill('SIGKILL');
    await b?.kill('SIGKILL');
  }
});

test('the submitter killed with SIGKILL: --resume collects what was done and enqueues only the rest', { skip: skip ?? false }, async () => {
  const url = `${redis.url}/2`;
  const { input, expected, out } = await setup(100); // 1,200 documents + 42 error records = 156 chunks
  const w = await startWorker(url, ['--stall-timeout', '1000']);
  try {
    const first = new Proc(tagArgs(input, url, out, ['--queue-window', '12']));
    await until('the first chunks written', () => written(out) > 0);
    await first.kill('SIGKILL');
    const done = checkpointed(out);
    await until('the worker to finish the queued chunks', async () => (await countJobs(url, 'wait')) + (await countJobs(url, 'active')) === 0);
    const inRedis = await countJobs(url, 'completed');
    assert.ok(inRedis > 0, 'chunks were done after the submitter died');
    const second = new Proc(tagArgs(input, url, out, ['--queue-window', '12', '--resume']));
    assert.equal(await second.exited, 0, second.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    const m = /queue run [0-9a-f]{12}: (\d+) chunks \((\d+) enqueued, (\d+) found in the queue\)(?:.*resumed after (\d+) records)?/u.exec(second.stderr);
    assert.ok(m, second.stderr);
    const [chunks, enqueued, found, resumed] = m.slice(1).map((x) => Number(x ?? 0));
    assert.equal(resumed, done);
    assert.equal(chunks, 156 - Math.floor(done / 8));
    assert.ok(found >= inRedis, `found ${found} of the ${inRedis} completed chunks`);
    assert.equal(enqueued + found, chunks);
    assert.equal(await countJobs(url, 'completed'), 0, 'collected chunks are removed');
  } finally {
    await w.kill('SIGKILL');
  }
});

test('Redis killed and restarted empty mid-run: the lost chunks are enqueued again and the run finishes', { skip: skip ?? false }, async () => {
  const url = `${redis.url}/3`;
  const { input, expected, out } = await setup(100);
  const w = await startWorker(url, ['--stall-timeout', '1000']);
  const tag = new Proc(tagArgs(input, url, out, ['--queue-timeout', '30']));
  try {
    await until('the first chunks written', () => written(out) > 0);
    await redis.down();
    await until('the submitter and the worker to see Redis go', () => sawRedisGo(tag, w));
    await redis.up();
    assert.equal(await tag.exited, 0, tag.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    assert.match(tag.stderr, /chunks? (is|are) no longer in Redis \(restarted without its data\?\); enqueued again/u);
    assert.match(w.stderr, /Redis: .*(ECONNRESET|ECONNREFUSED).* \(retrying\)/u, 'the worker saw Redis go and kept going');
  } finally {
    await tag.kill('SIGKILL');
    await w.kill('SIGKILL');
  }
});

test('Redis away longer than --queue-timeout: exit 8 with one line, then --resume finishes the run', { skip: skip ?? false }, async () => {
  const url = `${redis.url}/4`;
  const { input, expected, out } = await setup(100);
  const w = await startWorker(url, ['--stall-timeout', '1000']);
  try {
    const tag = new Proc(tagArgs(input, url, out, ['--queue-timeout', '2']));
    await until('the first chunks written', () => written(out) > 0);
    await redis.down();
    assert.equal(await tag.exited, 8, tag.stderr);
    assert.match(tag.stderr, /^filmkw: tag: [a-z ]+chunk \d+: Redis at redis:\/\/127\.0\.0\.1:\d+\/4 did not answer for 2 s \(.*\); \d+ records are in .*q\.jsonl \(--resume continues\)$/mu);
    assert.doesNotMatch(tag.stderr, /\n\s+at /u);
    await redis.up();
    const again = new Proc(tagArgs(input, url, out, ['--resume']));
    assert.equal(await again.exited, 0, again.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
  } finally {
    await w.kill('SIGKILL');
  }
});

test('Redis with AOF persistence killed and restarted mid-run: the queue comes back from its file and the run goes on', { skip: skip ?? false }, async () => {
  const aof = await PrivateRedis.start(true); // appendonly yes, appendfsync always
  try {
    const url = `${aof.url}/5`;
    const { input, expected, out } = await setup(100);
    const w = await startWorker(url, ['--stall-timeout', '1000']);
    const tag = new Proc(tagArgs(input, url, out, ['--queue-timeout', '30']));
    try {
      await until('the first chunks written', () => written(out) > 0);
      const queued = (await countJobs(url, 'wait')) + (await countJobs(url, 'active'));
      assert.ok(queued > 0, 'chunks were in Redis when it was killed');
      await aof.down();
      await until('the submitter and the worker to see Redis go', () => sawRedisGo(tag, w));
      await aof.up();
      assert.ok((await countJobs(url, 'wait')) + (await countJobs(url, 'active')) + (await countJobs(url, 'completed')) > 0, 'the restarted Redis has the queue back');
      assert.equal(await tag.exited, 0, tag.stderr);
      assert.equal(readFileSync(out, 'utf8'), expected);
      assert.match(tag.stderr, /Redis at redis:\/\/127\.0\.0\.1:\d+\/5: .*; retrying for up to 30 s/u, 'the submitter saw Redis go');
      assert.doesNotMatch(tag.stderr, /no longer in Redis/u, 'nothing was lost, nothing enqueued again');
      assert.match(tag.stderr, /queue run [0-9a-f]{12}: 156 chunks \(156 enqueued\)/u);
      for (const state of ['wait', 'active', 'completed', 'failed'] as const) assert.equal(await countJobs(url, state), 0, state);
    } finally {
      await tag.kill('SIGKILL');
      await w.kill('SIGKILL');
    }
  } finally {
    await aof.stop();
  }
});
