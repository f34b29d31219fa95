/**
 * importSources (src/kg/import.ts): source arguments and idempotence on the fixtures (the real data of
 * ../shared/data/kg: test/integration/kg/import-real-data.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importSources, importSummary, formatSummary, parseSource, SOURCE_PREFIXES } from '../../src/kg/import.js';
import { FilmkwError } from '../../src/errors.js';

const FIX = fileURLToPath(new URL('../fixtures/kg-sources/', import.meta.url));

test('parseSource: prefixes, and usage errors listing the valid ones', () => {
  assert.deepEqual(parseSource('kgqa:a:b.txt'), { kind: 'kgqa', path: 'a:b.txt', spec: 'kgqa:a:b.txt' });
  assert.deepEqual([...SOURCE_PREFIXES], ['openkg', 'kgqa', 'douban-csv', 'csv', 'html-list']);
  for (const bad of ['foo:x', 'x', 'csv:', 'CSV:x']) {
    assert.throws(
      () => parseSource(bad),
      (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /openkg:<dir>, kgqa:<file\|dir>, douban-csv:<file\|dir>, csv:<dir>, html-list:<file\|dir>/.test(e.message),
      bad,
    );
  }
});

test('import of the fixtures: same content hash whatever the source order; summary text', async () => {
  const a = await importSources([`openkg:${FIX}openkg`, `kgqa:${FIX}kgqa`, `douban-csv:${FIX}douban`, `csv:${FIX}csv-good`]);
  const b = await importSources([`csv:${FIX}csv-good`, `douban-csv:${FIX}douban`, `kgqa:${FIX}kgqa/movies.txt`, `openkg:${FIX}openkg`]);
  assert.equal(a.store.contentHash, b.store.contentHash);
  const s = importSummary(a, { snapshot: 'x.fkg' });
  assert.equal(s.skipped.total, 7);
  const text = formatSummary(s);
  assert.match(text, /^kg import: \d+ entities \(Movie \d+, Person \d+, Character \d+, Genre \d+\)$/m);
  assert.match(text, /kg import: skipped rows \(bad input\): 7\n/);
  assert.match(text, /openkg\/actor\.csv:6: hX/);
  assert.match(text, /content hash [0-9a-f]{64} \(read and merge \d+ ms\)\n$/);
  // the last line names each part and, when the CLI set it, the whole run (was: only the read, e.g. 7577 ms of a 36 s Neo4j import)
  const timed = { ...importSummary(a, { neo4j: 'bolt://x', writeMs: 28_400 }), ms: 7_577, totalMs: 36_210 };
  assert.match(formatSummary(timed), /content hash [0-9a-f]{64} \(read and merge 7577 ms, write 28400 ms, in all 36\.2 s\)\n$/);
});

test('missing source path is an input error naming it', async () => {
  await assert.rejects(importSources([`kgqa:${FIX}none.txt`]), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /none\.txt: no such file or directory/.test(e.message));
  await assert.rejects(importSources([`openkg:${FIX}kgqa`]), /Movie\.csv: no such file/);
});

test('a source in the wrong format (nothing readable) is an input error naming the expected format', async () => {
  await assert.rejects(
    importSources([`kgqa:${FIX}douban/movies.csv`]),
    (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /no readable record \(\d+ bad\); is it in the DouBan-KGQA JSON lines format\?/.test(e.message),
  );
});

test('a readable source with unparsable or partly bad records is imported, whatever the count of bad rows (kgqa, douban-csv, csv, openkg)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-import-'));
  const movie = (id: string, extra = '') => `{"id": "${id}", "name": "片${id}", "directors": [{"name": "导演${id}", "href": "/celebrity/${id}/"}]${extra}}`;
  // kgqa: 2 good lines and 2 unparsable ones (the audit repro: refused as "no readable record (2 bad)")
  const kq = join(dir, 'kq4.txt');
  writeFileSync(kq, [movie('1'), movie('2'), 'not json', 'not json either'].join('\n') + '\n');
  const a = await importSources([`kgqa:${kq}`]);
  assert.equal(a.store.stats().entities.byKind.Movie, 2);
  assert.deepEqual(a.report.sources, [{ source: `kgqa:${kq}`, records: 4 }]); // unparsable lines are records read (and skipped)
  assert.equal(importSummary(a).skipped.total, 2);
  // kgqa: one film with two nameless actors is one record skipped twice, and still a readable source
  const kq2 = join(dir, 'kq2.txt');
  writeFileSync(kq2, movie('3', ', "actors": [{"name": ""}, {"name": " "}]') + '\n');
  const b = await importSources([`kgqa:${kq2}`]);
  assert.equal(b.store.stats().entities.byKind.Movie, 1);
  assert.equal(importSummary(b).skipped.total, 2);
  // douban-csv: 1 good row and 2 unreadable ones (invalid UTF-8, an unclosed quote)
  const dc = join(dir, 'd.csv');
  writeFileSync(dc, Buffer.concat([Buffer.from('movie_id,title,directors\n1,甲片,张三\n2,'), Buffer.from([0xff, 0xfe]), Buffer.from(',李四\n3,"丙片,王五\n')]));
  const c = await importSources([`douban-csv:${dc}`]);
  assert.equal(c.store.stats().entities.byKind.Movie, 1);
  assert.deepEqual(c.report.sources[0].records, 3);
  // csv: 1 good entity, 2 unreadable rows
  const cs = join(dir, 'csv');
  mkdirSync(cs);
  writeFileSync(join(cs, 'entities.csv'), Buffer.concat([Buffer.from('id,kind,name,aliases,movie\n,Movie,甲片,,\n,Person,'), Buffer.from([0xff]), Buffer.from(',,\n,Person,"李四,,\n')]));
  writeFileSync(join(cs, 'relations.csv'), 'from,relation,to,movie\n');
  assert.equal((await importSources([`csv:${cs}`])).store.stats().entities.total, 1);
  // openkg: 1 good film, 2 unreadable Movie.csv rows
  const ok = join(dir, 'openkg');
  mkdirSync(ok);
  writeFileSync(join(ok, 'Movie.csv'), Buffer.concat([Buffer.from('title,url,id:ID\n甲片,https://movie.douban.com/subject/1/,m1\n'), Buffer.from([0xff]), Buffer.from(',https://movie.douban.com/subject/2/,m2\n"丙片,https://movie.douban.com/subject/3/,m3\n')]));
  for (const f of ['Person.csv', 'director.csv', 'actor.csv']) writeFileSync(join(ok, f), f === 'Person.csv' ? 'name,id:ID\n' : ':START_ID,:END_ID\n');
  assert.equal((await importSources([`openkg:${ok}`])).store.stats().entities.byKind.Movie, 1);
  // nothing readable is still refused (every line unparsable; every row unreadable)
  writeFileSync(kq, 'not json\n{"id": \n');
  await assert.rejects(importSources([`kgqa:${kq}`]), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /kq4\.txt: no readable record \(2 bad\); is it in the DouBan-KGQA JSON lines format\?$/.test(e.message));
  writeFileSync(dc, 'movie_id,title,directors\n"1,甲片,张三\n');
  await assert.rejects(importSources([`douban-csv:${dc}`]), /d\.csv: no readable record \(1 bad\); is it in the douban-movies-2065 csv format\?$/);
});

test('re-importing the same sources (good and broken rows) gives the same content hash and the same report', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-import-'));
  const cs = join(dir, 'kg');
  mkdirSync(cs);
  writeFileSync(join(cs, 'entities.csv'), '\uFEFFid,kind,name,aliases,movie\r\n,Movie,甲片,,\r\n,Person,"张三,,\r\n,Person,李四,,\r\n,Person,"王五\r\n,Genre,剧情,,\r\n');
  writeFileSync(join(cs, 'relations.csv'), 'from,relation,to,movie\nperson/name/李四,DIRECTED,movie/name/甲片,\nmovie/name/甲片,HAS_GENRE,genre/剧情,\n');
  const sources = [`csv:${cs}`, `csv:${FIX}csv-messy`, `kgqa:${FIX}kgqa`, `douban-csv:${FIX}douban`, `openkg:${FIX}openkg`];
  const a = await importSources(sources);
  const b = await importSources(sources);
  assert.equal(a.store.contentHash, b.store.contentHash);
  const { ms: _a, ...sa } = importSummary(a);
  const { ms: _b, ...sb } = importSummary(b);
  assert.deepEqual(sa, sb);
  // the csv's name-only 李四 is the kgqa fixture's only Douban 李四 (entity resolution): the credit follows it
  assert.ok(a.data.relations.some((r) => r.kind === 'DIRECTED' && r.from === 'person/douban/2' && r.to === 'movie/name/甲片'));
  assert.deepEqual(a.data.entities.find((e) => e.id === 'person/douban/2')?.sourceIds, ['person/douban/2', 'person/name/李四']);
});
