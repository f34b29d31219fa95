/**
 * What a user does with Neo4j, through bin/filmkw (build first) against the real server of NEO4J_URI
 * (`npm run test:neo4j`; skipped without NEO4J_URI unless FILMKW_REQUIRE_NEO4J=1), on the merged real KG
 * (the three Douban sources of ../shared/data/kg and the demo KG, README "Build the knowledge graph"):
 *   - `kg import --neo4j` twice: the second creates and writes nothing; `kg stats --neo4j` equals
 *     `kg stats --kg <snapshot>` of the same sources, entities and relations by kind;
 *   - `kg import --neo4j` onto the graph an import before entity resolution wrote (a node per merged id,
 *     junk aliases) removes the duplicates and leaves the snapshot's graph (same stats, same content hash);
 *   - `tag --neo4j` is byte-identical to `tag --kg <snapshot>` on the 180 film-dev texts, with one progress
 *     line for the read when stderr is not a terminal; the import's `totalMs` covers its read and write;
 *   - `dict export --neo4j` is byte-identical to `dict export --kg <snapshot>`;
 *   - wrong password exits 5, unknown database exits 6, one `filmkw: neo4j: …` line each.
 * It deletes filmkw's nodes of the target database first (refused when it holds anything else).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearKgInNeo4j, neo4jConfigFromEnv, neo4jStats, readKgFromNeo4j, writeKgToNeo4j } from '../../src/kg/neo4j.js';
import { loadKg } from '../../src/kg/load.js';
import { KgStore } from '../../src/kg/store.js';
import type { KgData, Relation } from '../../src/kg/model.js';
import { cli, neo4jSkip, oneLine, ROOT, serverEnv } from '../fixtures/neo4j/server.js';

const DATA = join(ROOT, '..', 'shared', 'data');
const SOURCES = [
  `openkg:${join(DATA, 'kg', 'openkg-douban-movie')}`,
  `kgqa:${join(DATA, 'kg', 'douban-kgqa-small')}`,
  `douban-csv:${join(DATA, 'kg', 'douban-movies-2065', 'douban_all_movies.csv')}`,
  'demo',
];
const DEV = join(DATA, 'annotated', 'film-dev.jsonl');
const SKIP =
  neo4jSkip() ||
  (!existsSync(join(DATA, 'kg', 'openkg-douban-movie')) || !existsSync(DEV) ? `the merged-KG Neo4j tests need ../shared/data (kg/ and annotated/film-dev.jsonl), absent here` : false) ||
  (!existsSync(join(ROOT, 'dist', 'cli', 'main.js')) ? 'needs `npm run build` (dist/)' : false);

let dir = '';
let snap = '';

before(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'filmkw-neo4j-merged-'));
  snap = join(dir, 'merged.fkg');
  const r = await cli(['kg', 'import', '--out', snap, ...SOURCES], {});
  assert.equal(r.status, 0, r.stderr);
  await clearKgInNeo4j(neo4jConfigFromEnv());
});
after(async () => {
  if (SKIP) return;
  rmSync(dir, { recursive: true, force: true });
  await clearKgInNeo4j(neo4jConfigFromEnv());
});

test('merged KG: kg import --neo4j twice (the second writes nothing); kg stats --neo4j equals kg stats --kg <snapshot> by kind', { skip: SKIP }, async () => {
  const want = await cli(['kg', 'stats', '--kg', snap, '--json'], {});
  assert.equal(want.status, 0, want.stderr);
  const expected = JSON.parse(want.stdout);
  assert.ok(expected.entities.total > 40_000 && expected.relations.total > 100_000, want.stdout);

  const first = await cli(['kg', 'import', '--neo4j', '--json', ...SOURCES], serverEnv());
  assert.equal(first.status, 0, first.stderr);
  const s1 = JSON.parse(first.stdout);
  assert.deepEqual(s1.output.created, { nodes: expected.entities.total, relationships: expected.relations.total });
  assert.deepEqual(s1.output.skipped, []);
  // the whole run's time, not only reading and merging the sources (was "(7577 ms)" for a 36 s run)
  assert.ok(s1.totalMs >= s1.ms + s1.output.writeMs, `totalMs ${s1.totalMs} < ms ${s1.ms} + writeMs ${s1.output.writeMs}`);
  const stats1 = await cli(['kg', 'stats', '--neo4j', '--json'], serverEnv());
  assert.equal(stats1.status, 0, stats1.stderr);
  assert.deepEqual(JSON.parse(stats1.stdout), expected);

  const second = await cli(['kg', 'import', '--neo4j', '--json', ...SOURCES], serverEnv());
  assert.equal(second.status, 0, second.stderr);
  const s2 = JSON.parse(second.stdout);
  assert.deepEqual(s2.output.created, { nodes: 0, relationships: 0 });
  assert.deepEqual(s2.output.written, { nodes: 0, properties: 0 });
  assert.equal(s2.contentHash, s1.contentHash);
  const stats2 = await cli(['kg', 'stats', '--neo4j', '--json'], serverEnv());
  assert.deepEqual(JSON.parse(stats2.stdout), expected);
  const human = await cli(['kg', 'stats', '--neo4j'], serverEnv());
  const humanSnap = await cli(['kg', 'stats', '--kg', snap], {});
  assert.match(human.stdout, /^kg stats: neo4j bolt:\/\/\S+\n  entities  \d+\n/);
  assert.equal(human.stdout.replace(/^kg stats: .*\n/, ''), humanSnap.stdout.replace(/^kg stats: .*\n/, ''));
  console.log(
    `merged KG ${expected.entities.total} entities, ${expected.relations.total} relations: import ${s1.output.writeMs} ms ` +
      `(${Math.round((expected.relations.total / s1.output.writeMs) * 1000)} relations/s), re-run ${s2.output.writeMs} ms`,
  );
});

test('merged KG: tag --neo4j is byte-identical to tag --kg <snapshot> on the 180 film-dev texts; dict export too', { skip: SKIP }, async () => {
  const args = ['--id-field', 'id', '--explain', DEV];
  const [viaNeo, viaSnap] = await Promise.all([cli(['tag', '--neo4j', ...args], serverEnv()), cli(['tag', '--kg', snap, ...args], {})]);
  assert.equal(viaNeo.status, 0, viaNeo.stderr);
  assert.equal(viaSnap.status, 0, viaSnap.stderr);
  const lines = viaSnap.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 180);
  assert.ok(lines.every((l) => JSON.parse(l).keywords.length > 0), 'every text gets keywords');
  assert.ok(viaSnap.stdout === viaNeo.stdout, 'tag --neo4j and tag --kg differ');
  // stderr is not a terminal: one progress line for the read, at its end (was one per page of 1,000)
  const progress = viaNeo.stderr.split('\n').filter((l) => l.startsWith('kg: neo4j '));
  assert.equal(progress.length, 1, viaNeo.stderr);
  assert.match(progress[0], /^kg: neo4j entities (\d+)\/\1$/u);

  const dNeo = join(dir, 'neo4j.dict');
  const dSnap = join(dir, 'snapshot.dict');
  const [a, b] = await Promise.all([cli(['dict', 'export', '--neo4j', '--out', dNeo], serverEnv()), cli(['dict', 'export', '--kg', snap, '--out', dSnap], {})]);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(b.status, 0, b.stderr);
  const dict = readFileSync(dSnap);
  assert.ok(dict.toString('utf8').split('\n').length > 10_000, 'a dictionary of the merged KG');
  assert.ok(readFileSync(dNeo).equals(dict), 'dict export --neo4j and --kg differ');
});

test('merged KG: kg import --neo4j onto a database written before entity resolution (duplicate people, junk aliases) leaves the graph of an import onto an empty one', { skip: SKIP }, async () => {
  // the old graph: every merged person once more under each id it was merged from, with copies of its
  // credits (what filmkw wrote before issue 25), and the aliases a split left behind (台), 港))
  const store = await loadKg({ kg: snap });
  const data = store.toData();
  const credits = new Map<string, Relation[]>();
  for (const r of data.relations) {
    if (r.kind !== 'ACTED_IN' && r.kind !== 'DIRECTED' && r.kind !== 'WROTE') continue;
    const list = credits.get(r.from) ?? [];
    list.push(r);
    credits.set(r.from, list);
  }
  const old: KgData = { entities: data.entities.map(({ sourceIds: _ids, ...e }) => e), relations: [...data.relations] };
  let duplicates = 0;
  for (const e of data.entities) {
    for (const other of e.sourceIds ?? []) {
      if (other === e.id) continue;
      duplicates++;
      old.entities.push({ id: other, kind: e.kind, name: e.name, surfaces: e.surfaces, aliases: [] });
      for (const r of credits.get(e.id) ?? []) old.relations.push({ ...r, from: other });
    }
  }
  const movies = data.entities.filter((e) => e.kind === 'Movie').slice(0, 20);
  for (const m of movies) old.relations.push({ kind: 'ALIAS', from: m.id, to: '台)' }, { kind: 'ALIAS', from: m.id, to: '港)' });
  assert.ok(duplicates > 3000, `${duplicates} merged ids`);
  await writeKgToNeo4j(old, neo4jConfigFromEnv());
  const before = await neo4jStats(neo4jConfigFromEnv());
  assert.equal(before.entities.total, store.entityCount + duplicates);

  const r = await cli(['kg', 'import', '--neo4j', '--json', ...SOURCES], serverEnv());
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout).output;
  assert.equal(out.removed.nodes, duplicates);
  assert.equal(out.removed.aliases, 2);
  assert.equal(out.removed.keptForeign, 0);
  assert.deepEqual(await neo4jStats(neo4jConfigFromEnv()), store.stats());
  const want = await cli(['kg', 'stats', '--kg', snap, '--json'], {});
  const got = await cli(['kg', 'stats', '--neo4j', '--json'], serverEnv());
  assert.equal(got.stdout, want.stdout);
  assert.equal(KgStore.fromData(await readKgFromNeo4j(neo4jConfigFromEnv())).contentHash, store.contentHash);
  // and once more: nothing to do
  const again = await cli(['kg', 'import', '--neo4j', '--json', ...SOURCES], serverEnv());
  assert.deepEqual(JSON.parse(again.stdout).output.removed, { relationships: 0, nodes: 0, aliases: 0, keptForeign: 0 });
});

test('faults through the CLI on the real server: wrong password exits 5, unknown database exits 6, one line each', { skip: SKIP }, async () => {
  const env = serverEnv();
  const bad = { ...env, NEO4J_PASSWORD: `${env.NEO4J_PASSWORD}-wrong` };
  const noDb = { ...env, NEO4J_DATABASE: 'filmkwnosuchdb' };
  // Neo4j locks a user for a few seconds after 3 failed logins in a row (dbms.security.auth_max_failed_attempts):
  // one wrong password at a time, each followed by a good login, which resets the count
  for (const args of [['kg', 'stats', '--neo4j'], ['tag', '--neo4j', '--format', 'txt', 'README.md'], ['kg', 'import', '--neo4j', 'csv:kg/demo']]) {
    const r = await cli(args, bad);
    assert.equal(r.status, 5, r.stderr);
    oneLine(r.stderr, /^filmkw: neo4j: authentication failed for user "[^"]+" at bolt:\/\/\S+: .*\[Neo\.ClientError\.Security\.Unauthorized\]; check NEO4J_USER and NEO4J_PASSWORD$/);
    await neo4jStats(neo4jConfigFromEnv());
  }
  const runs = await Promise.all([
    cli(['kg', 'stats', '--neo4j'], noDb),
    cli(['dict', 'export', '--neo4j', '--out', join(dir, 'x.dict')], noDb),
    cli(['kg', 'import', '--neo4j', 'csv:kg/demo'], noDb),
  ]);
  for (const r of runs) {
    assert.equal(r.status, 6, r.stderr);
    oneLine(r.stderr, /^filmkw: neo4j: database "filmkwnosuchdb" does not exist at bolt:\/\/\S+ \(check NEO4J_DATABASE\)/);
  }
  assert.ok(!existsSync(join(dir, 'x.dict')));
});
