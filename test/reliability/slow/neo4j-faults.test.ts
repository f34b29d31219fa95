/**
 * Issue 5, Neo4j network faults: the scripted Bolt server (test/fixtures/neo4j/fake-bolt.ts) behind a TCP
 * proxy (./tcp-proxy.ts) that cuts the path after a random number of bytes of the import:
 *   - one connection reset mid-import (transient): the managed transaction is retried on a new
 *     connection and the import completes with the right graph;
 *   - the server going away for good (reset, then every new connection reset): NEO4J_FAILED (exit 6) after
 *     the driver's retries with backoff (the proxy counts them); once the server is back the re-run
 *     converges to the same graph;
 *   - a silent partition (nothing arrives, no RST): NEO4J_FAILED after the client-side transaction
 *     deadline instead of waiting forever; the re-run converges;
 *   - a silent server from the first byte: NEO4J_UNAVAILABLE (exit 4) after the deadline.
 * In the reliability suite (they wait for the driver's deadlines and retries); the checks that need no
 * fault (timeouts from the environment, a peer that is no Bolt server, the static Cypher check) are in
 * test/reliability/neo4j-guards.test.ts, in the fast suite.
 * Nothing here is timed: a deadline that fired is seen in the error it gives, retries in the connections
 * the proxy saw. Only the calls meant to hit a deadline get short ones (TUNING); the calls that must
 * succeed get generous ones (OK_TUNING), so that a loaded machine cannot make them fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../../src/errors.js';
import { KgStore } from '../../../src/kg/store.js';
import { neo4jStats, readKgFromNeo4j, writeKgToNeo4j, type Neo4jTuning } from '../../../src/kg/neo4j.js';
import { FakeBolt } from '../../fixtures/neo4j/fake-bolt.js';
import { demoKg } from '../../fixtures/neo4j/demo-kg.js';
import { TcpProxy } from '../tcp-proxy.js';

const DEMO = demoKg();
const STORE = KgStore.fromData(DEMO);
const TUNING: Partial<Neo4jTuning> = { connectionTimeoutMs: 1000, connectionAcquisitionTimeoutMs: 1500, maxTransactionRetryTimeMs: 1500, transactionTimeoutMs: 2500, closeTimeoutMs: 500 };
/** For the calls that must succeed: deadlines no loaded machine reaches; the retry time as in TUNING. */
const OK_TUNING: Partial<Neo4jTuning> = { ...TUNING, connectionTimeoutMs: 60_000, connectionAcquisitionTimeoutMs: 60_000, transactionTimeoutMs: 120_000 };
/** For a silent partition mid-job: only the transaction deadline is short (it is what must fire). */
const SILENT_TUNING: Partial<Neo4jTuning> = { ...OK_TUNING, transactionTimeoutMs: 2500 };
const BATCH = 40; // many small transactions, so that cuts land between and inside them

async function rig(): Promise<{ fb: FakeBolt; proxy: TcpProxy; cfg: { uri: string; user: string; password: string }; close: () => Promise<void> }> {
  const fb = await new FakeBolt({ user: 'neo4j', password: 'pw' }).start();
  const proxy = await new TcpProxy(fb.port).start();
  return { fb, proxy, cfg: { uri: proxy.uri, user: 'neo4j', password: 'pw' }, close: async () => (await proxy.stop(), await fb.stop()) };
}

/** Client→server bytes of a whole demo import (measured once through the proxy). */
let importBytes = 0;
async function measure(): Promise<number> {
  if (importBytes) return importBytes;
  const r = await rig();
  try {
    await writeKgToNeo4j(DEMO, r.cfg, { batchSize: BATCH, tuning: OK_TUNING });
    importBytes = r.proxy.bytesUp;
  } finally {
    await r.close();
  }
  return importBytes;
}
/** A random cut point after the handshake and login (~1 KB) and before the end. */
const cutPoint = (total: number) => 2000 + Math.floor(Math.random() * (total - 4000));

async function converges(cfg: { uri: string; user: string; password: string }): Promise<void> {
  const again = await writeKgToNeo4j(DEMO, cfg, { batchSize: BATCH, tuning: OK_TUNING });
  assert.deepEqual(again.skipped, []);
  assert.deepEqual(await neo4jStats(cfg, { tuning: OK_TUNING }), STORE.stats());
  assert.equal(KgStore.fromData(await readKgFromNeo4j(cfg, { tuning: OK_TUNING })).contentHash, STORE.contentHash);
}

test('one connection reset at a random point of the import: retried on a new connection, the import completes', async () => {
  const total = await measure();
  for (let round = 0; round < 3; round++) {
    const r = await rig();
    try {
      const at = cutPoint(total);
      r.proxy.cut(at, 'reset', { once: true });
      const w = await writeKgToNeo4j(DEMO, r.cfg, { batchSize: BATCH, tuning: OK_TUNING });
      assert.ok(r.proxy.connections >= 2, `cut at ${at}: a new connection was opened (${r.proxy.connections})`);
      assert.equal(w.nodes, STORE.entityCount);
      assert.deepEqual(await neo4jStats(r.cfg, { tuning: OK_TUNING }), STORE.stats(), `cut at ${at}`);
      assert.equal(KgStore.fromData(await readKgFromNeo4j(r.cfg, { tuning: OK_TUNING })).contentHash, STORE.contentHash);
    } finally {
      await r.close();
    }
  }
});

