/**
 * The keyphrase stage (src/pipeline/phrases.ts, option group `phrases`): phrase candidates from runs of
 * adjacent candidate tokens, their scores from the words' scores, the selection with the dedup rule, the
 * integration in the core (kind/entityId, explain, determinism) and the option validation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { extractFromTokens } from '../../src/pipeline/core.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { MatchCache } from '../../src/pipeline/kg-match.js';
import { DEFAULT_OPTIONS, resolveOptions, type ResolvedOptions } from '../../src/pipeline/options.js';
import { buildCandidateDoc } from '../../src/pipeline/candidate-doc.js';
import { DEFAULT_PHRASE_OPTIONS, findPhrases, isFunctionTag, nodeCounts, phraseScores } from '../../src/pipeline/phrases.js';
import { selectItems, type RankedItem } from '../../src/pipeline/select.js';
import { listPresets } from '../../src/pipeline/presets.js';
import { keywordsJson, roundScore } from '../../src/batch/format.js';
import type { KgView } from '../../src/kg/model.js';
import type { Keyword } from '../../src/pipeline/api.js';
import { miniKg, toTokens, toyKg } from '../fixtures/pipeline/mini-kg.js';

const usage = (re: RegExp) => (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && re.test(e.message);

/**
 * Fixture: 唢呐艺人焦三爷说，唢呐是传统文化。传统文化需要传承，唢呐艺人也需要传承。唢呐声响起。唢呐，唢呐。
 * Candidates (by hand): tag contains n or v, ≥ 2 characters, not 是. Runs of adjacent candidates:
 * 唢呐 艺人 焦三爷 | 唢呐 | 传统 文化 | 传统 文化 需要 传承 | 唢呐 艺人 | 需要 传承 | 唢呐 | 响起 | 唢呐 | 唢呐.
 * Two-token sequences: 唢呐艺人 ×2, 艺人焦三爷 ×1, 传统文化 ×2, 文化需要 ×1, 需要传承 ×2.
 * Word counts: 唢呐 6, 艺人 2, 传统 2, 文化 2, 需要 2, 传承 2, 焦三爷 1, 响起 1.
 */
const TAGGED: [string, string][] = [
  ['唢呐', 'n'], ['艺人', 'n'], ['焦三爷', 'nr'], ['说', 'v'], ['，', 'x'], ['唢呐', 'n'], ['是', 'v'], ['传统', 'n'], ['文化', 'n'], ['。', 'x'],
  ['传统', 'n'], ['文化', 'n'], ['需要', 'v'], ['传承', 'v'], ['，', 'x'], ['唢呐', 'n'], ['艺人', 'n'], ['也', 'd'], ['需要', 'v'], ['传承', 'v'], ['。', 'x'],
  ['唢呐', 'n'], ['声', 'n'], ['响起', 'v'], ['。', 'x'], ['唢呐', 'n'], ['，', 'x'], ['唢呐', 'n'], ['。', 'x'],
];
const TOKENS = toTokens(TAGGED);
const TEXT = TOKENS.map((t) => t.word).join('');
const CANDIDATES = TOKENS.flatMap((t, i) => (/[nv]/u.test(t.tag) && [...t.word].length >= 2 && t.word !== '是' ? [i] : []));
const DOC = buildCandidateDoc(TOKENS, CANDIDATES);

const phraseSummary = (options: Partial<typeof DEFAULT_PHRASE_OPTIONS>, entities: (Int32Array | null)[] | null = null, tokens: { word: string; tag?: string }[] = TOKENS) =>
  findPhrases(tokens, DOC, { ...DEFAULT_PHRASE_OPTIONS, ...options }, entities).map((p) => [p.text, p.count, Array.from(p.members, (m) => DOC.words[m]).join('+')]);

