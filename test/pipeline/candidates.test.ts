import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_CANDIDATE_OPTIONS,
  isPunctuationOrNumber,
  resolveCandidateOptions,
  selectCandidates,
  createCandidateFilter,
  type CandidateOptions,
} from '../../src/pipeline/candidates.js';
import { createSegmenter, type Token } from '../../src/pipeline/segment.js';
import { FilmkwError } from '../../src/errors.js';

/** Tokens from `word/tag` pairs, with contiguous offsets. */
function toks(spec: string): Token[] {
  let pos = 0;
  return spec.split(' ').map((p) => {
    const i = p.lastIndexOf('/');
    const word = p.slice(0, i).replace(/_/gu, ' ');
    const t = { word, tag: p.slice(i + 1), start: pos, end: pos + word.length };
    pos += word.length;
    return t;
  });
}
const words = (spec: string, opts?: Partial<CandidateOptions>) => selectCandidates(toks(spec), createCandidateFilter(opts ?? DEFAULT_CANDIDATE_OPTIONS)).tokens.map((t) => t.word).join(' ');

// The spec §1.5 toy document.
const TOY = '长津湖/nz 是/v 一部/m 战争/n 电影/n ，/x 易烊千玺/nr 扮演/v 伍万里/nr ，/x 吴京/nr 主演/v 。/x 这部/r 电影/n 讲述/v 战争/n 故事/n 。/x';

test('default options are frozen and documented values', () => {
  assert.ok(Object.isFrozen(DEFAULT_CANDIDATE_OPTIONS));
  assert.deepEqual({ ...DEFAULT_CANDIDATE_OPTIONS }, { posFilter: 'containsNV', stopwords: 'filmkw', minLength: 2, english: 'keep', numbers: 'drop', stopwordCase: 'insensitive' });
});

const TABLE: { name: string; spec: string; opts: Partial<CandidateOptions>; want: string }[] = [
  { name: 'spec §1.5 toy: containsNV, only 是 as stop word (paper setting)', spec: TOY, opts: { stopwords: 'none', minLength: 1 }, want: '长津湖 是 战争 电影 易烊千玺 扮演 伍万里 吴京 主演 电影 讲述 战争 故事' },
  { name: 'default: film stop words remove 电影 故事 讲述, nodejieba list removes 是', spec: TOY, opts: {}, want: '长津湖 战争 易烊千玺 扮演 伍万里 吴京 主演 战争' },
  { name: 'containsNV keeps an, eng, vn, nrt, ng; drops a d r m x uj', spec: '危险/an IMAX/eng 生活/vn 莱昂纳多/nrt 乐队/ng 美丽/a 非常/d 我们/r 三个/m 啊/x 的/uj', opts: { stopwords: 'none' }, want: '危险 IMAX 生活 莱昂纳多 乐队' },
  { name: 'containsNVorX also keeps x (HMM unknown words), never punctuation', spec: '游天鸣/x 焦三/x 危险/an 唢呐/n 美丽/a 啊/x ，/x ……/x', opts: { posFilter: 'containsNVorX', stopwords: 'none' }, want: '游天鸣 焦三 危险 唢呐' },
  { name: 'startsWithNV drops an and eng', spec: '危险/an IMAX/eng 生活/vn 莱昂纳多/nrt 乐队/ng', opts: { posFilter: 'startsWithNV', stopwords: 'none' }, want: '生活 莱昂纳多 乐队' },
  { name: 'explicit list is an exact match (jieba allowPOS)', spec: '战争/n 生活/vn 扮演/v 易烊千玺/nr 长津湖/ns', opts: { posFilter: ['ns', 'n', 'vn', 'v'], stopwords: 'none' }, want: '战争 生活 扮演 长津湖' },
  { name: "posFilter 'none' keeps any tag but never punctuation or numbers", spec: '美丽/a 非常/d ，/x 2021/m 3.14/m 50%/m １２/m 三个/m ……/x 😀/x __/x', opts: { posFilter: 'none', stopwords: 'none' }, want: '美丽 非常 三个' },
  { name: 'minLength counts code points (𠀀 is one)', spec: '家/n 𠀀/n 𠀀𠀁/n 长津湖/nz', opts: { stopwords: 'none', minLength: 2 }, want: '𠀀𠀁 长津湖' },
  { name: 'minLength 1 keeps single characters', spec: '家/n 看/v', opts: { stopwords: 'none', minLength: 1 }, want: '家 看' },
  { name: 'minLength 3', spec: '家/n 战争/n 长津湖/nz', opts: { stopwords: 'none', minLength: 3 }, want: '长津湖' },
  { name: 'english drop removes pure-Latin tokens, keeps mixed', spec: 'IMAX/eng X战警/nz Wanda/eng c#/nz 阿凡达2/nz', opts: { english: 'drop', stopwords: 'none' }, want: 'X战警 阿凡达2' },
  { name: 'jiebaEnglish stop words match case-insensitively', spec: 'The/eng of/eng Wanda/eng 电影/n', opts: { stopwords: 'jiebaEnglish' }, want: 'Wanda 电影' },
  { name: 'cppjieba list: function words out, film words in', spec: '我们/r 因为/c 电影/n 觉得/v 时候/n', opts: { stopwords: 'cppjieba', posFilter: 'none' }, want: '电影 觉得' },
  { name: "numbers 'keep' (cppjieba): pure numbers stay, punctuation never", spec: '2014/m 80/m 3.14/m ，/x ……/x 战争/n', opts: { posFilter: 'none', stopwords: 'none', numbers: 'keep' }, want: '2014 80 3.14 战争' },
  { name: "stopwordCase 'sensitive' (cppjieba): Again is not the stop word again", spec: 'Again/eng again/eng 战争/n', opts: { posFilter: 'none', stopwords: 'filmkw', stopwordCase: 'sensitive' }, want: 'Again 战争' },
  { name: "stopwordCase 'insensitive' (default): Again = again", spec: 'Again/eng again/eng 战争/n', opts: { posFilter: 'none', stopwords: 'filmkw' }, want: '战争' },
  { name: 'filmkw list: guideline film words out', spec: '电影/n 影片/n 觉得/v 片子/n 导演/n 唢呐/n 传承/v', opts: { stopwords: 'filmkw' }, want: '唢呐 传承' },
];

