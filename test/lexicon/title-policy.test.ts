import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { applyTitlePolicy, commonEntityNames, defaultBaseDictionary, dictionaryFrequencies, isCommonPhrase, isCommonWord, type TitlePolicyOptions } from '../../src/lexicon/title-policy.js';
import { matchEntities } from '../../src/pipeline/kg-match.js';
import { buildCandidateDoc } from '../../src/pipeline/candidate-doc.js';
import { miniKg, toTokens } from '../fixtures/pipeline/mini-kg.js';
import { ENTITY_KINDS } from '../../src/kg/model.js';

const tinyDict = fileURLToPath(new URL('../fixtures/pipeline/tiny.dict.utf8', import.meta.url));
const OPTS: TitlePolicyOptions = { titlePolicy: 'contextual', titleKinds: ['Movie', 'Character'], commonMinFreq: 100, commonMaxLength: 2, commonPhraseMaxLength: 3 };

test('common word: single characters, base-dictionary words of ≤ 2 characters, frequent base words', () => {
  const table: [string, number | undefined, boolean][] = [
    ['家', undefined, true],
    ['活着', 1400, true],
    ['告白', 12, true],
    ['战狼', undefined, false],
    ['理发师', 300, true],
    ['霸王别姬', 27, false],
    ['长津湖', undefined, false],
  ];
  for (const [name, freq, common] of table) assert.equal(isCommonWord(name, freq, OPTS), common, name);
  assert.equal(isCommonWord('告白', 12, { commonMinFreq: 100, commonMaxLength: 1 }), false);
  const freq = dictionaryFrequencies(tinyDict, new Set(['活着', '霸王别姬', '不在']));
  assert.deepEqual([...freq], [['活着', 1400], ['霸王别姬', 27]]);
  assert.throws(() => dictionaryFrequencies('/nonexistent/dict.utf8', new Set()), /title-policy: cannot read the base dictionary/);
});

const kg = miniKg(
  [
    { name: '活着', kind: 'Movie' },
    { name: '余华', kind: 'Person' },
    { name: '葛优', kind: 'Person' },
    { name: '剧情', kind: 'Genre' },
    { name: '霸王别姬', kind: 'Movie' },
    { name: '医生', kind: 'Character' },
    { name: '家', kind: 'Movie' },
  ],
  [
    ['余华', '编剧', '活着'],
    ['葛优', '主演', '活着'],
    ['活着', '类型', '剧情'],
    ['霸王别姬', '类型', '剧情'],
    ['医生', '角色', '霸王别姬'],
  ],
);

test('commonEntityNames: names of policy kinds that are common words (tiny dictionary)', () => {
  const common = commonEntityNames(kg, OPTS, tinyDict);
  assert.deepEqual([...common].sort(), ['医生', '家', '活着'].sort());
  const moviesOnly = commonEntityNames(kg, { ...OPTS, titleKinds: ['Movie'] }, tinyDict);
  assert.deepEqual([...moviesOnly].sort(), ['家', '活着'].sort());
});

test('the real base dictionary: 英雄, 活着, 家, 春天, 无双 are common; 长津湖, 霸王别姬, 战狼 are not', () => {
  const titles = ['英雄', '活着', '家', '春天', '无双', '长津湖', '霸王别姬', '战狼', '让子弹飞'];
  const big = miniKg(titles.map((name) => ({ name, kind: 'Movie' as const })), []);
  const common = commonEntityNames(big, OPTS, defaultBaseDictionary());
  assert.deepEqual(titles.filter((t) => common.has(t)), ['英雄', '活着', '家', '春天', '无双']);
});

test('rule 1b: short names made of common base words (来了, 一个人, 那个人) are common; proper names and longer titles are not', () => {
  const lex = dictionaryFrequencies(defaultBaseDictionary(), null);
  const table: [string, boolean][] = [
    ['来了', true], // 来/了
    ['一个人', true], // 一个/人
    ['那个人', true], // 那个/人
    ['李想', false], // 李 (9,566) is below the single-character threshold
    ['小白', false], // 白 12,266
    ['花样年华', false], // 4 characters: mostly real titles
    ['我不是药神', false],
    ['活着', false], // a base word itself: rule 1, not 1b
    ['长津湖', false],
  ];
  for (const [name, want] of table) assert.equal(isCommonPhrase(name, lex, 100, 3), want, name);
  assert.equal(isCommonPhrase('花样年华', lex, 100, 4), true, 'within a max length of 4');
  assert.equal(isCommonPhrase('来了', lex, 100, 1), false, 'off');
  const titles = ['来了', '一个人', '长津湖', '英雄'];
  const big = miniKg(titles.map((name) => ({ name, kind: 'Movie' as const })), []);
  assert.deepEqual(titles.filter((t) => commonEntityNames(big, OPTS, defaultBaseDictionary()).has(t)), ['来了', '一个人', '英雄']);
  assert.deepEqual(titles.filter((t) => commonEntityNames(big, { ...OPTS, commonPhraseMaxLength: 0 }, defaultBaseDictionary()).has(t)), ['英雄'], 'rule 1b off');
});