test('findPhrases: two-token sequences of adjacent candidates occurring ≥ minCount times, in order of first occurrence', () => {
  assert.deepEqual(DOC.words, ['唢呐', '艺人', '焦三爷', '传统', '文化', '需要', '传承', '响起']);
  assert.deepEqual(phraseSummary({}), [
    ['唢呐艺人', 2, '唢呐+艺人'],
    ['传统文化', 2, '传统+文化'],
    ['需要传承', 2, '需要+传承'],
  ]);
  // minCount 1: also the sequences seen once
  assert.deepEqual(phraseSummary({ minCount: 1 }).map(([t, c]) => `${t}×${c}`), ['唢呐艺人×2', '艺人焦三爷×1', '传统文化×2', '文化需要×1', '需要传承×2']);
  // maxTokens 3: the trigrams are seen once each, so minCount 2 keeps the same three
  assert.deepEqual(phraseSummary({ maxTokens: 3 }).map(([t]) => t), ['唢呐艺人', '传统文化', '需要传承']);
  assert.deepEqual(phraseSummary({ maxTokens: 3, minCount: 1 }).map(([t]) => t), ['唢呐艺人', '唢呐艺人焦三爷', '艺人焦三爷', '传统文化', '传统文化需要', '文化需要', '文化需要传承', '需要传承']);
  // maximal runs only (pke): 唢呐艺人焦三爷 (3 tokens), 传统文化 alone once, 传统文化需要传承 (4 tokens), 唢呐艺人, 需要传承
  assert.deepEqual(phraseSummary({ spans: 'maximal', minCount: 1 }).map(([t, c]) => `${t}×${c}`), ['传统文化×1', '唢呐艺人×1', '需要传承×1']);
  assert.deepEqual(phraseSummary({ spans: 'maximal', minCount: 1, maxTokens: 4 }).map(([t]) => t), ['唢呐艺人焦三爷', '传统文化', '传统文化需要传承', '唢呐艺人', '需要传承']);
  assert.deepEqual(phraseSummary({ spans: 'maximal' }), []);
});

test('findPhrases: function-word tokens (pos contentWords), entity words and surfaces that are graph words end a run', () => {
  // 需要 tagged as an adverb: with contentWords it cannot be part of a phrase
  const retagged = TOKENS.map((t) => (t.word === '需要' ? { ...t, tag: 'd' } : t));
  assert.deepEqual(phraseSummary({ pos: 'contentWords' }, null, retagged).map(([t]) => t), ['唢呐艺人', '传统文化']);
  assert.deepEqual(phraseSummary({ pos: 'any' }, null, retagged).map(([t]) => t), ['唢呐艺人', '传统文化', '需要传承']);
  assert.deepEqual([isFunctionTag('m'), isFunctionTag('mq'), isFunctionTag('uj'), isFunctionTag('d'), isFunctionTag('r'), isFunctionTag('n'), isFunctionTag('nr'), isFunctionTag('vn'), isFunctionTag('x'), isFunctionTag(undefined)], [true, true, true, true, true, false, false, false, false, false]);
  // 艺人 denotes an entity: no phrase contains it
  const entities = DOC.words.map((w) => (w === '艺人' ? Int32Array.of(0) : null));
  assert.deepEqual(phraseSummary({}, entities).map(([t]) => t), ['传统文化', '需要传承']);
  // a sequence whose surface is a graph word is not a phrase (the word exists as one unit)
  const tokens = toTokens([['传统文化', 'n'], ['，', 'x'], ['传统', 'n'], ['文化', 'n'], ['，', 'x'], ['传统', 'n'], ['文化', 'n']]);
  const doc = buildCandidateDoc(tokens, [0, 2, 3, 5, 6]);
  assert.deepEqual(findPhrases(tokens, doc, DEFAULT_PHRASE_OPTIONS), []);
});