for (const row of TABLE) {
  test(`selectCandidates: ${row.name}`, () => {
    assert.equal(words(row.spec, row.opts), row.want);
  });
}

test('empty input gives no candidates', () => {
  const r = selectCandidates([], createCandidateFilter());
  assert.deepEqual(r.tokens, []);
  assert.equal(r.indices.length, 0);
});

test('candidates keep word, tag, offsets and the index in the full token sequence', () => {
  const tokens = toks(TOY);
  const r = selectCandidates(tokens, createCandidateFilter({ stopwords: 'none', minLength: 1 }));
  assert.deepEqual([...r.indices], r.tokens.map((t) => t.index));
  for (const c of r.tokens) {
    assert.deepEqual({ word: c.word, tag: c.tag, start: c.start, end: c.end }, tokens[c.index]);
  }
  assert.deepEqual([...r.indices], [0, 1, 3, 4, 6, 7, 8, 10, 11, 14, 15, 16, 17]);
});

test('on real segmenter output, offsets still slice the text', () => {
  const text = '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。';
  const seg = createSegmenter({ userDictLines: ['易烊千玺 1 nr', '伍万里 1 nr', '长津湖 9 nz'] });
  const r = selectCandidates(seg.tag(text), createCandidateFilter());
  for (const c of r.tokens) assert.equal(text.slice(c.start, c.end), c.word);
  const ws = r.tokens.map((c) => c.word);
  for (const w of ['易烊千玺', '伍万里', '长津湖', '孩子', '视角', '主线']) assert.ok(ws.includes(w), w);
  assert.ok(!ws.includes('故事'), 'film stop word');
});

test('a stop-word set passed in replaces the named one', () => {
  const tokens = toks(TOY);
  const named = selectCandidates(tokens, createCandidateFilter({ stopwords: 'none', minLength: 1 }));
  const first = named.tokens[0].word;
  const mine = selectCandidates(tokens, createCandidateFilter({ stopwords: 'none', minLength: 1 }, new Set([first])));
  assert.ok(!mine.tokens.some((t) => t.word === first), first);
  assert.equal(mine.tokens.length, named.tokens.filter((t) => t.word !== first).length);
});

test('isPunctuationOrNumber', () => {
  for (const w of ['，', '。', ' ', '\n', '😀', '……', '2021', '3.14', '50%', '1,000', '１２', '-', '']) assert.ok(isPunctuationOrNumber(w), JSON.stringify(w));
  for (const w of ['三个', '2021年', 'C++', 'X战警', 'a', '家']) assert.ok(!isPunctuationOrNumber(w), w);
});

test('bad options are usage errors naming the valid values', () => {
  const cases: [Partial<CandidateOptions>, RegExp][] = [
    [{ posFilter: 'nv' as never }, /unknown posFilter "nv" \(valid: containsNV, containsNVorX, startsWithNV, none, or a list of tags\)/u],
    [{ posFilter: ['n', 'n v'] }, /posFilter tag "n v"/u],
    [{ stopwords: 'hit' as never }, /valid: filmkw, cppjieba, jiebaEnglish, none/u],
    [{ minLength: 0 }, /minLength must be an integer ≥ 1/u],
    [{ minLength: 1.5 }, /minLength/u],
    [{ english: 'yes' as never }, /english must be keep or drop/u],
    [{ numbers: 'some' as never }, /numbers must be keep or drop/u],
    [{ stopwordCase: 'upper' as never }, /stopwordCase must be insensitive or sensitive/u],
  ];
  for (const [opts, re] of cases) {
    assert.throws(() => resolveCandidateOptions(opts), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message), JSON.stringify(opts));
    assert.throws(() => createCandidateFilter(opts), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE');
  }
});
