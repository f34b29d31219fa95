/**
 * Unit tests of src/kg/neo4j.ts that need no Neo4j server: configuration, the exact Cypher and row
 * shapes, error classification, and connection failures against closed ports and fake TCP servers.
 * test/kg/neo4j-bolt.test.ts drives the full write/read/stats jobs against a scripted Bolt server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Neo4jError } from 'neo4j-driver';
import { FilmkwError } from '../../src/errors.js';
import { KgStore } from '../../src/kg/store.js';
import { syntheticKg } from '../../src/kg/synthetic.js';
import fc from 'fast-check';
import {
  NEO4J_DEFAULTS,
  classifyNeo4jError,
  entityMergeQuery,
  neo4jConfigFromEnv,
  neo4jStats,
  planImport,
  readKgFromNeo4j,
  readCountQuery,
  readPageQuery,
  redactUri,
  relationMergeQuery,
  schemaStatements,
  statsQueries,
  sweepQueries,
  relationKey,
  type EntityRow,
  writeKgToNeo4j,
} from '../../src/kg/neo4j.js';
import type { EntityKind, KgData, RelationKind } from '../../src/kg/model.js';
import { until } from '../helpers/wait.js';

const FAST = { connectionTimeoutMs: 1000, connectionAcquisitionTimeoutMs: 1500, maxTransactionRetryTimeMs: 300 };
/** Where the peer's own answer (refused, closed, garbage) ends the call: deadlines no loaded machine reaches. */
const PEER = { connectionTimeoutMs: 60_000, connectionAcquisitionTimeoutMs: 60_000, maxTransactionRetryTimeMs: 300 };

/** Toy KG with one of everything, plus bad rows that must be skipped and reported. */
export const TOY: KgData = {
  entities: [
    { id: 'movie/douban/1', kind: 'Movie', name: '我不是药神', surfaces: ['我不是药神'], aliases: ['Dying to Survive', '药神'] },
    { id: 'person/douban/11', kind: 'Person', name: '徐峥', surfaces: ['徐峥'], aliases: [] },
    { id: 'person/name/文牧野', kind: 'Person', name: '文牧野', surfaces: ['文牧野'], aliases: [] },
    { id: 'character/movie/douban/1/程勇', kind: 'Character', name: '程勇', surfaces: ['程勇'], aliases: [], movieId: 'movie/douban/1' },
    { id: 'genre/剧情', kind: 'Genre', name: '剧情', surfaces: ['剧情'], aliases: [] },
    { id: 'person/douban/11', kind: 'Person', name: '徐峥 (dup)', surfaces: [], aliases: [] },
  ],
  relations: [
    { kind: 'DIRECTED', from: 'person/name/文牧野', to: 'movie/douban/1' },
    { kind: 'WROTE', from: 'person/name/文牧野', to: 'movie/douban/1' },
    { kind: 'ACTED_IN', from: 'person/douban/11', to: 'movie/douban/1' },
    { kind: 'HAS_GENRE', from: 'movie/douban/1', to: 'genre/剧情' },
    { kind: 'ALIAS', from: 'movie/douban/1', to: 'Dying to Survive' },
    { kind: 'ALIAS', from: 'movie/douban/1', to: '药神' },
    { kind: 'PLAYED', from: 'person/douban/11', to: 'character/movie/douban/1/程勇', movieId: 'movie/douban/1' },
    { kind: 'ACTED_IN', from: 'person/douban/404', to: 'movie/douban/1' },
    { kind: 'DIRECTED', from: 'person/name/文牧野', to: 'movie/douban/999' },
  ],
};

