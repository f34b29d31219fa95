/**
 * `filmkw kg import` / `filmkw kg stats` through bin/filmkw (run `npm run build` first): outputs,
 * idempotence, --strict, and one clear line with a distinct exit code for each user mistake.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filmkw } from './in-process.js';

const FIX = 'test/fixtures/kg-sources/';
const run = (args: string[]) => filmkw(args);
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /);

test('kg stats --json prints exactly the stats object of the demo KG', async () => {
  const r = await run(['kg', 'stats', '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    r.stdout,
    '{"entities":{"total":544,"byKind":{"Movie":56,"Person":287,"Character":180,"Genre":21}},' +
      '"relations":{"total":823,"byKind":{"DIRECTED":63,"WROTE":96,"ACTED_IN":242,"HAS_GENRE":160,"ALIAS":79,"PLAYED":183}}}\n',
  );
  const human = await run(['kg', 'stats']);
  assert.equal(human.status, 0);
  assert.match(human.stdout, /entities  544\n\s+Movie\s+56/);
});

test('kg import --out twice: same content hash, stats of the snapshot equal the source', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-cli-kg-'));
  const out = join(dir, 'demo.fkg');
  const a = await run(['kg', 'import', '--out', out, '--json', 'csv:kg/demo']);
  assert.equal(a.status, 0, a.stderr);
  const sa = JSON.parse(a.stdout);
  assert.match(sa.contentHash, /^[0-9a-f]{64}$/);
  assert.equal(sa.output.snapshot, out);
  assert.ok(sa.output.bytes > 0);
  assert.match(a.stderr, /kg import: reading csv:kg\/demo/); // progress on stderr
  const b = await run(['kg', 'import', '--out', out, 'csv:kg/demo']);
  assert.equal(b.status, 0, b.stderr);
  assert.match(b.stderr, new RegExp(`content hash ${sa.contentHash}`));
  const st = await run(['kg', 'stats', '--kg', out, '--json']);
  assert.deepEqual(JSON.parse(st.stdout), { entities: sa.entities, relations: sa.relations });
});

test('kg import of messy sources: bad rows reported with file:line and skipped; --strict exits 3 and writes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-cli-kg-'));
  const out = join(dir, 'm.fkg');
  const srcs = [`csv:${FIX}csv-messy`, `openkg:${FIX}openkg`, `kgqa:${FIX}kgqa`, `douban-csv:${FIX}douban/movies.csv`];
  const ok = await run(['kg', 'import', '--out', out, ...srcs]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /skipped rows \(bad input\): 20\n/);
  assert.match(ok.stderr, /csv-messy\/entities\.csv:8: Planet/);
  assert.match(ok.stderr, /kgqa\/movies\.txt:3/);
  assert.match(ok.stderr, /1× douban-csv: missing field movie_id {2}e\.g\. movies\.csv:4/);
  assert.match(ok.stderr, /countries are not part of the film KG \(by design\)/);
  assert.ok(existsSync(out));
  const strictOut = join(dir, 's.fkg');
  const strict = await run(['kg', 'import', '--out', strictOut, '--strict', ...srcs]);
  assert.equal(strict.status, 3, strict.stderr);
  assert.match(strict.stderr, /filmkw: kg import: --strict: 20 bad row\(s\) skipped, nothing written/);
  assert.ok(!existsSync(strictOut));
  noStack(strict.stderr);
  const clean = await run(['kg', 'import', '--out', strictOut, '--strict', `csv:${FIX}csv-good`]);
  assert.equal(clean.status, 0, clean.stderr);
});

test('kg import user mistakes: unknown prefix (2), no output choice (2), missing file (3), no source (2)', async () => {
  const unknown = await run(['kg', 'import', '--out', join(tmpdir(), 'x.fkg'), 'imdb:foo']);
  assert.equal(unknown.status, 2);
  assert.equal(
    unknown.stderr,
    'filmkw: kg import: unknown source prefix "imdb:" (valid sources: openkg:<dir>, kgqa:<file|dir>, douban-csv:<file|dir>, csv:<dir>, html-list:<file|dir>, demo)\n',
  );
  const neither = await run(['kg', 'import', 'csv:kg/demo']);
  assert.equal(neither.status, 2);
  assert.match(neither.stderr, /give exactly one of --out FILE or --neo4j/);
  const missing = await run(['kg', 'import', '--out', join(tmpdir(), 'x.fkg'), 'douban-csv:no/such.csv']);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /filmkw: kg import: douban-csv source: no\/such\.csv: no such file or directory\n$/);
  noStack(missing.stderr);
  const none = await run(['kg', 'import', '--out', join(tmpdir(), 'x.fkg')]);
  assert.equal(none.status, 2);
  const badStats = await run(['kg', 'stats', '--kg', 'no/such.fkg']);
  assert.equal(badStats.status, 3);
  assert.match(badStats.stderr, /^filmkw: kg: no\/such\.fkg: no such file or directory\n$/);
});

test('kg import of a csv KG with an unclosed quote: the row is reported at the line it opens on, the rows after it are kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-cli-kg-'));
  const kg = join(dir, 'c3');
  mkdirSync(kg);
  writeFileSync(join(kg, 'entities.csv'), 'id,kind,name,aliases,movie\n,Movie,甲片,,\n,Person,"张三,,\n,Person,李四,,\n,Person,王五,,\n,Person,赵六,,\n');
  writeFileSync(join(kg, 'relations.csv'), 'from,relation,to,movie\nperson/name/李四,DIRECTED,movie/name/甲片,\n');
  const r = await run(['kg', 'import', '--out', join(dir, 'c3.fkg'), '--json', `csv:${kg}`]);
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.entities.byKind, s.relations.total], [{ Movie: 1, Person: 3, Character: 0, Genre: 0 }, 1]);
  assert.deepEqual(s.skipped.reasons, [{ reason: 'entities.csv: unreadable csv record (unclosed quote; the lines after it are read again)', count: 1, examples: ['c3/entities.csv:3'] }]);
  const strict = await run(['kg', 'import', '--out', join(dir, 's.fkg'), '--strict', `csv:${kg}`]);
  assert.equal(strict.status, 3);
  assert.match(strict.stderr, /filmkw: kg import: --strict: 1 bad row\(s\) skipped, nothing written \(first: c3\/entities\.csv:3 entities\.csv: unreadable csv record/);
});

test('kg stats --kg <csv dir> --json: stdout is exactly the JSON, the skipped rows are still reported on stderr', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-cli-kg-'));
  writeFileSync(join(dir, 'entities.csv'), 'id,kind,name,aliases,movie\n,Movie,甲片,,\n,Robot,R2,,\n,Person,"张三,,\n');
  writeFileSync(join(dir, 'relations.csv'), 'from,relation,to,movie\nperson/name/无名,DIRECTED,movie/name/甲片,\n');
  const warnings = [
    'kg: 1 row(s) skipped: DIRECTED: unknown \'from\' entity (dangling) (e.g. ' + `${dir.split('/').pop()}/relations.csv:2: DIRECTED person/name/无名 → movie/name/甲片)`,
    `kg: 1 row(s) skipped: entities.csv: unknown kind (e.g. ${dir.split('/').pop()}/entities.csv:3: Robot)`,
    `kg: 1 row(s) skipped: entities.csv: unreadable csv record (unclosed quote; the lines after it are read again) (e.g. ${dir.split('/').pop()}/entities.csv:4)`,
  ];
  const j = await run(['kg', 'stats', '--kg', dir, '--json']);
  assert.equal(j.status, 0, j.stderr);
  assert.deepEqual(JSON.parse(j.stdout).entities.total, 1);
  assert.equal(j.stdout.split('\n').length, 2); // one JSON line
  assert.deepEqual(j.stderr.split('\n').filter(Boolean), warnings); // warnings only, no progress lines
  const human = await run(['kg', 'stats', '--kg', dir]);
  assert.deepEqual(human.stderr.split('\n').filter((l) => l.startsWith('kg: 1 row')), warnings);
});

test('kg import: relation prefixes stripped from mined character names are reported, --examples sets how many are listed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-kg-strip-'));
  const csv = join(dir, 'movies.csv');
  writeFileSync(
    csv,
    '\uFEFFmovie_id,title,rating,total_ratings,directors,actors,screenwriters,release_date,genres,countries,languages,runtime,summary,link,poster,tags\n' +
      '2001,甲片,7.5,100,王五,"张三, 孙七",王五,2019-01-01,剧情,中国大陆,汉语普通话,100分钟,"霍元甲之子霍廷恩（张三 饰）回到天津，其女方红（孙七 饰）随行。",https://movie.douban.com/subject/2001/,,\n',
  );
  let r = await run(['kg', 'import', '--out', join(dir, 'a.fkg'), '--json', '--examples', '1', `douban-csv:${csv}`]);
  assert.equal(r.status, 0, r.stderr);
  const one = JSON.parse(r.stdout).played;
  assert.equal(one.stripped, 2);
  assert.equal(one.strippedExamples.length, 1);
  r = await run(['kg', 'import', '--out', join(dir, 'b.fkg'), '--json', `douban-csv:${csv}`]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).played.strippedExamples.map((e: { from: string; to: string }) => `${e.from}→${e.to}`), ['霍元甲之子霍廷恩→霍廷恩', '其女方红→方红']);
  r = await run(['kg', 'import', '--out', join(dir, 'c.fkg'), `douban-csv:${csv}`]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /PLAYED: relation or clause prefix stripped from 2 character names, e\.g\. 霍元甲之子霍廷恩 → 霍廷恩 \(movies\.csv:2\); 其女方红 → 方红/);
  for (const bad of ['-1', '2.5', 'x']) {
    r = await run(['kg', 'import', '--out', join(dir, 'd.fkg'), '--examples', bad, `douban-csv:${csv}`]);
    assert.equal(r.status, 2, bad);
    assert.match(r.stderr, /--examples must be an integer from 0 to 1000000/);
    noStack(r.stderr);
  }
});

test('kg import: the named source demo is the bundled demo KG; merges by rule, ambiguous names and alias changes are reported, --examples N of each', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-kg-resolve-'));
  const demo = await run(['kg', 'import', '--out', join(dir, 'demo.fkg'), '--json', 'demo']);
  const csv = await run(['kg', 'import', '--out', join(dir, 'csv.fkg'), '--json', 'csv:kg/demo']);
  assert.equal(demo.status, 0, demo.stderr);
  assert.equal(JSON.parse(demo.stdout).contentHash, JSON.parse(csv.stdout).contentHash);
  // a douban-csv film with 吴京 and 张艺谋 by name; the demo has both by name too, the kgqa fixture has two Douban 张三
  const movies = join(dir, 'movies.csv');
  writeFileSync(
    movies,
    '\uFEFFmovie_id,title,rating,total_ratings,directors,actors,screenwriters,release_date,genres,countries,languages,runtime,summary,link,poster,tags\n' +
      '25845392,长津湖,7.4,100,"陈凯歌, 徐克, 林超贤","吴京, 易烊千玺, 张三",兰晓龙,2021-09-30,战争,中国大陆,汉语普通话,176分钟,,https://movie.douban.com/subject/25845392/,,\n',
  );
  const kgqa = join(dir, 'kgqa.txt');
  writeFileSync(
    kgqa,
    JSON.stringify({ id: '25845392', name: '长津湖', directors: [{ name: '陈凯歌', href: '/celebrity/1023040/' }], writers: [], actors: [{ name: '吴京', href: '/celebrity/1000525/' }], other_names: ['水门桥(台', '港)'], genres: ['战争'] }) +
      '\n' +
      JSON.stringify({ id: '1', name: '甲片', directors: [{ name: '张三', href: '/celebrity/1/' }], writers: [], actors: [], other_names: [], genres: [] }) +
      '\n' +
      JSON.stringify({ id: '2', name: '乙片', directors: [{ name: '张三', href: '/celebrity/2/' }], writers: [], actors: [], other_names: [], genres: [] }) +
      '\n',
  );
  const r = await run(['kg', 'import', '--out', join(dir, 'm.fkg'), '--json', '--examples', '1', `douban-csv:${movies}`, `kgqa:${kgqa}`, 'demo']);
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  const rules = Object.fromEntries(s.resolved.rules.map((g: { reason: string; count: number }) => [g.reason, g.count]));
  assert.equal(rules['film: same title and people in common'], 1, JSON.stringify(rules));
  assert.ok(rules['only id-bearing person of the name'] >= 1 && rules['character: moved with its film'] >= 1, JSON.stringify(rules));
  for (const g of [...s.resolved.rules, ...s.resolved.ambiguous]) assert.equal(g.examples.length, 1, g.reason);
  assert.deepEqual(s.resolved.ambiguous.map((g: { reason: string; count: number }) => [g.reason, g.count]), [['person left apart: several id-bearing people of the name', 1]]);
  assert.match(s.resolved.ambiguous[0].examples[0], /^张三: person\/name\/张三 apart from person\/douban\/1, person\/douban\/2$/);
  assert.deepEqual(s.aliases.changed.reasons.map((g: { reason: string }) => g.reason).sort(), ['region or note tag removed', 'split inside brackets, joined again']);
  const human = await run(['kg', 'import', '--out', join(dir, 'h.fkg'), '--examples', '2', `douban-csv:${movies}`, `kgqa:${kgqa}`, 'demo']);
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stderr, /\nkg import: entity resolution: \d+ entities merged into another \(.*film: same title and people in common 1.*\), \d+ relations joined; 1 name-only people left apart \(ambiguous\)\n/);
  assert.match(human.stderr, /\n  1× film: same title and people in common  e\.g\. movie\/name\/长津湖 → movie\/douban\/25845392 \(长津湖; \d+ people, \d+ directors? in common\)\n/);
  assert.match(human.stderr, /\n  1× person left apart: several id-bearing people of the name  e\.g\. 张三: person\/name\/张三 apart from person\/douban\/1, person\/douban\/2\n/);
  assert.match(human.stderr, /\nkg import: aliases changed \(brackets joined again, region \/ note tags removed\): 2\n/);
});
