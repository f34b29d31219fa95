/**
 * Integration tests of src/kg/neo4j.ts against a real Neo4j 5 server. They run only when NEO4J_URI is
 * set (with NEO4J_USER, NEO4J_PASSWORD, optionally NEO4J_DATABASE) and are skipped otherwise.
 *
 * WARNING: point them at a scratch database. They delete every :Entity and :Alias node (filmkw's
 * nodes) in the target database before and after running.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import neo4j from 'neo4j-driver';
import { FilmkwError } from '../../src/errors.js';
import { KgStore } from '../../src/kg/store.js';
import type { KgData } from '../../src/kg/model.js';
import {
  clearKgInNeo4j,
  neo4jConfigFromEnv,
  neo4jStats,
  readKgFromNeo4j,
  writeKgToNeo4j,
  type Neo4jConfig,
} from '../../src/kg/neo4j.js';
import { demoKg } from '../fixtures/neo4j/demo-kg.js';

const SKIP = !process.env.NEO4J_URI && 'set NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD to run the Neo4j integration tests';
const cfg = (): Neo4jConfig => neo4jConfigFromEnv();

before(async () => {
  if (!SKIP) await clearKgInNeo4j(cfg());
});
after(async () => {
  if (!SKIP) await clearKgInNeo4j(cfg());
});

test('demo KG imported twice: stats equal the embedded store both times, read back gives the same content hash', { skip: SKIP }, async () => {
  const data = demoKg();
  const store = KgStore.fromData(data);
  const first = await writeKgToNeo4j(data, cfg(), { batchSize: 101 });
  assert.deepEqual(first.skipped, []);
  assert.deepEqual(first.created, { nodes: store.stats().entities.total, relationships: store.stats().relations.total });
  const s1 = await neo4jStats(cfg());
  assert.deepEqual(s1, store.stats());
  const second = await writeKgToNeo4j(data, cfg());
  assert.deepEqual(second.created, { nodes: 0, relationships: 0 });
  assert.deepEqual(await neo4jStats(cfg()), s1);
  const back = await readKgFromNeo4j(cfg(), { pageSize: 37 });
  assert.equal(KgStore.fromData(back).contentHash, store.contentHash);
});

test('schema: the uniqueness constraints exist after an import', { skip: SKIP }, async () => {
  const c = cfg();
  const driver = neo4j.driver(c.uri, neo4j.auth.basic(c.user, c.password));
  try {
    const { records } = await driver.executeQuery('SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties RETURN name, type, labelsOrTypes, properties', {}, { database: c.database });
    const byName = new Map(records.map((r) => [r.get('name') as string, r.toObject()]));
    assert.deepEqual(byName.get('filmkw_entity_id')?.labelsOrTypes, ['Entity']);
    assert.deepEqual(byName.get('filmkw_entity_id')?.properties, ['id']);
    assert.match(String(byName.get('filmkw_entity_id')?.type), /UNIQUENESS/);
    assert.deepEqual(byName.get('filmkw_alias_name')?.labelsOrTypes, ['Alias']);
  } finally {
    await driver.close();
  }
});

test('hostile names, PLAYED with and without a movie, self-relations and a 20,000-neighbour hub round-trip exactly', { skip: SKIP }, async () => {
  await clearKgInNeo4j(cfg());
  const weird = ["x'}) DETACH DELETE n //", 'a`b`:Movie', 'line\nbreak "q" \\ back', '😀 名字', '$rows'];
  const data: KgData = { entities: [], relations: [] };
  data.entities.push({ id: 'genre/剧情', kind: 'Genre', name: '剧情', surfaces: ['剧情'], aliases: [] });
  data.entities.push({ id: 'person/douban/1', kind: 'Person', name: '某人', surfaces: ['某人'], aliases: [] });
  for (let i = 0; i < 20_000; i++) {
    const id = `movie/douban/${i}`;
    const w = weird[i % weird.length];
    data.entities.push({ id, kind: 'Movie', name: `${w}${i}`, surfaces: [`${w}${i}`], aliases: i % 100 === 0 ? [`alias ${i}`] : [] });
    data.relations.push({ kind: 'HAS_GENRE', from: id, to: 'genre/剧情' });
    if (i % 100 === 0) data.relations.push({ kind: 'ALIAS', from: id, to: `alias ${i}` });
  }
  data.entities.push({ id: 'character/movie/douban/1/甲', kind: 'Character', name: '甲', surfaces: ['甲'], aliases: [], movieId: 'movie/douban/1' });
  data.relations.push({ kind: 'PLAYED', from: 'person/douban/1', to: 'character/movie/douban/1/甲', movieId: 'movie/douban/1' });
  data.relations.push({ kind: 'PLAYED', from: 'person/douban/1', to: 'character/movie/douban/1/甲', movieId: 'movie/douban/2' });
  data.relations.push({ kind: 'PLAYED', from: 'person/douban/1', to: 'character/movie/douban/1/甲' });
  data.relations.push({ kind: 'DIRECTED', from: 'person/douban/1', to: 'person/douban/1' });
  const store = KgStore.fromData(data);
  await writeKgToNeo4j(data, cfg());
  await writeKgToNeo4j(data, cfg(), { batchSize: 777 });
  assert.deepEqual(await neo4jStats(cfg()), store.stats());
  const back = await readKgFromNeo4j(cfg());
  assert.equal(KgStore.fromData(back).contentHash, store.contentHash);
});

test('wrong password: NEO4J_AUTH (exit 5) with one clear line', { skip: SKIP }, async () => {
  await assert.rejects(neo4jStats({ ...cfg(), password: `${cfg().password}-wrong` }), (e: unknown) => {
    assert.ok(e instanceof FilmkwError);
    assert.equal(e.code, 'NEO4J_AUTH');
    assert.match(e.message, /^neo4j: authentication failed for user .*check NEO4J_USER and NEO4J_PASSWORD$/);
    assert.ok(!e.message.includes('\n'));
    return true;
  });
});

test('unknown database: NEO4J_FAILED naming NEO4J_DATABASE', { skip: SKIP }, async () => {
  await assert.rejects(neo4jStats({ ...cfg(), database: 'filmkw-no-such-db' }), (e: unknown) => {
    assert.ok(e instanceof FilmkwError);
    assert.equal(e.code, 'NEO4J_FAILED', e.message);
    assert.match(e.message, /database "filmkw-no-such-db" does not exist .*NEO4J_DATABASE/);
    return true;
  });
});