test('neo4jConfigFromEnv: reads the variables, defaults the user, errors clearly', () => {
  assert.deepEqual(neo4jConfigFromEnv({ NEO4J_URI: 'bolt://h:7687', NEO4J_USER: 'u', NEO4J_PASSWORD: 'p' }), {
    uri: 'bolt://h:7687',
    user: 'u',
    password: 'p',
  });
  assert.deepEqual(neo4jConfigFromEnv({ NEO4J_URI: 'neo4j+s://h', NEO4J_PASSWORD: 'p', NEO4J_DATABASE: 'films' }), {
    uri: 'neo4j+s://h',
    user: 'neo4j',
    password: 'p',
    database: 'films',
  });
  const usage = (env: NodeJS.ProcessEnv, re: RegExp) =>
    assert.throws(() => neo4jConfigFromEnv(env), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message));
  usage({}, /^neo4j: NEO4J_URI is not set \(also NEO4J_USER, NEO4J_PASSWORD\)$/);
  usage({ NEO4J_URI: '  ' }, /NEO4J_URI is not set/);
  usage({ NEO4J_URI: 'http://h:7474', NEO4J_PASSWORD: 'p' }, /must start with one of bolt:\/\//);
  usage({ NEO4J_URI: 'bolt://h' }, /NEO4J_PASSWORD is not set/);
  // a password in the URI is never echoed
  assert.throws(() => neo4jConfigFromEnv({ NEO4J_URI: 'http://u:secret@h' }), (e: Error) => !e.message.includes('secret'));
  assert.equal(redactUri('bolt://neo4j:secret@host:7687'), 'bolt://host:7687');
});

test('schema statements: named uniqueness constraints, the unused name index of earlier versions dropped, idempotent', () => {
  assert.deepEqual(schemaStatements(), [
    'CREATE CONSTRAINT filmkw_entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE',
    'CREATE CONSTRAINT filmkw_alias_name IF NOT EXISTS FOR (n:Alias) REQUIRE n.name IS UNIQUE',
    'DROP INDEX filmkw_entity_name IF EXISTS',
  ]);
});

test('MERGE statements: exact text, parameters only, labels from the enums', () => {
  assert.equal(
    entityMergeQuery('Movie'),
    [
      'UNWIND $rows AS row',
      'MERGE (n:Entity {id: row.id})',
      'WITH n, row, coalesce(n:Movie AND NOT (n:Person OR n:Character OR n:Genre) AND n.name = row.name AND n.aliases = row.aliases AND n.surfaces = row.surfaces',
      '  AND (n.movieId = row.movieId OR n.movieId IS NULL AND row.movieId IS NULL)',
      '  AND (n.sourceIds = row.sourceIds OR n.sourceIds IS NULL AND row.sourceIds IS NULL), false) AS same',
      'FOREACH (_ IN CASE WHEN same THEN [] ELSE [1] END |',
      '  SET n:Movie, n.name = row.name, n.aliases = row.aliases, n.surfaces = row.surfaces, n.movieId = row.movieId, n.sourceIds = row.sourceIds',
      '  REMOVE n:Person:Character:Genre)',
      'RETURN count(n) AS n, sum(CASE WHEN same THEN 0 ELSE 1 END) AS written',
    ].join('\n'),
  );
  assert.equal(
    relationMergeQuery('DIRECTED'),
    'UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})\nMATCH (b:Entity {id: row.to})\nMERGE (a)-[r:DIRECTED]->(b)\nRETURN count(r) AS n',
  );
  assert.equal(
    relationMergeQuery('PLAYED'),
    'UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})\nMATCH (b:Entity {id: row.to})\nMERGE (a)-[r:PLAYED {movieId: row.movieId}]->(b)\nRETURN count(r) AS n',
  );
  assert.equal(
    relationMergeQuery('ALIAS'),
    'UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})\nMERGE (x:Alias {name: row.to})\nMERGE (a)-[r:ALIAS]->(x)\nRETURN count(r) AS n',
  );
  // anything outside the enums is refused before it can reach a statement
  assert.throws(() => entityMergeQuery('Movie) DETACH DELETE n //' as EntityKind), /not an entity kind/);
  assert.throws(() => relationMergeQuery('KNOWS]->() //' as RelationKind), /not a relation kind/);
  assert.match(readPageQuery(), /\[\(n\)-\[r:DIRECTED\|WROTE\|ACTED_IN\|HAS_GENRE\|PLAYED\]->\(b:Entity\) \| \[type\(r\), b\.id, r\.movieId\]\] AS rels/);
  assert.match(readPageQuery(), /WHERE n\.id > \$after\nWITH n ORDER BY n\.id ASC LIMIT \$limit/);
  // the order of WITH ... ORDER BY does not carry over to RETURN: the rows themselves must be ordered
  assert.match(readPageQuery(), /\nRETURN [^]*\nORDER BY id ASC$/);
  assert.equal(readCountQuery(), "MATCH (n:Entity) WHERE n.id > '' RETURN count(n) AS n");
  const s = statsQueries();
  assert.equal(s.entities.Character, 'MATCH (n:Entity:Character) RETURN count(n) AS n');
  assert.equal(s.relations.ALIAS, 'MATCH (:Entity)-[r:ALIAS]->(:Alias) RETURN count(r) AS n');
  assert.equal(s.relations.PLAYED, 'MATCH (:Entity)-[r:PLAYED]->(:Entity) RETURN count(r) AS n');
  const w0 = sweepQueries();
  assert.equal(w0.relations('DIRECTED'), "MATCH (a:Entity)-[r:DIRECTED]->(x:Entity) WHERE a.id > '' RETURN a.id AS from, x.id AS to, coalesce(r.movieId, '') AS movieId");
  // the stale-data sweep: fixed texts, data only in parameters, the relation type from the enum
  const w = sweepQueries();
  assert.equal(w.relations('PLAYED'), "MATCH (a:Entity)-[r:PLAYED]->(x:Entity) WHERE a.id > '' RETURN a.id AS from, x.id AS to, coalesce(r.movieId, '') AS movieId");
  assert.equal(w.relations('ALIAS'), "MATCH (a:Entity)-[r:ALIAS]->(x:Alias) WHERE a.id > '' RETURN a.id AS from, x.name AS to, '' AS movieId");
  assert.equal(
    w.deleteRelations('ACTED_IN'),
    "UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})-[r:ACTED_IN]->(x:Entity {id: row.to})\nUSING INDEX SEEK a:Entity(id) USING INDEX SEEK x:Entity(id)\nWHERE coalesce(r.movieId, '') = row.movieId\nDELETE r\nRETURN count(*) AS n",
  );
  assert.equal(
    w.deleteRelations('PLAYED'),
    "UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})-[r:PLAYED]->(x:Entity {id: row.to})\nUSING INDEX SEEK a:Entity(id) USING INDEX SEEK x:Entity(id)\nWHERE coalesce(r.movieId, '') = row.movieId\nDELETE r\nRETURN count(*) AS n",
  );
  assert.equal(
    w.deleteRelations('ALIAS'),
    'UNWIND $rows AS row\nMATCH (a:Entity {id: row.from})-[r:ALIAS]->(x:Alias {name: row.to})\nUSING INDEX SEEK a:Entity(id) USING INDEX SEEK x:Alias(name)\nDELETE r\nRETURN count(*) AS n',
  );
  assert.match(w.deleteNodes, /^UNWIND \$ids AS id\nMATCH \(n:Entity \{id: id\}\)\nUSING INDEX SEEK n:Entity\(id\)\nWHERE NOT EXISTS \{ MATCH \(n\)-\[r\]-\(\) WHERE NOT type\(r\) IN \$types \}\nDETACH DELETE n/);
  assert.throws(() => w.relations('KNOWS]->() //' as RelationKind), /not a relation kind/);
});