test('server going away for good mid-import: NEO4J_FAILED after retries with backoff; the re-run converges', async () => {
  const total = await measure();
  const r = await rig();
  try {
    const at = cutPoint(total);
    r.proxy.cut(at, 'reset');
    // the deadline far above the driver's retry time plus its backoff (1 s, 2 s, ... with jitter): the
    // retries end the call, not the deadline
    const tuning = OK_TUNING;
    await assert.rejects(writeKgToNeo4j(DEMO, r.cfg, { batchSize: BATCH, tuning }), (e: unknown) => {
      assert.ok(e instanceof FilmkwError, String(e));
      assert.equal(e.code, 'NEO4J_FAILED', e.message);
      assert.equal(e.exitCode, 6);
      assert.match(e.message, /^neo4j: (the import|creating the constraints) at bolt:\/\/127\.0\.0\.1:\d+ lost the server after retries: .*; the import can be re-run and converges to the same graph \(MERGE\)$/);
      assert.ok(!e.message.includes('\n'));
      return true;
    });
    // the driver tried again on new connections (reset on arrival: the server is gone) before it gave up
    assert.ok(r.proxy.rejected >= 1, `retried on ${r.proxy.rejected} new connection(s) (cut at ${at})`);
    assert.ok(r.proxy.connections >= 1);
    const partial = [r.fb.graph.entityIds().length, r.fb.graph.rels.size];
    assert.ok(partial[0] < STORE.entityCount || partial[1] < STORE.stats().relations.total, `partial graph ${partial} (cut at ${at})`);
    await r.proxy.heal();
    await converges(r.cfg);
  } finally {
    await r.close();
  }
});

test('silent network partition mid-import: NEO4J_FAILED after the transaction deadline, not a hang; the re-run converges', async () => {
  const total = await measure();
  const r = await rig();
  try {
    const at = cutPoint(total);
    r.proxy.cut(at, 'silent');
    // the deadline that fired is named in the message (the 2500 ms of SILENT_TUNING, ETIMEDOUT)
    await assert.rejects(writeKgToNeo4j(DEMO, r.cfg, { batchSize: BATCH, tuning: SILENT_TUNING }), (e: unknown) => {
      assert.ok(e instanceof FilmkwError, String(e));
      assert.equal(e.code, 'NEO4J_FAILED', e.message);
      assert.match(e.message, /^neo4j: (the import|creating the constraints) at bolt:\/\/127\.0\.0\.1:\d+ lost the server: no answer from the server in 2500 ms \(network partition or stuck server\?\) \[ETIMEDOUT\]; the import can be re-run and converges to the same graph \(MERGE\)$/);
      return true;
    });
    await r.proxy.heal();
    await converges(r.cfg);
  } finally {
    await r.close();
  }
});

test('a server that never answers (silent from the first byte): NEO4J_UNAVAILABLE after the deadline, for every job', async () => {
  const r = await rig();
  try {
    r.proxy.cut(0, 'silent');
    for (const job of [() => writeKgToNeo4j(DEMO, r.cfg, { tuning: TUNING }), () => readKgFromNeo4j(r.cfg, { tuning: TUNING }), () => neo4jStats(r.cfg, { tuning: TUNING })]) {
      await assert.rejects(job(), (e: unknown) => {
        assert.ok(e instanceof FilmkwError, String(e));
        assert.equal(e.code, 'NEO4J_UNAVAILABLE', e.message);
        assert.equal(e.exitCode, 4);
        assert.match(e.message, /^neo4j: cannot connect to bolt:\/\/127\.0\.0\.1:\d+: is the server running\? \(/);
        return true;
      });
    }
    assert.equal(r.fb.graph.entityIds().length, 0);
  } finally {
    await r.close();
  }
});

test('silent partition while reading the KG back (tag --neo4j path): NEO4J_FAILED after the deadline; a retry reads it all', async () => {
  const r = await rig();
  try {
    await writeKgToNeo4j(DEMO, r.cfg, { tuning: OK_TUNING });
    const start = r.proxy.bytesUp;
    r.proxy.cut(1500 + Math.floor(Math.random() * 1500), 'silent'); // after the login, during the paged reads
    await assert.rejects(readKgFromNeo4j(r.cfg, { pageSize: 20, tuning: SILENT_TUNING }), (e: unknown) => {
      assert.ok(e instanceof FilmkwError, String(e));
      assert.equal(e.code, 'NEO4J_FAILED', e.message);
      assert.match(e.message, /^neo4j: reading the KG at bolt:\/\/127\.0\.0\.1:\d+ lost the server: no answer from the server in 2500 ms .*; the read can be retried$/);
      return true;
    });
    assert.ok(r.proxy.bytesUp > start);
    await r.proxy.heal();
    assert.equal(KgStore.fromData(await readKgFromNeo4j(r.cfg, { pageSize: 20, tuning: OK_TUNING })).contentHash, STORE.contentHash);
  } finally {
    await r.close();
  }
});
