/**
 * Source readers on small fixtures (test/fixtures/kg-sources): BOM, CRLF, quoting, bad JSON lines,
 * missing fields, wrong field counts, dangling ids — each bad row is skipped and reported with
 * file:line, the rest is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KgMergeBuilder, type MergeReport } from '../../src/kg/builder.js';
import { readProjectCsv } from '../../src/kg/sources/csv.js';
import { readOpenKg } from '../../src/kg/sources/openkg.js';
import { readKgqa, splitDoubanTitle, splitPersonName } from '../../src/kg/sources/kgqa.js';
import { readDoubanCsv } from '../../src/kg/sources/douban-csv.js';
import { readCsv, readJsonLines, stripRegionSuffix, decodeEntities } from '../../src/kg/sources/common.js';
import { FilmkwError } from '../../src/errors.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIX = new URL('../fixtures/kg-sources/', import.meta.url).pathname;
const reasons = (r: MergeReport) => Object.fromEntries(r.skipped.map((g) => [g.reason, g.examples]));

test('csv: the messy fixture (BOM, CRLF, quotes) keeps good rows and reports each bad one with file:line', async () => {
  const b = new KgMergeBuilder();
  await readProjectCsv(`${FIX}csv-messy`, b, { kind: 'csv', spec: 'csv:messy' });
  const { data, report } = b.build();
  const byId = new Map(data.entities.map((e) => [e.id, e]));
  // quoted name with a comma, doubled quotes, spaces collapsed (surface kept)
  assert.equal(byId.get('movie/douban/2001')?.name, 'Crouching Tiger, Hidden Dragon');
  assert.deepEqual(byId.get('movie/douban/2001')?.aliases, ['卧虎藏龙', '臥虎藏龍']);
  assert.ok(byId.has(`person/name/Schindler's "List" Man`));
  assert.deepEqual(byId.get('person/name/Jean Reno')?.surfaces, ['Jean  Reno']);
  // alias colliding with another film's name is kept on both sides
  assert.equal(byId.get('movie/douban/2002')?.name, '英雄');
  assert.deepEqual(byId.get('movie/douban/2003')?.aliases, ['英雄']);
  const r = reasons(report);
  assert.deepEqual(r['entities.csv: missing field name'], ['csv-messy/entities.csv:7']);
  assert.deepEqual(r['entities.csv: unknown kind'], ['csv-messy/entities.csv:8: Planet']);
  assert.deepEqual(r['entities.csv: missing field movie (Character)'], ['csv-messy/entities.csv:9: 无名']);
  assert.deepEqual(r['conflicting duplicate id (different name in the same source)'], ['csv-messy/entities.csv:11: movie/douban/2002: Hero 2']);
  assert.deepEqual(r['entities.csv: wrong number of fields (expected 5)'], ['csv-messy/entities.csv:13: 6 fields']);
  assert.deepEqual(r['relations.csv: missing field from'], ['csv-messy/relations.csv:8']);
  assert.deepEqual(r['relations.csv: unknown relation'], ['csv-messy/relations.csv:9: LIKES']);
  assert.deepEqual(r['HAS_GENRE: self-relation (an entity related to itself)'], ['csv-messy/relations.csv:6: HAS_GENRE movie/douban/2002 → movie/douban/2002']);
  assert.deepEqual(r["ACTED_IN: 'from' is a Movie, expected Person"], ['csv-messy/relations.csv:11: ACTED_IN movie/douban/2001 → person/name/周润发']);
  assert.deepEqual(r['relations.csv: missing field movie (PLAYED)'], ['csv-messy/relations.csv:12: person/name/周润发 → character/movie/douban/2001/李慕白']);
  assert.equal(report.selfRelations, 1);
  assert.equal(report.duplicates.entities, 1); // line 10 repeats line 3
  assert.equal(report.duplicates.relations, 2); // ACTED_IN twice more (English and Chinese label)
  assert.equal(report.dropped[0].reason, 'relations.csv: movie column ignored on DIRECTED');
});

test('csv: the clean fixture with Chinese relation labels and blank ids', async () => {
  const b = new KgMergeBuilder();
  await readProjectCsv(`${FIX}csv-good`, b, { kind: 'csv', spec: 'csv:good' });
  const { data, report } = b.build();
  assert.deepEqual(report.skipped, []);
  const rels = data.relations.map((r) => `${r.kind} ${r.from} ${r.to}${r.movieId ? ` @${r.movieId}` : ''}`).sort();
  assert.deepEqual(rels, [
    'ACTED_IN person/name/李四 movie/douban/1001',
    'ALIAS movie/douban/1001 Film A',
    'ALIAS movie/douban/1001 甲片(重映版)',
    'ALIAS movie/name/乙片 Film B',
    'DIRECTED person/douban/1 movie/douban/1001',
    'HAS_GENRE movie/douban/1001 genre/剧情',
    'PLAYED person/douban/1 character/movie/douban/1001/李问 @movie/douban/1001',
  ]);
  assert.deepEqual(data.entities.find((e) => e.id === 'movie/name/乙片')?.aliases, ['Film B']);
});

test('csv: missing directory, missing file and wrong header are input errors naming the file', async () => {
  const b = new KgMergeBuilder();
  await assert.rejects(readProjectCsv(`${FIX}nope`, b, { kind: 'csv', spec: 'x' }), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /nope: no such file/.test(e.message));
  await assert.rejects(readProjectCsv(`${FIX}openkg`, b, { kind: 'csv', spec: 'x' }), /entities\.csv: no such file/);
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-csv-'));
  writeFileSync(join(dir, 'entities.csv'), 'id,kind,name\n');
  writeFileSync(join(dir, 'relations.csv'), 'from,relation,to,movie\n');
  await assert.rejects(readProjectCsv(dir, b, { kind: 'csv', spec: 'x' }), /entities\.csv:1: header must be "id,kind,name,aliases,movie", got "id,kind,name"/);
});

test('readCsv: unclosed quote, invalid UTF-8 and mixed line ends are reported, the rest is read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-csv-'));
  const f = join(dir, 'x.csv');
  writeFileSync(f, Buffer.concat([Buffer.from('\uFEFFa,b\r\n1,2\n3,"x\ny"\r\n4,'), Buffer.from([0xff, 0xfe]), Buffer.from('\n5,6\n7,"open\n8,9\n')]));
  const bad: string[] = [];
  const got: string[] = [];
  for await (const r of readCsv(f, 'x.csv', (line, reason) => bad.push(`${line}: ${reason}`))) got.push(`${r.line}:${r.fields.join('|')}`);
  assert.deepEqual(got, ['1:a|b', '2:1|2', '3:3|x\ny', '6:5|6']);
  assert.equal(bad.length, 2);
  assert.match(bad[0], /^5: invalid UTF-8$/);
  assert.match(bad[1], /unreadable csv record \(Quote Not Closed/);
});

test('readJsonLines: BOM, CRLF, blank lines, bad JSON, non-objects', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-jsonl-'));
  const f = join(dir, 'x.jsonl');
  writeFileSync(f, '\uFEFF{"a":1}\r\n\r\n{"a":\r\n[1,2]\r\n"s"\r\n{"a":2}');
  const bad: string[] = [];
  const got: number[] = [];
  for await (const r of readJsonLines(f, 'x.jsonl', (line, reason) => bad.push(`${line}: ${reason.split(' (')[0]}`))) got.push(r.line);
  assert.deepEqual(got, [1, 6]);
  assert.deepEqual(bad, ['3: unparsable JSON', '4: not a JSON object', '5: not a JSON object']);
});

test('openkg + kgqa + douban-csv fixtures: joined films, people rule, PLAYED, bad rows with file:line', async () => {
  const b = new KgMergeBuilder();
  await readOpenKg(`${FIX}openkg`, b, { kind: 'openkg', spec: 'openkg:f' });
  await readKgqa(`${FIX}kgqa`, b, { kind: 'kgqa', spec: 'kgqa:f' });
  await readDoubanCsv(`${FIX}douban/movies.csv`, b, { kind: 'douban-csv', spec: 'douban-csv:f' });
  const { data, report } = b.build();
  const byId = new Map(data.entities.map((e) => [e.id, e]));
  const has = (k: string, f: string, t: string) => data.relations.some((r) => r.kind === k && r.from === f && r.to === t);
  // film 1001 from OpenKG and KGQA is one Movie; name by priority (openkg before kgqa), other names as aliases
  const m1 = byId.get('movie/douban/1001')!;
  assert.equal(m1.name, '甲片');
  assert.deepEqual(m1.aliases, ['Film A', '甲之片', '甲片國際版']);
  assert.equal(report.merged.entities, 2);
  // people: 张三 id 1 on 1001 (KGQA); OpenKG's 张三 links there on the same film and follows to 1003
  assert.ok(has('ACTED_IN', 'person/douban/1', 'movie/douban/1001'));
  assert.ok(has('ACTED_IN', 'person/douban/1', 'movie/douban/1003'));
  // a different 张三 (id 9) on 1002: douban-csv's 张三 on 1002 links to 9, not to 1
  assert.ok(has('ACTED_IN', 'person/douban/9', 'movie/douban/1002'));
  // douban-csv's 张三 on 1004 has no id-person on that film: stays name-only
  assert.ok(has('ACTED_IN', 'person/name/张三', 'movie/douban/1004'));
  assert.equal(report.people.linkedSameFilm, 4);
  assert.equal(report.people.linkedViaSourcePerson, 1);
  // composer.csv read as WROTE; unreferenced Person row kept
  assert.ok(has('WROTE', 'person/name/赵六', 'movie/douban/1001'));
  assert.ok(byId.has('person/name/钱八'));
  // KGQA person line adds a surface form
  assert.deepEqual(byId.get('person/douban/1')?.surfaces, ['张三', '张三 San Zhang']);
  // PLAYED from both synopsis sources
  const played = data.relations.filter((r) => r.kind === 'PLAYED').map((r) => `${r.from} ${r.to}`).sort();
  assert.deepEqual(played, [
    'person/douban/1 character/movie/douban/1001/李问',
    'person/douban/2 character/movie/douban/1001/程勇',
    'person/douban/9 character/movie/douban/1002/黄毛',
    'person/name/孙七 character/movie/douban/1002/赵大胆',
    'person/name/孙七 character/movie/douban/1002/钱多多',
    'person/name/张三 character/movie/douban/1004/阿强',
  ]);
  const r = reasons(report);
  assert.deepEqual(r['Movie.csv: no Douban subject id in url'], ['openkg/Movie.csv:4: http://example.com/nothing']);
  assert.deepEqual(r['Person.csv: missing field name'], ['openkg/Person.csv:5']);
  assert.deepEqual(r['actor.csv: unknown person id (dangling)'], ['openkg/actor.csv:6: hX']);
  assert.deepEqual(r['kgqa movie: missing field name'], ['kgqa/movies.txt:4: 1006']);
  assert.ok(Object.keys(r).some((k) => k.startsWith('kgqa: unparsable JSON') && r[k][0] === 'kgqa/movies.txt:3'));
  assert.deepEqual(r['douban-csv: missing field movie_id'], ['movies.csv:4']);
  assert.deepEqual(r['douban-csv: wrong number of fields'], ['movies.csv:5: 4 fields, expected 16']);
  assert.equal(report.duplicates.relations, 1); // actor.csv m3,h2 twice
  const dropped = Object.fromEntries(report.dropped.map((g) => [g.reason, g.count]));
  assert.equal(dropped['district.csv: countries are not part of the film KG (by design)'], 2);
  assert.equal(dropped['Country.csv: countries are not part of the film KG (by design)'], 1);
});

test('openkg composer: skip reports every row as dropped by design', async () => {
  const b = new KgMergeBuilder();
  await readOpenKg(`${FIX}openkg`, b, { kind: 'openkg', spec: 'openkg:f' }, { composer: 'skip' });
  const { data, report } = b.build();
  assert.ok(!data.relations.some((r) => r.kind === 'WROTE'));
  assert.equal(report.dropped.find((g) => g.reason.startsWith('composer.csv'))?.count, 1);
});

test('title and name splitting, region notes, entities', () => {
  assert.deepEqual(splitDoubanTitle('无双 無雙'), { name: '无双', alt: '無雙' });
  assert.deepEqual(splitDoubanTitle('肖申克的救赎 The Shawshank Redemption'), { name: '肖申克的救赎', alt: 'The Shawshank Redemption' });
  assert.deepEqual(splitDoubanTitle('王国 第一季 킹덤 Season 1'), { name: '王国 第一季', alt: '킹덤 Season 1' });
  assert.deepEqual(splitDoubanTitle('E.T. 外星人 E.T.: The Extra-Terrestrial'), { name: 'E.T. 外星人', alt: 'E.T.: The Extra-Terrestrial' });
  assert.deepEqual(splitDoubanTitle('霸王别姬'), { name: '霸王别姬', alt: null });
  assert.deepEqual(splitDoubanTitle('Up'), { name: 'Up', alt: null });
  assert.equal(splitPersonName('宁浩 Hao Ning'), '宁浩');
  assert.equal(splitPersonName('弗兰克·德拉邦特 Frank Darabont'), '弗兰克·德拉邦特');
  assert.equal(splitPersonName('Tim Robbins'), 'Tim Robbins');
  assert.equal(stripRegionSuffix('神隐少女(台)'), '神隐少女');
  assert.equal(stripRegionSuffix('我的愚蠢丈夫(豆友译名)'), '我的愚蠢丈夫');
  assert.equal(stripRegionSuffix('赛德克·巴莱(上下)合集'), '赛德克·巴莱(上下)合集');
  assert.equal(decodeEntities('Hana&amp;Alice &#39;x&#x27;'), "Hana&Alice 'x'");
});

// ---------------------------------------------------------------------------------------------
// Reliability (issue 5): random and hostile input never crashes a reader; every unreadable record is
// reported once with its line; the rest is read; whatever the builder emits is a valid store.

import fc from 'fast-check';
import { KgStore } from '../../src/kg/store.js';
import { minePlayed } from '../../src/kg/played.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'filmkw-fuzz-'));

test('fuzz: readCsv on random bytes never throws; lines are increasing', async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), async (bytes) => {
      const f = join(tmp(), 'r.csv');
      writeFileSync(f, bytes);
      let last = 0;
      for await (const r of readCsv(f, 'r.csv', () => undefined)) {
        assert.ok(r.line >= 1 && r.line >= last);
        last = r.line;
      }
    }),
    { numRuns: 150 },
  );
});

test('fuzz: readJsonLines reads every object line and reports every other non-blank line once', async () => {
  const lineArb = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.integer())).map((o) => ({ text: JSON.stringify(o), ok: true })),
    fc.string({ maxLength: 30 }).filter((s) => !/[\r\n\u2028\u2029]/.test(s)).map((s) => {
      let ok = false;
      try {
        const v = JSON.parse(s);
        ok = v !== null && typeof v === 'object' && !Array.isArray(v);
      } catch {
        ok = false;
      }
      return { text: s, ok };
    }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(lineArb, { maxLength: 30 }), fc.boolean(), fc.boolean(), async (lines, bom, crlf) => {
      const f = join(tmp(), 'r.jsonl');
      writeFileSync(f, (bom ? '\uFEFF' : '') + lines.map((l) => l.text).join(crlf ? '\r\n' : '\n'));
      const good: number[] = [];
      const bad: number[] = [];
      for await (const r of readJsonLines(f, 'r.jsonl', (line) => bad.push(line))) good.push(r.line);
      const wantGood = lines.flatMap((l, i) => (l.ok ? [i + 1] : []));
      const wantBad = lines.flatMap((l, i) => (!l.ok && l.text.replace(/^\uFEFF/, '').trim() !== '' ? [i + 1] : []));
      assert.deepEqual(good, wantGood);
      assert.deepEqual(bad, wantBad);
    }),
    { numRuns: 150 },
  );
});

test('fuzz: random project-csv rows (quotes, commas, CR/LF, emoji, traditional, punctuation) always build a valid store', async () => {
  const field = fc.oneof(
    fc.constantFrom('', 'Movie', 'Person', 'Character', 'Genre', 'movie/douban/1', 'person/name/张三', 'ACTED_IN', '饰演', 'ALIAS', 'PLAYED'),
    fc.string({ maxLength: 12 }),
    fc.constantFrom('"', '""', 'a,b', 'x\r\ny', '😀🎬', '臥虎藏龍', '！？。', '   ', '|', 'a|a|'),
  );
  const row = (n: number) => fc.array(field, { minLength: n - 1, maxLength: n + 1 });
  const csvLine = (fields: string[]) => fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',');
  await fc.assert(
    fc.asyncProperty(fc.array(row(5), { maxLength: 15 }), fc.array(row(4), { maxLength: 15 }), fc.boolean(), async (ents, rels, crlf) => {
      const dir = tmp();
      const nl = crlf ? '\r\n' : '\n';
      writeFileSync(join(dir, 'entities.csv'), ['id,kind,name,aliases,movie', ...ents.map(csvLine)].join(nl));
      writeFileSync(join(dir, 'relations.csv'), ['from,relation,to,movie', ...rels.map(csvLine)].join(nl));
      const b = new KgMergeBuilder();
      await readProjectCsv(dir, b, { kind: 'csv', spec: 'csv:f' });
      const { data, report } = b.build();
      const store = KgStore.fromData(data); // dangling: 'error' — the builder never emits a bad relation
      assert.equal(store.entityCount, data.entities.length);
      // one record per row, none lost to the parser
      assert.equal(report.sources[0]?.records ?? 0, ents.length + rels.length);
      assert.ok(!report.skipped.some((g) => g.reason.includes('unreadable csv record')));
    }),
    { numRuns: 120 },
  );
});

test('edge files: empty csv is an input error; empty JSON lines file reads nothing; a 1 MB field is read', async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'entities.csv'), '');
  writeFileSync(join(dir, 'relations.csv'), 'from,relation,to,movie\n');
  await assert.rejects(readProjectCsv(dir, new KgMergeBuilder(), { kind: 'csv', spec: 'x' }), /entities\.csv: empty file \(no header\)/);
  const j = join(dir, 'e.jsonl');
  writeFileSync(j, '');
  const got: unknown[] = [];
  for await (const r of readJsonLines(j, 'e.jsonl', () => assert.fail('no bad lines'))) got.push(r);
  assert.deepEqual(got, []);
  const big = 'é'.repeat(500_000);
  writeFileSync(join(dir, 'entities.csv'), `id,kind,name,aliases,movie\n,Movie,${big},,\n`);
  const b = new KgMergeBuilder();
  await readProjectCsv(dir, b, { kind: 'csv', spec: 'x' });
  assert.equal(b.build().data.entities[0].name.length, 500_000);
});

test('fuzz: the PLAYED miner never throws on arbitrary text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), fc.array(fc.constantFrom('（', '）', '(', ')', '饰', '饰演', '的', '“', '”', '·', '、', '&', '等'), { maxLength: 30 }), (s, bits) => {
      const text = bits.reduce((acc, b, i) => acc.slice(0, (i * 7) % (acc.length + 1)) + b + acc.slice((i * 7) % (acc.length + 1)), s);
      minePlayed(text, (v) => v[0]);
    }),
    { numRuns: 300 },
  );
});