test('planImport: batches, exact row shapes, skips reported with reasons', () => {
  const plan = planImport(TOY, 2);
  assert.equal(plan.entities, 5);
  assert.equal(plan.relations, 7);
  assert.deepEqual(plan.skipped, [
    { reason: 'entity id repeated with a different kind, name or movieId (first kept)', count: 1, examples: ['person/douban/11'] },
    { reason: 'relation source is not an entity of the data', count: 1, examples: ['person/douban/404 ACTED_IN movie/douban/1'] },
    { reason: 'relation target is not an entity of the data', count: 1, examples: ['person/name/文牧野 DIRECTED movie/douban/999'] },
  ]);
  const batches = [...plan.batches()];
  assert.deepEqual(
    batches.map((b) => [b.phase, b.kind, b.rows.length]),
    [
      ['entities', 'Movie', 1],
      ['entities', 'Person', 2],
      ['entities', 'Character', 1],
      ['entities', 'Genre', 1],
      ['relations', 'DIRECTED', 1],
      ['relations', 'WROTE', 1],
      ['relations', 'ACTED_IN', 1],
      ['relations', 'HAS_GENRE', 1],
      ['relations', 'ALIAS', 2],
      ['relations', 'PLAYED', 1],
    ],
  );
  assert.deepEqual(batches[0].rows, [
    { id: 'movie/douban/1', name: '我不是药神', aliases: ['Dying to Survive', '药神'], surfaces: ['我不是药神'], movieId: null, sourceIds: null },
  ]);
  assert.deepEqual(batches[2].rows, [
    { id: 'character/movie/douban/1/程勇', name: '程勇', aliases: [], surfaces: ['程勇'], movieId: 'movie/douban/1', sourceIds: null },
  ]);
  assert.deepEqual(batches[4].rows, [{ from: 'person/name/文牧野', to: 'movie/douban/1' }]);
  assert.deepEqual(batches[8].rows, [
    { from: 'movie/douban/1', to: 'Dying to Survive' },
    { from: 'movie/douban/1', to: '药神' },
  ]);
  assert.deepEqual(batches[9].rows, [{ from: 'person/douban/11', to: 'character/movie/douban/1/程勇', movieId: 'movie/douban/1' }]);
  // PLAYED without a movie is keyed on "" (MERGE cannot key on null)
  const noMovie = planImport({ entities: TOY.entities.slice(0, 4), relations: [{ kind: 'PLAYED', from: 'person/douban/11', to: 'character/movie/douban/1/程勇' }] });
  assert.deepEqual([...noMovie.batches()].at(-1)!.rows, [{ from: 'person/douban/11', to: 'character/movie/douban/1/程勇', movieId: '' }]);
  // statements carry no data: every value travels in $rows
  for (const b of batches) {
    assert.deepEqual([...b.query.matchAll(/\$(\w+)/g)].map((m) => m[1]), ['rows']);
    for (const row of b.rows) for (const v of Object.values(row).flat()) if (typeof v === 'string' && v.length > 1) assert.ok(!b.query.includes(v), v);
  }
  // what the sweep keeps: the entity ids and the relation keys of the rows written
  const keep = plan.keep();
  assert.deepEqual([...keep.ids].sort(), [...new Set(batches.filter((b) => b.phase === 'entities').flatMap((b) => (b.rows as EntityRow[]).map((r) => r.id)))].sort());
  assert.deepEqual([...keep.relations.get('PLAYED')!], [relationKey('person/douban/11', 'character/movie/douban/1/程勇', 'movie/douban/1')]);
  assert.deepEqual([...keep.relations.get('ALIAS')!], [relationKey('movie/douban/1', 'Dying to Survive', ''), relationKey('movie/douban/1', '药神', '')]);
  // a merged entity's sourceIds travel sorted, with its own id; none when they name no other id
  const merged = planImport({
    entities: [
      { id: 'person/douban/7', kind: 'Person', name: '张艺谋', surfaces: [], aliases: [], sourceIds: ['person/name/张艺谋'] },
      { id: 'person/douban/8', kind: 'Person', name: '巩俐', surfaces: [], aliases: [], sourceIds: ['person/douban/8'] },
    ],
    relations: [],
  });
  assert.deepEqual(
    [...merged.batches()][0].rows.map((r) => (r as EntityRow).sourceIds),
    [['person/douban/7', 'person/name/张艺谋'], null],
  );
  assert.throws(() => planImport(TOY, 0), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE');
  assert.equal(NEO4J_DEFAULTS.batchSize, 5000);
});

/** The KgData the graph holds after writing a plan (what readKgFromNeo4j returns, in any order). */
function planContent(data: KgData): KgData {
  const out: KgData = { entities: [], relations: [] };
  for (const b of planImport(data, 3).batches()) {
    for (const row of b.rows) {
      if (b.phase === 'entities') {
        const r = row as { id: string; name: string; aliases: string[]; surfaces: string[]; movieId: string | null };
        out.entities.push({ id: r.id, kind: b.kind as EntityKind, name: r.name, aliases: r.aliases, surfaces: r.surfaces, ...(r.movieId !== null ? { movieId: r.movieId } : {}) });
      } else {
        const r = row as { from: string; to: string; movieId?: string };
        out.relations.push({ kind: b.kind as RelationKind, from: r.from, to: r.to, ...(r.movieId ? { movieId: r.movieId } : {}) });
      }
    }
  }
  return out;
}

test('planImport follows the embedded store: same stats and content hash as KgStore.fromData', () => {
  const data: KgData = {
    entities: [
      ...TOY.entities.slice(0, 5),
      // a compatible duplicate is merged (surfaces united), as in the store
      { id: 'person/douban/11', kind: 'Person', name: '徐峥', surfaces: ['徐 峥', '徐峥'], aliases: [] },
      { id: 'character/movie/douban/404/x', kind: 'Character', name: 'x', surfaces: [], aliases: [], movieId: 'movie/douban/404' },
    ],
    relations: [
      ...TOY.relations,
      { kind: 'ACTED_IN', from: 'person/douban/11', to: 'movie/douban/1' },
      { kind: 'PLAYED', from: 'person/douban/11', to: 'character/movie/douban/1/程勇' },
      { kind: 'PLAYED', from: 'person/douban/11', to: 'character/movie/douban/1/程勇', movieId: 'movie/douban/404' },
      { kind: 'DIRECTED', from: 'person/douban/11', to: 'person/douban/11' },
    ],
  };
  const store = KgStore.fromData(data, { dangling: 'drop' });
  const graph = KgStore.fromData(planContent(data));
  assert.deepEqual(graph.stats(), store.stats());
  assert.equal(graph.contentHash, store.contentHash);
  assert.deepEqual(
    planImport(data).skipped.map((s) => [s.reason, s.count]),
    [
      ["character's movie is not an entity of the data (movieId not written)", 1],
      ['relation source is not an entity of the data', 1],
      ['relation target is not an entity of the data', 1],
      ['relation movie is not an entity of the data', 1],
    ],
  );
});

test('planImport follows the embedded store on the synthetic KG and on random messy data (property)', () => {
  const synth = syntheticKg({ entities: 3000, relations: 30_000, seed: 7 });
  assert.equal(KgStore.fromData(planContent(synth)).contentHash, KgStore.fromData(synth).contentHash);

  const ids = ['movie/1', 'movie/2', 'person/1', 'person/2', 'character/movie/1/c', 'genre/g', 'person/404'];
  const kindOfId = (id: string): EntityKind =>
    id.startsWith('movie') ? 'Movie' : id.startsWith('person') ? 'Person' : id.startsWith('character') ? 'Character' : 'Genre';
  const name = fc.constantFrom('甲', '乙', 'a b', "o'q", '');
  const entity = fc.record({ id: fc.constantFrom(...ids.slice(0, 6)), surfaces: fc.array(name, { maxLength: 3 }), aliases: fc.array(name, { maxLength: 2 }) });
  const relation = fc.record({
    kind: fc.constantFrom(...(['DIRECTED', 'WROTE', 'ACTED_IN', 'HAS_GENRE', 'ALIAS', 'PLAYED'] as const)),
    from: fc.constantFrom(...ids),
    to: fc.constantFrom(...ids, 'alias x'),
    movie: fc.constantFrom(undefined, 'movie/1', 'movie/404'),
  });
  fc.assert(
    fc.property(fc.array(entity, { maxLength: 12 }), fc.array(relation, { maxLength: 25 }), (es, rs) => {
      const data: KgData = {
        // same id ⇒ same kind, name and movieId here (the store refuses conflicting rows)
        entities: es.map((e) => ({ id: e.id, kind: kindOfId(e.id), name: e.id, surfaces: e.surfaces, aliases: e.aliases, ...(e.id.startsWith('character') ? { movieId: 'movie/1' } : {}) })),
        relations: rs.map((r) => ({ kind: r.kind, from: r.from, to: r.to, ...(r.kind === 'PLAYED' && r.movie ? { movieId: r.movie } : {}) })),
      };
      const store = KgStore.fromData(data, { dangling: 'drop' });
      const graph = KgStore.fromData(planContent(data));
      assert.deepEqual(graph.stats(), store.stats());
      assert.equal(graph.contentHash, store.contentHash);
    }),
    { numRuns: 300, seed: 42 },
  );
});

test('planImport: movieId on a relation other than PLAYED is reported and not written', () => {
  const data: KgData = { entities: TOY.entities.slice(0, 3), relations: [{ kind: 'DIRECTED', from: 'person/name/文牧野', to: 'movie/douban/1', movieId: 'movie/douban/1' }] };
  const plan = planImport(data);
  assert.deepEqual(plan.skipped, [
    { reason: 'movieId on a relation other than PLAYED is not stored (relation written without it)', count: 1, examples: ['person/name/文牧野 DIRECTED movie/douban/1 (movie movie/douban/1)'] },
  ]);
  assert.deepEqual([...plan.batches()].at(-1)!.rows, [{ from: 'person/name/文牧野', to: 'movie/douban/1' }]);
});

test('planImport: a large input is cut into batches of batchSize', () => {
  const entities = Array.from({ length: 12_001 }, (_, i) => ({ id: `genre/g${i}`, kind: 'Genre' as const, name: `g${i}`, surfaces: [], aliases: [] }));
  const sizes = [...planImport({ entities, relations: [] }).batches()].map((b) => b.rows.length);
  assert.deepEqual(sizes, [5000, 5000, 2001]);
});

function neo(message: string, code: string): Neo4jError {
  return new Neo4jError(message, code, '50N42', 'error: general processing exception');
}

test('classifyNeo4jError: table', () => {
  const uri = 'bolt://neo4j:pw@db.example:7687';
  const rows: [unknown, { phase?: 'connect' | 'schema' | 'write' | 'read' }, string, RegExp][] = [
    [neo('The client is unauthorized due to authentication failure.', 'Neo.ClientError.Security.Unauthorized'), {}, 'NEO4J_AUTH', /^neo4j: authentication failed for user "neo4j" at bolt:\/\/db\.example:7687: .*check NEO4J_USER and NEO4J_PASSWORD$/],
    [neo('too many failed attempts', 'Neo.ClientError.Security.AuthenticationRateLimit'), { phase: 'write' }, 'NEO4J_AUTH', /authentication failed/],
    [neo('Failed to connect to server. Please ensure ... Caused by: connect ECONNREFUSED 127.0.0.1:7687', 'ServiceUnavailable'), {}, 'NEO4J_UNAVAILABLE', /^neo4j: cannot connect to bolt:\/\/db\.example:7687: is the server running\? \(connect ECONNREFUSED 127\.0\.0\.1:7687\)$/],
    [neo('Connection was closed by server', 'ServiceUnavailable'), {}, 'NEO4J_UNAVAILABLE', /is the server running\?/],
    [neo('Connection acquisition timed out in 1500 ms.', 'N/A'), {}, 'NEO4J_UNAVAILABLE', /is the server running\?/],
    [neo('session expired', 'SessionExpired'), {}, 'NEO4J_UNAVAILABLE', /is the server running\?/],
    [Object.assign(new Error('getaddrinfo ENOTFOUND nohost'), { code: 'ENOTFOUND' }), {}, 'NEO4J_UNAVAILABLE', /ENOTFOUND/],
    [neo('Connection was closed by server', 'ServiceUnavailable'), { phase: 'write' }, 'NEO4J_FAILED', /^neo4j: the import at bolt:\/\/db\.example:7687 lost the server after retries: Connection was closed by server \[ServiceUnavailable\]; the import can be re-run and converges to the same graph \(MERGE\)$/],
    [neo('LockClient[1] can\'t wait on resource', 'Neo.TransientError.Transaction.DeadlockDetected'), { phase: 'write' }, 'NEO4J_FAILED', /failed after retries: .*DeadlockDetected\]; the import can be re-run/],
    [neo('Invalid input', 'Neo.ClientError.Statement.SyntaxError'), { phase: 'write' }, 'NEO4J_FAILED', /SyntaxError/],
    [neo('Invalid input', 'Neo.ClientError.Statement.SyntaxError'), {}, 'NEO4J_FAILED', /^neo4j: connecting at bolt:\/\/db\.example:7687 failed: Invalid input \[Neo\.ClientError\.Statement\.SyntaxError\]$/],
    [neo('Database does not exist. Database name: \'films\'.', 'Neo.ClientError.Database.DatabaseNotFound'), {}, 'NEO4J_FAILED', /database "films" does not exist .*NEO4J_DATABASE/],
    [neo('Connection was closed by server', 'ServiceUnavailable'), { phase: 'read' }, 'NEO4J_FAILED', /reading the KG .*the read can be retried$/],
    [new TypeError('boom'), { phase: 'write' }, 'NEO4J_FAILED', /boom/],
  ];
  for (const [err, ctx, code, re] of rows) {
    const f = classifyNeo4jError(err, { uri, user: 'neo4j', database: 'films', ...ctx });
    assert.ok(f instanceof FilmkwError);
    assert.equal(f.code, code, `${(err as Error).message} → ${f.message}`);
    assert.match(f.message, re);
    assert.ok(!f.message.includes('\n') && !f.message.includes('pw@'), f.message);
    assert.equal(f.cause, err);
  }
  const own = new FilmkwError('USAGE', 'x');
  assert.equal(classifyNeo4jError(own), own);
  assert.equal(classifyNeo4jError(neo('x', 'ServiceUnavailable')).exitCode, 4);
  assert.equal(classifyNeo4jError(neo('x', 'Neo.ClientError.Security.Unauthorized')).exitCode, 5);
  assert.equal(classifyNeo4jError(neo('x', 'ServiceUnavailable'), { phase: 'write' }).exitCode, 6);
});

