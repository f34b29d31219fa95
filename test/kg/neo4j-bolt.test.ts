/**
 * src/kg/neo4j.ts end to end through the official driver against a scripted Bolt server
 * (test/fixtures/neo4j/fake-bolt.ts): round trip of the demo KG, idempotence, retries of transient
 * errors, a server dying mid-import and the re-run converging, bad credentials, and proof that only the
 * module's fixed statements are sent (all data in parameters).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { KgStore } from '../../src/kg/store.js';
import type { KgData } from '../../src/kg/model.js';
import {
  clearKgInNeo4j,
  entityMergeQuery,
  foreignDataQueries,
  neo4jStats,
  readKgFromNeo4j,
  readPageQuery,
  relationMergeQuery,
  schemaStatements,
  writeKgToNeo4j,
  type Neo4jTuning,
} from '../../src/kg/neo4j.js';
import { FakeBolt, type FakeBoltOptions } from '../fixtures/neo4j/fake-bolt.js';
import { allowedCypher } from '../fixtures/neo4j/allowed-cypher.js';
import { demoKg } from '../fixtures/neo4j/demo-kg.js';

// Deadlines no loaded machine reaches (no test here waits for one to fire); a short retry time, so that
// the server-gone case gives up soon after the driver's first retries.
const TUNING: Partial<Neo4jTuning> = { connectionTimeoutMs: 60_000, connectionAcquisitionTimeoutMs: 60_000, maxTransactionRetryTimeMs: 1500 };
const DEMO = demoKg();
const DEMO_STORE = KgStore.fromData(DEMO);

const ALLOWED = allowedCypher([
  ...Object.values(foreignDataQueries()),
  'MATCH (:Entity)-[r]->() WITH r LIMIT $limit DELETE r RETURN count(*) AS n',
  'MATCH (n) WHERE n:Entity OR n:Alias WITH n LIMIT $limit DETACH DELETE n RETURN count(*) AS n',
]);

async function withFake<T>(opts: FakeBoltOptions, f: (fb: FakeBolt, cfg: { uri: string; user: string; password: string }) => Promise<T>): Promise<T> {
  const fb = await new FakeBolt({ user: 'neo4j', password: 'pw', ...opts }).start();
  try {
    return await f(fb, { uri: fb.uri, user: 'neo4j', password: 'pw' });
  } finally {
    await fb.stop();
  }
}

test('demo KG: write twice, stats equal the embedded store, read back gives the same content hash', async () => {
  await withFake({}, async (fb, cfg) => {
    const progress: [number, number, string][] = [];
    const first = await writeKgToNeo4j(DEMO, cfg, { batchSize: 97, tuning: TUNING, onProgress: (d, t, p) => progress.push([d, t, p]) });
    const s = DEMO_STORE.stats();
    assert.equal(first.nodes, s.entities.total);
    assert.equal(first.relationships, DEMO.relations.length);
    assert.deepEqual(first.created, { nodes: s.entities.total, relationships: s.relations.total });
    assert.deepEqual(first.skipped, []);
    assert.deepEqual(progress.slice(0, 3), [[1, 3, 'schema'], [2, 3, 'schema'], [3, 3, 'schema']]);
    assert.deepEqual(progress.filter((p) => p[2] === 'entities').at(-1), [s.entities.total, s.entities.total, 'entities']);
    assert.deepEqual(progress.at(-1), [DEMO.relations.length, DEMO.relations.length, 'relations']);
    assert.deepEqual(await neo4jStats(cfg, { tuning: TUNING }), s);

    const second = await writeKgToNeo4j(DEMO, cfg, { batchSize: 1000, tuning: TUNING });
    assert.deepEqual(second.created, { nodes: 0, relationships: 0 });
    assert.deepEqual(second.written, { nodes: 0, properties: 0 }); // an unchanged KG writes nothing
    assert.deepEqual(await neo4jStats(cfg, { tuning: TUNING }), s);

    const pages: number[] = [];
    const back = await readKgFromNeo4j(cfg, { pageSize: 50, tuning: TUNING, onProgress: (d) => pages.push(d) });
    assert.equal(pages.length, Math.ceil(s.entities.total / 50));
    assert.equal(KgStore.fromData(back).contentHash, DEMO_STORE.contentHash);
    assert.deepEqual(KgStore.fromData(back).toData(), DEMO_STORE.toData());

    // the schema is created before any data; only the module's fixed statements were sent
    assert.deepEqual(fb.queries.slice(0, 3), schemaStatements());
    for (const q of fb.queries) assert.ok(ALLOWED.has(q), q);
  });
});

test('hostile names and ids travel as parameters and come back unchanged', async () => {
  const weird = ["x'}) DETACH DELETE n //", 'a`b`:Movie', 'line\nbreak "quoted" \\ back', '😀 emoji 名字', '$rows', ''];
  const data: KgData = {
    entities: weird.map((w, i) => ({ id: `movie/name/${w}${i}`, kind: 'Movie' as const, name: w || 'empty', surfaces: [w], aliases: [w + '!'] })),
    relations: weird.map((w, i) => ({ kind: 'ALIAS' as const, from: `movie/name/${w}${i}`, to: w + '?' })),
  };
  await withFake({}, async (fb, cfg) => {
    await writeKgToNeo4j(data, cfg, { tuning: TUNING });
    const back = await readKgFromNeo4j(cfg, { tuning: TUNING });
    assert.equal(KgStore.fromData(back).contentHash, KgStore.fromData(data).contentHash);
    for (const q of fb.queries) assert.ok(ALLOWED.has(q), q);
  });
});

test('wrong password: NEO4J_AUTH from every job, nothing written', async () => {
  await withFake({}, async (fb, cfg) => {
    const bad = { ...cfg, password: 'wrong' };
    for (const job of [() => writeKgToNeo4j(DEMO, bad, { tuning: TUNING }), () => readKgFromNeo4j(bad, { tuning: TUNING }), () => neo4jStats(bad, { tuning: TUNING })]) {
      await assert.rejects(job(), (e: unknown) => {
        assert.ok(e instanceof FilmkwError);
        assert.equal(e.code, 'NEO4J_AUTH');
        assert.equal(e.exitCode, 5);
        assert.match(e.message, /^neo4j: authentication failed for user "neo4j" at bolt:\/\/127\.0\.0\.1:\d+: .*\[Neo\.ClientError\.Security\.Unauthorized\]; check NEO4J_USER and NEO4J_PASSWORD$/);
        return true;
      });
    }
    assert.equal(fb.queries.length, 0);
  });
});

test('a transient error is retried by the managed transaction and the import completes', async () => {
  let failed = 0;
  await withFake(
    {
      beforeRun: (r) => {
        if (r.query === relationMergeQuery('ACTED_IN') && failed === 0) {
          failed++;
          return { code: 'Neo.TransientError.Transaction.DeadlockDetected', message: 'ForsetiClient can not acquire lock' };
        }
        return undefined;
      },
    },
    async (fb, cfg) => {
      const r = await writeKgToNeo4j(DEMO, cfg, { batchSize: 200, tuning: TUNING });
      assert.equal(failed, 1);
      assert.deepEqual(r.created, { nodes: DEMO_STORE.stats().entities.total, relationships: DEMO_STORE.stats().relations.total });
      assert.deepEqual(await neo4jStats(cfg, { tuning: TUNING }), DEMO_STORE.stats());
      const batches = Math.ceil(DEMO.relations.filter((x) => x.kind === 'ACTED_IN').length / 200);
      assert.equal(fb.queries.filter((q) => q === relationMergeQuery('ACTED_IN')).length, batches + 1); // the failed batch ran twice
    },
  );
});

test('a dropped connection mid-transaction is retried on a new connection', async () => {
  let dropped = false;
  await withFake(
    {
      beforeRun: (r) => {
        if (!dropped && r.query === entityMergeQuery('Character')) {
          dropped = true;
          return 'disconnect';
        }
        return undefined;
      },
    },
    async (_fb, cfg) => {
      await writeKgToNeo4j(DEMO, cfg, { tuning: TUNING });
      assert.ok(dropped);
      assert.deepEqual(await neo4jStats(cfg, { tuning: TUNING }), DEMO_STORE.stats());
    },
  );
});

test('server gone mid-import: NEO4J_FAILED after the driver tried again, and the re-run converges to the same graph', async () => {
  let die = true;
  const fb = await new FakeBolt({ user: 'neo4j', password: 'pw', beforeRun: (r) => (die && r.index === 8 ? 'die' : undefined) }).start();
  const cfg = { uri: fb.uri, user: 'neo4j', password: 'pw' };
  try {
    await assert.rejects(writeKgToNeo4j(DEMO, cfg, { batchSize: 60, tuning: TUNING }), (e: unknown) => {
      assert.ok(e instanceof FilmkwError);
      assert.equal(e.code, 'NEO4J_FAILED', e.message);
      assert.equal(e.exitCode, 6);
      assert.match(e.message, /^neo4j: the import at bolt:\/\/127\.0\.0\.1:\d+ lost the server after retries: .*; the import can be re-run and converges to the same graph \(MERGE\)$/);
      assert.ok(!e.message.includes('\n'));
      return true;
    });
    // the driver tried again on new connections (reset on arrival: the server is gone) before it gave up
    assert.ok(fb.rejected >= 1, `retried on ${fb.rejected} new connection(s)`);
    const partial = fb.graph.entityIds().length;
    assert.ok(partial > 0 && partial < DEMO_STORE.entityCount, `partial graph: ${partial}`);

    die = false;
    await fb.start(); // same port, committed graph kept
    const again = await writeKgToNeo4j(DEMO, cfg, { batchSize: 60, tuning: TUNING });
    assert.equal(again.created.nodes, DEMO_STORE.entityCount - partial);
    assert.deepEqual(await neo4jStats(cfg, { tuning: TUNING }), DEMO_STORE.stats());
    const back = await readKgFromNeo4j(cfg, { tuning: TUNING });
    assert.equal(KgStore.fromData(back).contentHash, DEMO_STORE.contentHash);
  } finally {
    await fb.stop();
  }
});

test('a non-retryable server error fails at once with NEO4J_FAILED naming the code', async () => {
  await withFake(
    { beforeRun: (r) => (r.query === relationMergeQuery('WROTE') ? { code: 'Neo.ClientError.Schema.ConstraintValidationFailed', message: 'Node(1) already exists with label `Entity`' } : undefined) },
    async (fb, cfg) => {
      await assert.rejects(writeKgToNeo4j(DEMO, cfg, { tuning: TUNING }), (e: unknown) => {
        assert.ok(e instanceof FilmkwError);
        assert.equal(e.code, 'NEO4J_FAILED');
        assert.match(e.message, /^neo4j: the import at bolt:\/\/127\.0\.0\.1:\d+ failed: Node\(1\) already exists with label `Entity` \[Neo\.ClientError\.Schema\.ConstraintValidationFailed\]; the import can be re-run/);
        return true;
      });
      // at once: the failing statement was sent once, never retried (a retry runs the transaction again)
      assert.equal(fb.queries.filter((q) => q === relationMergeQuery('WROTE')).length, 1, 'sent once');
    },
  );
});

test('read: a node without exactly one kind label is skipped with a warning', async () => {
  await withFake({}, async (fb, cfg) => {
    await writeKgToNeo4j({ entities: DEMO.entities.slice(0, 3), relations: [] }, cfg, { tuning: TUNING });
    fb.graph.nodes.set('zzz/odd', { labels: new Set(['Entity']), props: { id: 'zzz/odd', name: 'odd' } });
    fb.graph.nodes.set('zzz/two', { labels: new Set(['Entity', 'Movie', 'Person']), props: { id: 'zzz/two', name: 'two' } });
    const warnings: string[] = [];
    const back = await readKgFromNeo4j(cfg, { tuning: TUNING, onWarning: (w) => warnings.push(w) });
    assert.equal(back.entities.length, 3);
    assert.deepEqual(warnings, [
      'neo4j: node "zzz/odd" has no kind label; skipped with its relations',
      'neo4j: node "zzz/two" has several kind labels (Movie, Person); skipped with its relations',
    ]);
  });
});

test('an exception that is not from the driver (e.g. from a progress callback) is not disguised as a Neo4j failure', async () => {
  await withFake({}, async (_fb, cfg) => {
    const boom = new TypeError('progress boom');
    await assert.rejects(
      writeKgToNeo4j(DEMO, cfg, {
        tuning: TUNING,
        onProgress: () => {
          throw boom;
        },
      }),
      (e: unknown) => e === boom,
    );
  });
});

test('read: the last record of each page is its largest id (final ORDER BY), so pages neither overlap nor skip', async () => {
  // the fake returns a page unordered (reversed) unless the RETURN itself has ORDER BY, as Cypher allows
  assert.match(readPageQuery(), /\nRETURN [\s\S]*\nORDER BY id ASC$/);
  await withFake({}, async (fb, cfg) => {
    await writeKgToNeo4j(DEMO, cfg, { tuning: TUNING });
    const n = DEMO_STORE.entityCount;
    for (const pageSize of [1, 7, 50, n, n + 1]) {
      const before = fb.queries.length;
      const back = await readKgFromNeo4j(cfg, { pageSize, tuning: TUNING });
      assert.equal(back.entities.length, n, `page size ${pageSize}`);
      assert.equal(KgStore.fromData(back).contentHash, DEMO_STORE.contentHash);
      // each page starts after the previous one: ⌊n / pageSize⌋ + 1 pages (the last one short or empty)
      assert.equal(fb.queries.slice(before).filter((q) => q === readPageQuery()).length, Math.floor(n / pageSize) + 1, `page size ${pageSize}`);
    }
  });
});

test('read: the graph written to between pages gives NEO4J_FAILED (not a silently partial KG); a retry reads it all', async () => {
  let pages = 0;
  let fb: FakeBolt | undefined;
  const late = { labels: new Set(['Entity', 'Genre']), props: { id: 'zzzz/late', name: '迟到', aliases: [], surfaces: ['迟到'] } };
  await withFake(
    {
      beforeRun: (r) => {
        if (r.query === readPageQuery() && ++pages === 2) fb!.graph.nodes.set('zzzz/late', late);
        return undefined;
      },
    },
    async (f, cfg) => {
      fb = f;
      await writeKgToNeo4j(DEMO, cfg, { tuning: TUNING });
      await assert.rejects(readKgFromNeo4j(cfg, { pageSize: 50, tuning: TUNING }), (e: unknown) => {
        assert.ok(e instanceof FilmkwError, String(e));
        assert.equal(e.code, 'NEO4J_FAILED');
        assert.equal(e.exitCode, 6);
        assert.equal(
          e.message,
          `neo4j: reading the KG at ${cfg.uri} gave an inconsistent result (${DEMO_STORE.entityCount + 1} of ${DEMO_STORE.entityCount} :Entity nodes came back; was the graph written to during the read?); the read can be retried`,
        );
        return true;
      });
      const again = await readKgFromNeo4j(cfg, { pageSize: 50, tuning: TUNING });
      assert.equal(again.entities.length, DEMO_STORE.entityCount + 1);
      assert.ok(again.entities.some((e) => e.id === 'zzzz/late'));
    },
  );
});

test('read: :Entity nodes without a non-empty string id are neither counted nor read (no false alarm)', async () => {
  await withFake({}, async (fb, cfg) => {
    await writeKgToNeo4j(DEMO, cfg, { tuning: TUNING });
    fb.graph.nodes.set('zzz/number-id', { labels: new Set(['Entity', 'Movie']), props: { id: 7, name: 'seven' } });
    fb.graph.nodes.set('', { labels: new Set(['Entity', 'Movie']), props: { id: '', name: 'empty' } });
    const back = await readKgFromNeo4j(cfg, { pageSize: 50, tuning: TUNING });
    assert.equal(KgStore.fromData(back).contentHash, DEMO_STORE.contentHash);
  });
});

test('a changed entity is rewritten, an unchanged one is not; clear refuses a database holding data filmkw did not write', async () => {
  await withFake({}, async (fb, cfg) => {
    await writeKgToNeo4j(DEMO, cfg, { tuning: TUNING });
    const changed: KgData = { entities: DEMO.entities.map((e, i) => (i === 0 ? { ...e, surfaces: [...e.surfaces, '新的写法'] } : e)), relations: DEMO.relations };
    const w = await writeKgToNeo4j(changed, cfg, { tuning: TUNING });
    assert.equal(w.written.nodes, 1);
    assert.equal(KgStore.fromData(await readKgFromNeo4j(cfg, { tuning: TUNING })).contentHash, KgStore.fromData(changed).contentHash);

    fb.graph.nodes.set('foreign', { labels: new Set(['Entity', 'Movie']), props: { id: 'tt0133093', title: 'The Matrix' } });
    await assert.rejects(clearKgInNeo4j(cfg, { tuning: TUNING }), (e: unknown) => {
      assert.ok(e instanceof FilmkwError);
      assert.equal(e.code, 'NEO4J_FAILED');
      assert.match(e.message, /^neo4j: refusing to delete filmkw's nodes: the database at bolt:\/\/127\.0\.0\.1:\d+ holds data filmkw did not write \(e\.g\. \(:Entity:Movie \{id, title\}\)\); use a scratch database/);
      return true;
    });
    assert.equal(fb.graph.nodes.size > 1, true, 'nothing deleted');
    fb.graph.nodes.delete('foreign');
    const cleared = await clearKgInNeo4j(cfg, { tuning: TUNING });
    assert.ok(cleared.nodes > 0);
    assert.equal(fb.graph.nodes.size, 0);
    for (const q of fb.queries) assert.ok(ALLOWED.has(q), q);
  });
});