test('phraseScores: sum, mean, max and the occurrence-share sum, hand-computed', () => {
  const phrases = findPhrases(TOKENS, DOC, DEFAULT_PHRASE_OPTIONS);
  // word values by hand: 唢呐 4, 艺人 1, 焦三爷 9, 传统 2, 文化 3, 需要 0.5, 传承 1.5, 响起 7
  const values = Float64Array.of(4, 1, 9, 2, 3, 0.5, 1.5, 7);
  const eligible = new Uint8Array(8).fill(1);
  const counts = nodeCounts(DOC.node, 8);
  assert.deepEqual(Array.from(counts), [6, 2, 1, 2, 2, 2, 2, 1]);
  // 唢呐艺人 (×2): 4·2/6 + 1·2/2 = 7/3; 传统文化 (×2): 2 + 3 = 5; 需要传承 (×2): 0.5 + 1.5 = 2
  assert.deepEqual(Array.from(phraseScores(phrases, values, eligible, counts, 'shareSum')), [4 * (2 / 6) + 1, 5, 2]);
  assert.deepEqual(Array.from(phraseScores(phrases, values, eligible, counts, 'sum')), [5, 5, 2]);
  assert.deepEqual(Array.from(phraseScores(phrases, values, eligible, counts, 'mean')), [2.5, 2.5, 1]);
  assert.deepEqual(Array.from(phraseScores(phrases, values, eligible, counts, 'max')), [4, 3, 1.5]);
  // a member that may not be output (a dropped isolated word): the phrase is not output either
  eligible[1] = 0;
  assert.ok(Number.isNaN(phraseScores(phrases, values, eligible, counts, 'shareSum')[0]));
});

test('selectItems: by score with the tie-break, and the dedup rule (no overlapping variants)', () => {
  const item = (text: string, value: number, charStart: number, phrase = false): RankedItem => ({ text, value, charStart, phrase });
  const items = [item('唢呐', 5, 0), item('唢呐班', 4, 10), item('唢呐艺人', 4.5, 0, true), item('传统', 3, 20), item('传统文化', 3, 20, true), item('艺人', 1, 2), item('吴天明', NaN, 30)];
  const words = (order: number[]) => order.map((i) => items[i].text);
  // 'phrases': 唢呐艺人 contains the higher 唢呐, so it is skipped; 传统 and 传统文化 tie: same first
  // occurrence, the longer surface first, then 传统 is a variant of it; 唢呐班 vs 唢呐 are two words
  assert.deepEqual(words(selectItems(items, 'firstOccurrence', 'phrases', 10)), ['唢呐', '唢呐班', '传统文化', '艺人']);
  assert.deepEqual(words(selectItems(items, 'firstOccurrence', 'all', 10)), ['唢呐', '传统文化', '艺人']);
  assert.deepEqual(words(selectItems(items, 'firstOccurrence', 'off', 10)), ['唢呐', '唢呐艺人', '唢呐班', '传统文化', '传统', '艺人']);
  // code-point tie-break: 传统 (U+4F20 U+7EDF) before 传统文化 (a prefix sorts first)
  assert.deepEqual(words(selectItems(items, 'lexicographic', 'off', 10)), ['唢呐', '唢呐艺人', '唢呐班', '传统', '传统文化', '艺人']);
  assert.deepEqual(words(selectItems(items, 'firstOccurrence', 'phrases', 2)), ['唢呐', '唢呐班']);
  assert.deepEqual(selectItems([], 'firstOccurrence', 'phrases', 5), []);
});

test('selectItems: the scan for a few (limit ≤ 10) and the sort for more give the same order, with ties, ±0, infinities and NaN', () => {
  let seed = 7;
  const next = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % k);
  const values = [0, -0, 1, 0.5, -1, Infinity, -Infinity, NaN, 2];
  for (let doc = 0; doc < 50; doc++) {
    const items: RankedItem[] = Array.from({ length: 30 }, (_, i) => ({ text: ['甲', '乙乙', '丙丙丙', '丁'][next(4)] + i, value: values[next(values.length)], charStart: next(5), phrase: next(2) === 0 }));
    for (const tieBreak of ['firstOccurrence', 'lexicographic'] as const) {
      const sorted = selectItems(items, tieBreak, 'off', 30);
      assert.equal(sorted.length, items.filter((it) => !Number.isNaN(it.value)).length);
      for (const limit of [1, 5, 10]) assert.deepEqual(selectItems(items, tieBreak, 'off', limit), sorted.slice(0, limit), `doc ${doc} ${tieBreak} ${limit}`);
    }
  }
});