/** `p` rejects with FilmkwError `code`, one line matching `re` (which names the cause: refused, timed out, …). */
async function rejectsWith(p: Promise<unknown>, code: string, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof FilmkwError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    assert.ok(!e.message.includes('\n'));
    return true;
  });
}

test('connection refused: every job fails fast with NEO4J_UNAVAILABLE naming the URI', async () => {
  const cfg = { uri: 'bolt://127.0.0.1:1', user: 'neo4j', password: 'x' };
  const re = /^neo4j: cannot connect to bolt:\/\/127\.0\.0\.1:1: is the server running\? \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/;
  await rejectsWith(writeKgToNeo4j(TOY, cfg, { tuning: PEER }), 'NEO4J_UNAVAILABLE', re);
  await rejectsWith(readKgFromNeo4j(cfg, { tuning: PEER }), 'NEO4J_UNAVAILABLE', re);
  await rejectsWith(neo4jStats(cfg, { tuning: PEER }), 'NEO4J_UNAVAILABLE', re);
  await rejectsWith(writeKgToNeo4j(TOY, { ...cfg, uri: 'neo4j://127.0.0.1:1' }, { tuning: PEER }), 'NEO4J_UNAVAILABLE', /ECONNREFUSED/);
});

test('a bad URI is a usage error', async () => {
  await rejectsWith(neo4jStats({ uri: 'http://127.0.0.1:1', user: 'u', password: 'p' }), 'USAGE', /bad NEO4J_URI/);
});

