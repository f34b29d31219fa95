/**
 * Queue runs whose KG lives in Neo4j (`tag --neo4j --queue`), against the real server of NEO4J_URI
 * (`npm run test:neo4j`; skipped without NEO4J_URI unless FILMKW_REQUIRE_NEO4J=1) and a private
 * redis-server (skipped without the binary unless FILMKW_REQUIRE_REDIS=1), through bin/filmkw (build first):
 *   - the submitter describes the KG as "Neo4j" plus its content hash, a worker loads it from the same
 *     Neo4j with its own NEO4J_* settings: the output equals a local `tag --kg <snapshot>` byte for byte;
 *   - the KG in Neo4j changed after the run was submitted: the worker loads a KG with another content hash
 *     and refuses the chunk loudly (exit 8 on the submitter, REFUSED on the worker), nothing is tagged.
 * It deletes filmkw's nodes of the target database first and at the end (as test/neo4j/merged-kg.test.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearKgInNeo4j, neo4jConfigFromEnv } from '../../src/kg/neo4j.js';
import { cli, neo4jSkip, ROOT, serverEnv } from '../fixtures/neo4j/server.js';
import { corpus, countJobs, localTag, Proc, startWorker } from '../queue/cli.js';
import { PrivateRedis, redisSkipReason } from '../queue/redis.js';
import { until } from '../helpers/wait.js';

const SKIP = neo4jSkip() || redisSkipReason(true) || (!existsSync(join(ROOT, 'dist', 'cli', 'main.js')) ? 'needs `npm run build` (dist/)' : false);

let dir = '';
let redis: PrivateRedis | null = null;

before(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'filmkw-neo4j-queue-'));
  redis = await PrivateRedis.start();
  await clearKgInNeo4j(neo4jConfigFromEnv());
  const r = await cli(['kg', 'import', '--neo4j', `csv:${join(ROOT, 'kg', 'demo')}`], serverEnv());
  assert.equal(r.status, 0, r.stderr);
});
after(async () => {
  if (SKIP) return;
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
  await clearKgInNeo4j(neo4jConfigFromEnv());
});

const tagArgs = (input: string, url: string, out: string) => ['tag', input, '--id-field', 'id', '--neo4j', '--queue', url, '--chunk-docs', '8', '--out', out];

test('tag --neo4j --queue: a worker loads the KG from the same Neo4j; the output equals a local --kg snapshot run', { skip: SKIP }, async () => {
  const url = `${redis!.url}/1`;
  const input = corpus(dir, 5); // 60 documents + 3 bad records
  const snap = join(dir, 'demo.fkg');
  const mk = await cli(['kg', 'import', '--out', snap, `csv:${join(ROOT, 'kg', 'demo')}`], {});
  assert.equal(mk.status, 0, mk.stderr);
  const expected = localTag(input, join(dir, 'local.jsonl'), ['--kg', snap]);
  const w = await startWorker(url, ['--name', 'neo']);
  try {
    const out = join(dir, 'q.jsonl');
    const tag = new Proc(tagArgs(input, url, out));
    assert.equal(await tag.exited, 0, tag.stderr);
    assert.equal(readFileSync(out, 'utf8'), expected);
    assert.match(tag.stderr, /tag: 63 records \(60 tagged, 3 error records\).*queue run [0-9a-f]{12}: 8 chunks \(8 enqueued\).*KG neo4j/u);
    await w.waitFor(/ready for run [0-9a-f]{12}: 1 thread, preset \S+, KG [0-9a-f]{12}/u);
    assert.doesNotMatch(w.stderr, /REFUSED/u);
  } finally {
    await w.kill();
  }
  assert.match(w.stderr, /stopped after 8 chunks/u, w.stderr);
});

test('the KG in Neo4j changed after the run was submitted: the worker refuses the chunk (another content hash), exit 8', { skip: SKIP }, async () => {
  const url = `${redis!.url}/2`;
  const input = corpus(dir, 2, 'small.jsonl');
  const out = join(dir, 'changed.jsonl');
  // the submitter reads the KG's content hash from Neo4j and enqueues; no worker yet
  const tag = new Proc(tagArgs(input, url, out));
  let w: Proc | null = null;
  try {
    await until('a chunk queued', async () => {
      if (tag.child.exitCode !== null) assert.fail(`no chunk was queued: ${tag.stderr}`);
      return (await countJobs(url, 'wait')) > 0;
    });
    // someone imports one more film into the same Neo4j
    const more = join(dir, 'more');
    cpSync(join(ROOT, 'kg', 'demo'), more, { recursive: true });
    appendFileSync(join(more, 'entities.csv'), 'm_queue_test,Movie,队列测试片,,\n');
    const imp = await cli(['kg', 'import', '--neo4j', `csv:${more}`], serverEnv());
    assert.equal(imp.status, 0, imp.stderr);
    w = await startWorker(url, ['--name', 'late']);
    assert.equal(await tag.exited, 8, tag.stderr);
    assert.match(
      tag.stderr,
      /^filmkw: tag: chunk 0 \(input lines 1–8\) failed on the queue: refused by worker late: the Neo4j KG here has content hash [0-9a-f]+, the run was submitted with [0-9a-f]+; fix the cause and run the same command with --resume; 0 records are in .*changed\.jsonl/mu,
    );
    assert.doesNotMatch(tag.stderr, /\n\s+at /u);
    await w.waitFor(/REFUSED chunk [0-9a-f]{12}-0: the Neo4j KG here has content hash/u);
    assert.doesNotMatch(w.stderr, /ready for run/u, 'no thread pool was built on the other KG');
  } finally {
    await tag.kill('SIGKILL');
    await w?.kill();
  }
});
