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
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
  // the unclosed quote on line 7 costs line 7 only: line 8 is read again
  assert.deepEqual(got, ['1:a|b', '2:1|2', '3:3|x\ny', '6:5|6', '8:8|9']);
  assert.deepEqual(bad, ['5: invalid UTF-8', '7: unreadable csv record (unclosed quote; the lines after it are read again)']);
});

test('readCsv: a broken quote is reported at the line it starts on and costs only that row (CRLF, CR, empty lines, quoted line breaks)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-csv-'));
  const read = async (text: string, opts: { maxRecordBytes?: number } = {}) => {
    const f = join(dir, 'x.csv');
    writeFileSync(f, text);
    const out: string[] = [];
    for await (const r of readCsv(f, 'x.csv', (line, reason) => out.push(`${line}! ${reason.replace(/ \(.*/, '')}`), opts)) out.push(`${r.line}:${r.fields.join('|')}`);
    return out;
  };
  const broken = '! unreadable csv record';
  // the audit case: the unclosed quote swallowed every later row into one record, reported at the last line
  assert.deepEqual(await read('id,kind,name,aliases,movie\n,Movie,甲片,,\n,Person,"张三,,\n,Person,李四,,\n,Person,王五,,\n,Person,赵六,,\n'), [
    '1:id|kind|name|aliases|movie',
    '2:|Movie|甲片||',
    `3${broken}`,
    '4:|Person|李四||',
    '5:|Person|王五||',
    '6:|Person|赵六||',
  ]);
  // the quote is "closed" by the opening quote of a later row: csv-parse (relax_quotes) would merge the rows
  assert.deepEqual(await read('a,b\r\n\r\n1,"x,\r\n\r\n2,"y"\r\n3,"z\r\nz"\r\n4,w'), ['1:a|b', `3${broken}`, '5:2|y', '6:3|z\r\nz', '8:4|w']);
  // lone CR line ends; a quoted CRLF inside a field counts as one line
  assert.deepEqual(await read('a,b\r1,"open\r2,"x\r\ny"\r3,c'), ['1:a|b', `2${broken}`, '3:2|x\r\ny', '5:3|c']);
  // a runaway quote longer than maxRecordBytes is given up before the end of the file
  assert.deepEqual(await read(`a,b\n1,"${'x'.repeat(300)}\n2,3\n${'y'.repeat(50)}\n4,5`, { maxRecordBytes: 100 }), ['1:a|b', `2${broken}`, '3:2|3', `4:${'y'.repeat(50)}`, '5:4|5']);
  // two unclosed quotes in a row, the last line without a line end
  assert.deepEqual(await read('a,b\n"1,2\n"3,4\n5,6'), ['1:a|b', `2${broken}`, `3${broken}`, '4:5|6']);
  // a bare quote inside an unquoted field stays a character (relax_quotes), also after a quoted line break
  assert.deepEqual(await read('a,b\n他说"好",1\n"x\ny",他说"好"\n'), ['1:a|b', '2:他说"好"|1', '3:x\ny|他说"好"']);
});

test('csv, openkg and douban-csv: an unclosed quote costs its row only; later rows and relations survive; an unreadable header is an input error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-csv-'));
  // csv: the audit repro (李四, 王五, 赵六 were lost and the relation needing 李四 was reported dangling)
  const c3 = join(dir, 'c3');
  mkdirSync(c3);
  writeFileSync(join(c3, 'entities.csv'), 'id,kind,name,aliases,movie\n,Movie,甲片,,\n,Person,"张三,,\n,Person,李四,,\n,Person,王五,,\n,Person,赵六,,\n');
  writeFileSync(join(c3, 'relations.csv'), 'from,relation,to,movie\nperson/name/李四,DIRECTED,movie/name/甲片,\n');
  {
    const b = new KgMergeBuilder();
    await readProjectCsv(c3, b, { kind: 'csv', spec: 'csv:c3' });
    const { data, report } = b.build();
    assert.deepEqual(data.entities.map((e) => e.name).sort(), ['李四', '王五', '甲片', '赵六']);
    assert.deepEqual(data.relations.map((r) => `${r.kind} ${r.from} ${r.to}`), ['DIRECTED person/name/李四 movie/name/甲片']);
    assert.deepEqual(reasons(report), { 'entities.csv: unreadable csv record (unclosed quote; the lines after it are read again)': ['c3/entities.csv:3'] });
    assert.equal(report.sources[0].records, 6); // the unreadable row is a record read (and skipped)
  }
  // openkg: a broken Movie.csv row; the next film and its credits are kept
  const ok = join(dir, 'openkg');
  mkdirSync(ok);
  writeFileSync(join(ok, 'Movie.csv'), 'title,url,id:ID\n"甲片,https://movie.douban.com/subject/1/,m1\n乙片,https://movie.douban.com/subject/2/,m2\n');
  writeFileSync(join(ok, 'Person.csv'), 'name,id:ID\n张三,p1\n');
  writeFileSync(join(ok, 'director.csv'), ':START_ID,:END_ID\nm2,p1\n');
  writeFileSync(join(ok, 'actor.csv'), ':START_ID,:END_ID\n');
  {
    const b = new KgMergeBuilder();
    await readOpenKg(ok, b, { kind: 'openkg', spec: 'openkg:x' });
    const { data, report } = b.build();
    assert.ok(data.relations.some((r) => r.kind === 'DIRECTED' && r.to === 'movie/douban/2'));
    assert.deepEqual(reasons(report), { 'Movie.csv: unreadable csv record (unclosed quote; the lines after it are read again)': ['openkg/Movie.csv:2'] });
  }
  // douban-csv: a broken row between two good films
  const header = 'movie_id,title,directors,actors,screenwriters,genres,summary';
  const dc = join(dir, 'd.csv');
  writeFileSync(dc, `\uFEFF${header}\r\n1,甲片,张三,,,剧情,\r\n2,"乙片,李四,,,,\r\n3,丙片,王五,,,喜剧,\r\n`);
  {
    const b = new KgMergeBuilder();
    await readDoubanCsv(dc, b, { kind: 'douban-csv', spec: 'douban-csv:d' });
    const { data, report } = b.build();
    assert.deepEqual(data.entities.filter((e) => e.kind === 'Movie').map((e) => e.name).sort(), ['丙片', '甲片']);
    assert.deepEqual(reasons(report), { 'douban-csv: unreadable csv record (unclosed quote; the lines after it are read again)': ['d.csv:3'] });
  }
  // the header itself unreadable: not "empty file (no header)", and the next row is not taken for the header
  const headerError = (re: RegExp) => (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && re.test(e.message);
  writeFileSync(dc, '"movie_id,title\r\n');
  await assert.rejects(readDoubanCsv(dc, new KgMergeBuilder(), { kind: 'douban-csv', spec: 'x' }), headerError(/^kg import: d\.csv:1: unreadable header \(unclosed quote\)$/));
  writeFileSync(dc, `"${header}\n1,甲片,,,,,\n`);
  await assert.rejects(readDoubanCsv(dc, new KgMergeBuilder(), { kind: 'douban-csv', spec: 'x' }), headerError(/^kg import: d\.csv:1: unreadable header \(unclosed quote\)$/));
  writeFileSync(join(c3, 'entities.csv'), Buffer.concat([Buffer.from('id,kind,na'), Buffer.from([0xff]), Buffer.from('me,aliases,movie\n,Movie,甲片,,\n')]));
  await assert.rejects(readProjectCsv(c3, new KgMergeBuilder(), { kind: 'csv', spec: 'x' }), headerError(/^kg import: c3\/entities\.csv:1: unreadable header \(invalid UTF-8\)$/));
});

