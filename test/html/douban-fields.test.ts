/**
 * src/html/douban-fields.ts: list-record fields on a written fixture, the "..." cuts, the Python-repr
 * ground truth reader, and (when ../shared/data/html is there) the real Top250 pages against their
 * crawlers' records and the subject pages' #info against their JSON-LD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { doubanListRecord, doubanSubjectPage, parseBd, parsePyList, splitNames } from '../../src/html/douban-fields.js';
import { findRecordsStructural, parseHtml } from '../../src/html/structural.js';
import { decodeEntities } from '../../src/kg/sources/common.js';

const FIX = fileURLToPath(new URL('../fixtures/html/records/', import.meta.url));
const DATA = fileURLToPath(new URL('../../../shared/data/html/', import.meta.url));
const needData = !existsSync(DATA) && 'needs ../shared/data/html';

test('list record fields of the fixture page', () => {
  const recs = findRecordsStructural(parseHtml(readFileSync(`${FIX}douban-list.html`, 'utf8'))).records.map(doubanListRecord);
  assert.equal(recs.length, 4);
  assert.deepEqual(recs[1], {
    subjectId: '1000002',
    url: 'https://movie.douban.com/subject/1000002/',
    title: '海上灯塔',
    otherTitles: ['The Lighthouse at Sea', '灯塔'],
    rating: 8.8,
    directors: ['马克·维尔 Mark Weir', '安娜·李 Anna Lee'],
    actors: ['汤姆·格林'],
    year: 2001,
    countries: ['美国', '英国'],
    genres: ['剧情', '悬疑'],
  });
  assert.deepEqual(recs.map((r) => r?.genres.length), [2, 2, 3, 1]);
  assert.deepEqual(recs[0]?.otherTitles, ['Letters from the Hills', '山信(港)', '来信']);
  assert.deepEqual(recs[3]?.countries, ['中国大陆', '中国香港']);
});

test('cut names and cut credit lines', () => {
  assert.deepEqual(splitNames('张国荣 Leslie Cheung / 张丰毅 Fengyi Zha...'), ['张国荣 Leslie Cheung', '张丰毅']);
  assert.deepEqual(splitNames('蒂姆·罗宾斯 Tim Robbins /...'), ['蒂姆·罗宾斯 Tim Robbins']);
  assert.deepEqual(splitNames('Tom Gr...'), []);
  const a = parseBd('导演: 宫崎骏 Hayao Miyazaki\u00a0\u00a0\u00a0主...', '2001 / 日本 / 剧情 动画 奇幻');
  assert.deepEqual(a.directors, ['宫崎骏 Hayao Miyazaki']);
  assert.deepEqual(a.actors, []);
  const b = parseBd('导演: 吴宇森 John Woo', '1961(中国大陆) / 1964 / 1978(中国大陆重映) / 中国大陆 / 动画 奇幻');
  assert.equal(b.year, 1961);
  assert.deepEqual(b.countries, ['中国大陆']);
  assert.deepEqual(b.genres, ['动画', '奇幻']);
});

test('parsePyList reads crawler repr lines', () => {
  assert.deepEqual(parsePyList("['a', '\\xa0\\xa0B', ['c d'], 'x\\ny', \"it's\"]"), ['a', '\u00a0\u00a0B', ['c d'], 'x\ny', "it's"]);
  assert.equal(parsePyList('not a list'), null);
  assert.equal(parsePyList("['unterminated"), null);
});

test('real Top250 page 1: 25 records whose fields equal the crawler records (items.jl)', { skip: needData }, () => {
  const html = readFileSync(`${DATA}helloxizhao+douban/top250.html`, 'utf8');
  const recs = findRecordsStructural(parseHtml(html)).records.map(doubanListRecord);
  assert.equal(recs.length, 25);
  const truth = readFileSync(`${DATA}helloxizhao+douban/items.jl`, 'utf8').trim().split('\n').slice(0, 25).map((l) => JSON.parse(l) as { name: string; director_and_player: string[] });
  const byTitle = new Map(truth.map((t) => [t.name, t]));
  let correct = 0;
  for (const r of recs) {
    const t = byTitle.get(r!.title!);
    assert.ok(t, r!.title);
    const want = parseBd(t.director_and_player[0], t.director_and_player[1]);
    if (JSON.stringify([r!.directors, r!.actors, r!.year, r!.countries, r!.genres]) === JSON.stringify([want.directors, want.actors, want.year, want.countries, want.genres])) correct++;
  }
  assert.equal(correct, 25);
});

test('real 250-item composite: every record matches top250keyInfor.txt', { skip: needData }, () => {
  const html = readFileSync(`${DATA}xyxdegithub+douban/top250.html`, 'utf8');
  const recs = findRecordsStructural(parseHtml(html)).records.map(doubanListRecord);
  assert.equal(recs.length, 250);
  const truth = new Map<string, unknown[]>();
  for (const line of readFileSync(`${DATA}xyxdegithub+douban/top250keyInfor.txt`, 'utf8').split('\n')) {
    const v = parsePyList(line);
    if (v) truth.set(/subject\/(\d+)/.exec(String(v[0]))![1], v);
  }
  assert.equal(truth.size, 250);
  let correct = 0;
  const wrong: string[] = [];
  for (const r of recs) {
    const t = truth.get(r!.subjectId!);
    assert.ok(t, r!.subjectId);
    const [credits, meta] = String(t[7]).split('<br/>');
    const want = parseBd(credits, meta);
    const second = decodeEntities(String(t[3])).replace(/[\s\u00a0/]+/g, ' ').trim();
    const ok =
      r!.title === t[2] &&
      r!.rating === Number(t[4]) &&
      (second === '' || r!.otherTitles[0] === second) &&
      JSON.stringify([r!.directors, r!.actors, r!.year, r!.countries, r!.genres]) === JSON.stringify([want.directors, want.actors, want.year, want.countries, want.genres]);
    if (ok) correct++;
    else wrong.push(r!.subjectId!);
  }
  // 告白 (4268598): the page says 8.7, the crawler's record 8.8 (crawled at another time); all else agrees
  assert.deepEqual(wrong, ['4268598']);
  assert.equal(correct, 249);
});

test('real subject pages: #info agrees with the page JSON-LD (directors, writers, genres, year)', { skip: needData }, () => {
  const dir = `${DATA}neodb-social+neodb/neodb/test_data/`;
  const files = ['3541415', '1920763', '26895436', '35597581', '3627919', '4296866'].map((id) => `${dir}https___movie_douban_com_subject_${id}_`);
  const present = files.filter((f) => existsSync(f));
  assert.equal(present.length, 6);
  for (const f of present) {
    const p = doubanSubjectPage(parseHtml(readFileSync(f, 'utf8')));
    assert.ok(p && p.jsonld, f);
    // #info shows one form of each name (Chinese or original), the JSON-LD both: "迈克尔·瑞迈尔 Michael Rymer"
    // (TV pages list every episode's director in #info, the JSON-LD a subset in another order)
    const same = (info: string[], ld: string[]) => ld.every((l) => info.some((n) => l.includes(n))) && (!f.includes('3541415') || info.length === ld.length);
    assert.ok(same(p.info.directors, p.jsonld.directors), `${f} directors ${p.info.directors} vs ${p.jsonld.directors}`);
    assert.ok(same(p.info.writers, p.jsonld.writers), `${f} writers ${p.info.writers} vs ${p.jsonld.writers}`);
    assert.deepEqual(p.info.genres, p.jsonld.genres, `${f} genres`);
    if (p.jsonld.datePublished) assert.equal(p.info.year, Number(p.jsonld.datePublished.slice(0, 4)), `${f} year`);
    assert.ok(p.subjectId && f.includes(`_${p.subjectId}_`), `${f} subject id ${p.subjectId}`);
  }
  const inception = doubanSubjectPage(parseHtml(readFileSync(files[0], 'utf8')))!;
  assert.equal(inception.title, '盗梦空间 Inception');
  assert.ok(inception.info.otherTitles.includes('潜行凶间(港)'));
});