const get0 = (list: Keyword[], w: string): Keyword => list.find((k) => k.word === w)!;

const run = (options: ResolvedOptions, kg: KgView | null = null, tokens = TOKENS, candidates = CANDIDATES, topK = 10) =>
  extractFromTokens(tokens.map((t) => t.word).join(''), tokens, candidates, { options, kg, common: new Set(), cache: new MatchCache() }, { topK, explain: true });

test('golden (pre-tagged fixture, textrank + phrases): 传统文化 replaces 传统 and 文化, 唢呐 stays above 唢呐艺人; scores hand-checked', () => {
  const off = run(resolveOptions('textrank'));
  const on = run(resolveOptions('textrank', { 'phrases.enabled': true }));
  const word = (k: { word: string }) => k.word;
  assert.deepEqual(off.map(word), ['唢呐', '传统', '文化', '需要', '传承', '艺人', '焦三爷', '响起']);
  assert.deepEqual(on.map(word), ['传统文化', '需要传承', '唢呐', '艺人', '焦三爷', '响起']);
  const score = new Map(off.map((k) => [k.word, k.score]));
  const get = (w: string) => on.find((k) => k.word === w)!;
  // shareSum by hand from the word scores (counts in the fixture header)
  const expected: [string, number, number][] = [
    ['传统文化', score.get('传统')! + score.get('文化')!, 2],
    ['需要传承', score.get('需要')! + score.get('传承')!, 2],
  ];
  for (const [phrase, value, occurrences] of expected) {
    const k = get(phrase);
    assert.ok(Math.abs(k.score - value) < 1e-12, `${phrase}: ${k.score} vs ${value}`);
    assert.equal(k.explain!.phrase!.occurrences, occurrences);
    assert.equal(k.kind, undefined);
  }
  // 唢呐艺人 = 唢呐·2/6 + 艺人·2/2 is below 唢呐 alone (most 唢呐 are not in it): 唢呐 is output, not the variant
  assert.ok(score.get('唢呐')! / 3 + score.get('艺人')! < score.get('唢呐')!);
  assert.ok(!on.some((k) => k.word === '唢呐艺人'));
  // words keep their scores; phrase explain: its words with their scores, edges outside the phrase
  assert.equal(get('唢呐').score, score.get('唢呐'));
  const ct = get('传统文化').explain!;
  // `filmkw tag --explain` writes the phrase part too (rounded like the other numbers)
  const json = JSON.parse(keywordsJson([get('传统文化')], true))[0];
  assert.deepEqual(json.explain.phrase, { words: [{ word: '传统', score: roundScore(score.get('传统')!) }, { word: '文化', score: roundScore(score.get('文化')!) }], occurrences: 2 });
  assert.equal(JSON.parse(keywordsJson([get('唢呐')], true))[0].explain.phrase, undefined);
  assert.deepEqual(ct.phrase!.words, [{ word: '传统', score: score.get('传统') }, { word: '文化', score: score.get('文化') }]);
  assert.ok(ct.neighbours.every((n) => n.word !== '传统' && n.word !== '文化') && ct.neighbours.length > 0);
  // cooc: the edges of 传统 and of 文化, the edge between them counted once
  const internal = get0(off, '传统').explain!.neighbours.find((n) => n.word === '文化')!.cooc;
  assert.equal(ct.cooc, get0(off, '传统').explain!.cooc + get0(off, '文化').explain!.cooc - internal);
  // with 'sum', 唢呐艺人 = 唢呐 + 艺人 beats 唢呐 and takes its place
  const sum = run(resolveOptions('textrank', { 'phrases.enabled': true, 'phrases.score': 'sum' })).map(word);
  assert.ok(sum.includes('唢呐艺人') && !sum.includes('唢呐'), sum.join(' '));
  // 'mean' is never above the best word, so under dedup it changes nothing here
  assert.deepEqual(run(resolveOptions('textrank', { 'phrases.enabled': true, 'phrases.score': 'mean' })), off);
});