async function fakeServer(onConnection: (s: net.Socket) => void): Promise<{ uri: string; open: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    onConnection(s);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  return {
    uri: `bolt://127.0.0.1:${port}`,
    open: () => sockets.size,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => srv.close(() => r()));
    },
  };
}

test('a server that closes the socket mid-handshake: NEO4J_UNAVAILABLE', async () => {
  const srv = await fakeServer((s) => s.once('data', () => s.destroy()));
  try {
    await rejectsWith(
      writeKgToNeo4j(TOY, { uri: srv.uri, user: 'neo4j', password: 'x' }, { tuning: PEER }),
      'NEO4J_UNAVAILABLE',
      /^neo4j: cannot connect to bolt:\/\/127\.0\.0\.1:\d+: is the server running\? \(Connection was closed by server\)$/,
    );
  } finally {
    await srv.close();
  }
});

test('a server that accepts and never answers: NEO4J_UNAVAILABLE after the acquisition timeout, and no socket is left open', async () => {
  const srv = await fakeServer((s) => s.resume()); // reads (so that it sees the client's close) and never answers
  try {
    await rejectsWith(neo4jStats({ uri: srv.uri, user: 'neo4j', password: 'x' }, { tuning: FAST }), 'NEO4J_UNAVAILABLE', /is the server running\? \(Connection acquisition timed out/);
    // the driver leaves its connection in the handshake open; the job destroys it (else the process would never exit)
    await until('the job to close its connection to the silent peer', () => srv.open() === 0);
  } finally {
    await srv.close();
  }
});

test('a server that answers the handshake with garbage: NEO4J_UNAVAILABLE', async () => {
  const srv = await fakeServer((s) => s.once('data', () => s.write(Buffer.from([0, 0, 9, 9]))));
  try {
    await rejectsWith(neo4jStats({ uri: srv.uri, user: 'neo4j', password: 'x' }, { tuning: PEER }), 'NEO4J_UNAVAILABLE', /is the server running\? \(Unknown Bolt protocol version: 9\.9; is it a Neo4j 5 server speaking Bolt\?\)$/);
  } finally {
    await srv.close();
  }
});