test('readJsonLines: a BOM inside the file and other invisible characters are named in the reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-jsonl-'));
  const f = join(dir, 'x.jsonl');
  writeFileSync(f, '\uFEFF{"a":1}\n\uFEFF{"a":2}\n{"a":3}\u200B\n{"a":\u00A04}\n{"a":5}\n');
  const bad: string[] = [];
  const got: number[] = [];
  for await (const r of readJsonLines(f, 'x.jsonl', (line, reason) => bad.push(`${line}: ${reason}`))) got.push(r.line);
  assert.deepEqual(got, [1, 5]);
  assert.deepEqual(bad, [
    '2: unparsable JSON (the line starts with a byte-order mark, U+FEFF)',
    '3: unparsable JSON (Unexpected non-whitespace character after JSON at position 7: U+200B)',
    `4: unparsable JSON (Unexpected token 'U+00A0', "{"a":U+00A04}" is not valid JSON)`,
  ]);
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

test('property: rows with unclosed quotes among good ones: every good row is read at its line, every broken row reported at its own', async () => {
  const word = fc.array(fc.constantFrom('a', 'z', '张', '三', 'é', '😀', ' ', '|'), { maxLength: 6 }).map((cs) => cs.join(''));
  const rowArb = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(word, word, word).map((f) => ({ kind: 'ok' as const, text: f.join(',') })) },
    // a quoted field with a line break and doubled quotes: one record over two lines. (Its opening quote
    // is followed by a letter: a quote followed by a delimiter would close the quote of a broken row
    // above it, which is valid csv, see readCsv)
    { weight: 1, arbitrary: fc.tuple(word, word).map(([a, b]) => ({ kind: 'multi' as const, text: `${a},"m${b},\r\n""${b}""",${a}` })) },
    // a quote opening a field, never closed on its line
    { weight: 2, arbitrary: fc.tuple(word, word).map(([a, b]) => ({ kind: 'broken' as const, text: `${a},"z${b},${a}` })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'blank' as const, text: '' }) },
  );
  await fc.assert(
    fc.asyncProperty(fc.array(rowArb, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), async (rows, nl, bom) => {
      const f = join(tmp(), 'q.csv');
      writeFileSync(f, (bom ? '\uFEFF' : '') + ['a,b,c', ...rows.map((r) => r.text)].join(nl));
      const want = [1];
      const wantBad: number[] = [];
      let line = 2;
      for (const r of rows) {
        if (r.kind === 'ok' || r.kind === 'multi') want.push(line);
        if (r.kind === 'broken') wantBad.push(line);
        line += r.kind === 'multi' ? 2 : 1;
      }
      const got: number[] = [];
      const bad: number[] = [];
      for await (const r of readCsv(f, 'q.csv', (l) => bad.push(l))) got.push(r.line);
      assert.deepEqual(got, want);
      assert.deepEqual(bad, wantBad);
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

test('readCsv: a closing quote with text after it is reported at its line (the rule of the tag reader), a blank line of spaces is not a record', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-csv-'));
  const f = join(dir, 'x.csv');
  writeFileSync(f, 'a,b\n1,"甲"乙\n   \n2,"丙"\n');
  const out: string[] = [];
  for await (const r of readCsv(f, 'x.csv', (line, reason) => out.push(`${line}! ${reason}`), { header: true })) out.push(`${r.line}:${r.fields.join('|')}`);
  assert.deepEqual(out, ['1:a|b', '2! unreadable csv record (unexpected character "乙" after a closing quote on line 2)', '4:2|丙']);
});