test('a phrase that is exactly a KG entity name keeps its kind and entityId', () => {
  // the name split by the segmenter (no lexicon): 易烊 + 千玺, twice, next to 伍万里 (a KG neighbour)
  const tokens = toTokens([['易烊', 'x'], ['千玺', 'x'], ['扮演', 'v'], ['伍万里', 'nr'], ['。', 'x'], ['易烊', 'x'], ['千玺', 'x'], ['表演', 'v'], ['出色', 'a'], ['。', 'x']]);
  const candidates = [0, 1, 2, 3, 5, 6, 7, 8];
  const keywords = run(resolveOptions('textrank', { 'phrases.enabled': true }), toyKg(), tokens, candidates);
  const yi = keywords.find((k) => k.word === '易烊千玺');
  assert.ok(yi, keywords.map((k) => k.word).join(' '));
  assert.equal(yi.kind, 'Person');
  assert.equal(yi.entityId, 'person/name/易烊千玺');
  assert.equal(keywords.find((k) => k.word === '伍万里')!.kind, 'Character');
  assert.ok(!keywords.some((k) => k.word === '易烊' || k.word === '千玺'));
  // annotateEntities off: no kind on phrases either
  const plain = run(resolveOptions('textrank', { 'phrases.enabled': true, 'output.annotateEntities': false }), toyKg(), tokens, candidates);
  assert.ok(plain.every((k) => k.kind === undefined && k.entityId === undefined));
  // an ambiguous phrase reports the entity with most in-document links: the Character 英雄, linked to
  // 李连杰 in the document, before the Movie 英雄 (which the kind order alone would pick)
  const kg = miniKg([{ name: '英雄', kind: 'Character' }, { name: '英雄', kind: 'Movie' }, { name: '李连杰', kind: 'Person' }], [['李连杰', '饰演', '英雄']]);
  const t2 = toTokens([['英', 'x'], ['雄', 'x'], ['李连杰', 'nr'], ['，', 'x'], ['英', 'x'], ['雄', 'x']]);
  const k2 = run(resolveOptions('textrank', { 'phrases.enabled': true }), kg, t2, [0, 1, 2, 4, 5]).find((k) => k.word === '英雄')!;
  assert.equal(k2.kind, 'Character');
});

test('phrases in the pipeline: deterministic, a document alone equals it in a batch, scores sorted, scale over words and phrases', () => {
  const texts = ['传统文化需要传承，传统文化也需要创新。唢呐是传统乐器。', '时间旅行是这部电影的主题，时间旅行的设定很新颖。', '今天天气很好。', TEXT];
  const make = () => createExtractor({ preset: 'textrank', overrides: { 'phrases.enabled': true } });
  const a = make();
  const alone = texts.map((t) => make().extract(t, { explain: true }));
  const batch = texts.map((t) => a.extract(t, { explain: true }));
  const reversed = [...texts].reverse().map((t) => a.extract(t, { explain: true })).reverse();
  assert.deepEqual(batch, alone);
  assert.deepEqual(reversed, alone);
  assert.ok(alone[0].some((k) => k.word === '传统文化'), JSON.stringify(alone[0].map((k) => k.word)));
  assert.ok(alone[1].some((k) => k.word === '时间旅行'), JSON.stringify(alone[1].map((k) => k.word)));
  for (const list of alone) for (let i = 1; i < list.length; i++) assert.ok(list[i - 1].score >= list[i].score);
  // min-max/10 and sum scaling include the phrases: the top item is 1, the scores sum to ≤ 1
  const mm = createExtractor({ preset: 'textrank', overrides: { 'phrases.enabled': true, 'output.scoreScale': 'minMax10' } }).extract(texts[0]);
  assert.equal(mm[0].score, 1);
  const sum = createExtractor({ preset: 'textrank', overrides: { 'phrases.enabled': true, 'output.scoreScale': 'sum' } }).extract(texts[0], { topK: 100 });
  assert.ok(sum.reduce((s, k) => s + k.score, 0) <= 1 + 1e-12);
});