function policy(tagged: [string, string][], options: TitlePolicyOptions = OPTS): Record<string, string[] | null> {
  const tokens = toTokens(tagged);
  const text = tokens.map((t) => t.word).join('');
  const idx = tokens.flatMap((t, i) => (t.tag === 'x' ? [] : [i]));
  const doc = buildCandidateDoc(tokens, idx);
  const entities = matchEntities(doc.words, kg, { match: 'exactOrAlias', mergeAliases: true, ambiguity: 'union', kinds: [...ENTITY_KINDS] });
  const common = commonEntityNames(kg, options, tinyDict);
  const out = applyTitlePolicy(entities, kg, { text, words: doc.words, node: doc.node, charStart: doc.charStart }, common, options);
  return Object.fromEntries(doc.words.map((w, i) => [w, out[i] ? Array.from(out[i]!, (e) => kg.nameOf(e)) : null]));
}

test("contextual: a common-word title is an entity only in 《》 or next to a related firm entity", () => {
  // 活着 as a verb: no entity
  assert.equal(policy([['好好', 'd'], ['活着', 'v'], ['剧情', 'n']])['活着'], null, 'a genre is no evidence');
  // in 《》
  assert.deepEqual(policy([['《', 'x'], ['活着', 'v'], ['》', 'x'], ['好看', 'a']])['活着'], ['活着']);
  // brackets must enclose exactly the word
  assert.equal(policy([['《', 'x'], ['活着', 'v'], ['的', 'uj'], ['人', 'n'], ['》', 'x']])['活着'], null);
  // a related person in the same document
  assert.deepEqual(policy([['余华', 'nr'], ['的', 'uj'], ['活着', 'v']])['活着'], ['活着']);
  // a character with a common name, accepted next to its film (a firm entity), rejected alone
  assert.deepEqual(policy([['霸王别姬', 'nz'], ['里', 'f'], ['医生', 'n']])['医生'], ['医生']);
  assert.equal(policy([['这个', 'r'], ['医生', 'n']])['医生'], null);
  // two common titles do not vouch for each other
  assert.equal(policy([['家', 'n'], ['活着', 'v']])['活着'], null);
  // a non-common title is never touched
  assert.deepEqual(policy([['霸王别姬', 'nz']])['霸王别姬'], ['霸王别姬']);
});

test("'always' keeps every match (the paper); 'never' drops common-word titles even in 《》", () => {
  assert.deepEqual(policy([['活着', 'v']], { ...OPTS, titlePolicy: 'always' })['活着'], ['活着']);
  assert.equal(policy([['《', 'x'], ['活着', 'v'], ['》', 'x'], ['余华', 'nr']], { ...OPTS, titlePolicy: 'never' })['活着'], null);
  assert.deepEqual(policy([['余华', 'nr']], { ...OPTS, titlePolicy: 'never' })['余华'], ['余华']);
});

test('contextual: a firm neighbour vouches only from another word, whichever side the check walks (few or many firm entities)', () => {
  const persons = ['余华', 'P1', 'P2', 'P3', 'P4', 'P5', 'Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7', 'Q8'];
  const k = miniKg([{ name: '活着', kind: 'Movie' }, ...persons.map((name) => ({ name, kind: 'Person' as const }))], ['余华', 'P1', 'P2', 'P3', 'P4', 'P5'].map((p) => ['活着', 'related', p] as [string, string, string]));
  const id = (name: string) => k.lookup(name)[0];
  const run = (words: string[][]): (string[] | null)[] => {
    const surfaces = words.map((_, i) => (i === 0 ? '活着' : `w${i}`));
    const text = surfaces.join('，');
    const charStart = Int32Array.from(surfaces.map((_, i) => surfaces.slice(0, i).reduce((s, w) => s + w.length + 1, 0)));
    const ents = words.map((names) => (names.length ? Int32Array.from(names.map(id)) : null));
    const out = applyTitlePolicy(ents, k, { text, words: surfaces, node: Int32Array.from(surfaces.keys()), charStart }, new Set(['活着']), OPTS);
    return out.map((s) => (s ? Array.from(s, (e) => k.nameOf(e)) : null));
  };
  const many = ['Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7', 'Q8'].map((q) => [q]);
  for (const extra of [[], many]) {
    // 余华 is firm only in the word 活着 itself: no evidence
    assert.deepEqual(run([['活着', '余华'], ['Q1'], ...extra])[0], ['余华'], `${extra.length} more firm words`);
    // 余华 also firm in another word: the film is kept
    assert.deepEqual(run([['活着', '余华'], ['余华'], ...extra])[0], ['活着', '余华'], `${extra.length} more firm words`);
    assert.deepEqual(run([['活着'], ['P5'], ...extra])[0], ['活着']);
    assert.equal(run([['活着'], ...extra])[0], null);
  }
});