test('options: group phrases, defaults frozen, off in every preset except filmkw and filmkw-rerank, validation errors list the values', () => {
  assert.deepEqual({ ...DEFAULT_OPTIONS.phrases }, { enabled: false, spans: 'ngrams', pos: 'any', entityWords: 'exclude', maxTokens: 2, minCount: 2, score: 'shareSum', dedup: 'phrases', parts: 'candidates', rescueWords: 'off', nameTail: false, stopHeads: 'off', fullNames: false });
  assert.ok(Object.isFrozen(DEFAULT_OPTIONS.phrases) && Object.isFrozen(DEFAULT_PHRASE_OPTIONS));
  for (const preset of listPresets()) assert.equal(resolveOptions(preset).phrases.enabled, preset === 'filmkw' || preset === 'filmkw-rerank', preset);
  // the re-ranker and compound parts only in filmkw-rerank
  for (const preset of listPresets()) assert.equal(resolveOptions(preset).rerank.enabled, preset === 'filmkw-rerank', preset);
  assert.deepEqual({ ...resolveOptions('filmkw-rerank').phrases }, { ...resolveOptions('filmkw').phrases, parts: 'content', maxTokens: 3, minCount: 1 });
  assert.throws(() => resolveOptions('textrank', { 'phrases.parts': 'tokens' }), usage(/expected 'candidates' \| 'content'/));
  assert.throws(() => resolveOptions('textrank', { 'rerank.enabled': 1 }), usage(/bad value for rerank\.enabled: 1 \(expected true \| false\)/));
  const o = resolveOptions('textrank', { phrases: { enabled: true, maxTokens: 3 }, 'phrases.score': 'sum', minCount: 3, dedup: 'all' });
  assert.deepEqual([o.phrases.enabled, o.phrases.maxTokens, o.phrases.score, o.phrases.minCount, o.phrases.dedup], [true, 3, 'sum', 3, 'all']);
  assert.throws(() => resolveOptions('textrank', { 'phrases.maxTokns': 3 }), usage(/unknown option "phrases\.maxTokns"/));
  assert.throws(() => resolveOptions('textrank', { phrases: { foo: 1 } }), usage(/unknown option "phrases\.foo"; valid options in phrases: enabled, spans, pos, entityWords, maxTokens, minCount, score, dedup, parts/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.maxTokens': 1 }), usage(/bad value for phrases\.maxTokens: 1 \(expected an integer ≥ 2 and ≤ 8\)/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.maxTokens': 2.5 }), usage(/phrases\.maxTokens/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.minCount': 0 }), usage(/bad value for phrases\.minCount: 0 \(expected an integer ≥ 1 and ≤ 1000000\)/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.score': 'avg' }), usage(/expected 'sum' \| 'mean' \| 'max' \| 'shareSum'/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.dedup': true }), usage(/expected 'phrases' \| 'all' \| 'off'/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.spans': 'all' }), usage(/expected 'ngrams' \| 'maximal'/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.pos': 'nouns' }), usage(/expected 'contentWords' \| 'any'/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.entityWords': 'keep' }), usage(/expected 'exclude' \| 'people' \| 'allow'/));
  assert.throws(() => resolveOptions('textrank', { 'phrases.enabled': 'yes' }), usage(/expected true \| false/));
  // `enabled` alone is now ambiguous between semantic and phrases
  assert.throws(() => resolveOptions('textrank', { enabled: true }), usage(/"enabled" is ambiguous; use one of semantic\.enabled, phrases\.enabled, rerank\.enabled/));
});
