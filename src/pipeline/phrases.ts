/**
 * Keyphrase stage (an extension beyond 王芳 等 2022; option group `phrases`, off in every paper preset):
 * multi-token keyphrases formed from the ranked words, as SingleRank/PositionRank and pke do — rank the
 * words on the graph, then form candidate phrases from sequences of adjacent candidate tokens and score
 * a phrase from its words' scores.
 *
 * Why: a word-level ranker can only return single tokens of the segmentation, but many keywords are
 * compounds of adjacent tokens (传统+文化, 匠人+精神, 时间+旅行, 校园+霸凌; in CSL most terms). On film-dev
 * 218 of the 900 gold keywords are not single tokens, 107 of them runs of adjacent candidate tokens.
 *
 * Stage (pure, per document, after the ranking and the IDF prior, before the score scaling):
 * 1. **Phrase candidates.** A run is a maximal sequence of candidate occurrences whose tokens are
 *    adjacent in the full token sequence (nothing between them: no punctuation, stop word, space or
 *    filtered token). `spans: 'ngrams'` takes every contiguous sub-sequence of 2..`maxTokens` tokens of a
 *    run; `'maximal'` takes only whole runs of 2..`maxTokens` tokens (pke's candidate = a maximal
 *    sequence). The phrase is the concatenated surface (the text between its first and last token).
 *    A phrase is kept when it occurs at least `minCount` times in the document in that role (the
 *    frequency condition: a collocation, not an accidental neighbourhood) and its surface is not
 *    itself a graph word.
 * 2. **Phrase score** from the final scores v(w) of its words (graph score, × IDF when the prior is on):
 *    `'sum'` Σ v(w) (SingleRank, PositionRank), `'mean'` Σ v(w)/m, `'max'` max v(w), or `'shareSum'`
 *    Σ v(w)·c(p)/c(w), where c counts occurrences in the document: each word passes on the share of its
 *    score that its occurrences inside the phrase carry. With `'shareSum'` a phrase beats its own word
 *    only when the word is mostly used inside the phrase (传统 in 传统文化), not when a frequent word
 *    happens to form a phrase twice (唢呐 in 唢呐艺术). Under `'sum'` a phrase always beats its words.
 * 3. **Selection** (select.ts `selectItems`) of the top K from words and phrases together, by score,
 *    ties broken by first occurrence (then the longer surface) or by code point (`rank.tieBreak`), with the guideline's rule
 *    "no overlapping variants" (`dedup`): going down the ranking, an item is skipped when its surface
 *    contains or is contained in the surface of an item already taken — `'phrases'` applies this only
 *    when one of the two is a phrase (唢呐 vs 唢呐艺术), `'all'` also between two words (唢呐 vs 唢呐班),
 *    `'off'` never. So which variant is output is decided by score.
 *
 * Defaults: measured around the preset `filmkw` on film-dev and csl-dev, one option at a time; the
 * figures and the reading of each variant are in eval/results/film-dev/ANALYSIS.md §6.
 *
 * Output: a phrase is a `Keyword` like a word; `kind`/`entityId` are reported when the phrase surface
 * itself names a KG entity (kg-match rules, the entity with most in-document links), and `--explain`
 * gives the sums of its words' edge contributions, the strongest neighbours outside the phrase and
 * `phrase: {words, occurrences}`. Pure and deterministic: a document gives the same output alone or in
 * a batch.
 */
import { nodeIndex } from './candidate-doc.js';
import { memoOneUnit } from './candidates.js';
import { arena } from '../util/arena.js';
import type { OptionRules } from '../util/option-rules.js';

/** Options of the keyphrase stage (group `phrases`). */
export interface PhraseOptions {
  /**
   * Form multi-token keyphrases from adjacent candidate tokens (module header). Off in the paper's
   * presets.
   * @default false
   */
  enabled: boolean;
  /**
   * Which sequences of adjacent candidate tokens are phrase candidates: every contiguous sub-sequence
   * of a run (`'ngrams'`) or only whole runs (`'maximal'`, pke).
   * @default 'ngrams'
   */
  spans: (typeof PHRASE_SPANS)[number];
  /**
   * Which tokens may be part of a phrase: any candidate token (`'any'`), or only content words
   * (`'contentWords'`: no token whose POS tag marks a function word — numeral m, classifier q,
   * pronoun r, adverb d, preposition p, conjunction c, particle u, interjection e, modal particle y,
   * onomatopoeia o; tokens without a tag count as content words).
   * @default 'any'
   */
  pos: (typeof PHRASE_POS)[number];
  /**
   * Whether a phrase may contain a word that names a KG entity (after the title policy): `'exclude'`
   * (entity names are already units of the lexicon, and an entity name plus other words — 吴天明导演,
   * 神山冈仁波齐, X战警小队 — is a variant of the entity, which guideline rule 4 rules out in favour of
   * the name), `'people'` (only a word naming a person or a character is excluded: a film title or a
   * genre that is a common word is a part like any other, 山村+邮递员, 鸣梁+海峡, 家庭+伦理片), or
   * `'allow'`. No effect without a KG.
   * @default 'exclude'
   */
  entityWords: (typeof PHRASE_ENTITY_WORDS)[number];
  /**
   * Maximum number of tokens of a phrase (at least 2).
   * @default 2
   */
  maxTokens: number;
  /**
   * Minimum number of occurrences of a phrase in the document.
   * @default 2
   */
  minCount: number;
  /**
   * Phrase score from its words' final scores: sum, mean, max, or the occurrence-share sum
   * Σ v(w)·c(phrase)/c(w) (module header).
   * @default 'shareSum'
   */
  score: (typeof PHRASE_SCORES)[number];
  /**
   * No overlapping variants in the output (a surface containing another): between a phrase and any
   * other item (`'phrases'`), between any two items (`'all'`), or not at all (`'off'`).
   * @default 'phrases'
   */
  dedup: (typeof PHRASE_DEDUP)[number];
  /**
   * Which tokens a phrase is made of: adjacent candidate occurrences (`'candidates'`, the stage as
   * first written), or adjacent content tokens chosen by POS and not by length (`'content'`,
   * {@link findCompounds}): one-character parts (唢呐+匠, 西洋+乐, 焦+师傅) and names joined by a
   * name dot or a space (钱宁•塔图姆, Hannibal Lecter). Used by the preset `filmkw-rerank`.
   * @default 'candidates'
   */
  parts: (typeof PHRASE_PARTS)[number];
  /**
   * Selection (step 3): whether a word ranked below a phrase that contains it may take the phrase's
   * place. A phrase that is not a name joined by a dot or a space gives way to a word it contains:
   * under `'repeated'` when the phrase occurs once (an accidental neighbourhood such as 保护生命,
   * 对白生硬, 回去香港) and the word at least twice (it is used outside the phrase), under `'any'` when
   * the phrase occurs once, under `'outside'` when the word occurs more often than the phrase (宇宙 3×
   * against 宇宙着想 2×); the word replaces every such phrase already taken, at the first one's place.
   * `'off'`: the phrase hides the word ({@link dedup} as it is). No effect with `dedup: 'off'`.
   * @default 'off'
   */
  rescueWords: (typeof PHRASE_RESCUE_WORDS)[number];
  /**
   * `parts: 'content'` only: a foreign name joined by a name dot keeps a last syllable that the
   * segmenter cut off as a one-character token (汉尼拔·莱克 + 特, 马修·麦康纳 + 希): directly after a
   * part that follows a name dot (or a token with a name dot in it), a one-character token that is a
   * common last syllable of transliterated names ({@link NAME_TAIL_CHARS}) is the name's last part,
   * whatever its POS; the name without it is then no candidate.
   * @default false
   */
  nameTail: boolean;
  /**
   * `parts: 'content'` only: whether a generic film noun (candidates.ts `FILM_HEAD_NOUNS`: the film stop
   * words 电影, 导演, 演员, 人物, 情节 … and 片, 剧, whatever their POS tag) may be a part of a compound:
   * `'last'` — as its last part (the head noun: 邪典电影, 中国电影, 第四代导演, 爆米花片), `'edges'` — as
   * its first or last part (人物塑造, 主角光环 too; 片 and 剧 only last), `'off'` — never. Only in a
   * compound of two parts, never alone. (Before issue 24 every film stop word could head a compound of up
   * to `maxTokens` parts, verbs too: 真心觉得, 此剧讲述.)
   * @default 'off'
   */
  stopHeads: (typeof PHRASE_STOP_HEADS)[number];
  /**
   * Re-ranker only (`rerank.enabled`): a short name (堀越, 天鸣) gives its place in the selection to its
   * full form among the pooled candidates (堀越二郎, 游天鸣: a person or name word, a surname plus the
   * short name, a joined name with the short name as a part), which then ranks at the better of the
   * two places; `false`: the two are ranked on their own (full-names.ts).
   * @default false
   */
  fullNames: boolean;
}

export const PHRASE_SPANS = ['ngrams', 'maximal'] as const;
export const PHRASE_POS = ['contentWords', 'any'] as const;
export const PHRASE_ENTITY_WORDS = ['exclude', 'people', 'allow'] as const;
export const PHRASE_SCORES = ['sum', 'mean', 'max', 'shareSum'] as const;
export const PHRASE_DEDUP = ['phrases', 'all', 'off'] as const;
export const PHRASE_PARTS = ['candidates', 'content'] as const;
export const PHRASE_RESCUE_WORDS = ['off', 'repeated', 'any', 'outside'] as const;
export const PHRASE_STOP_HEADS = ['off', 'last', 'edges'] as const;

export const DEFAULT_PHRASE_OPTIONS: Readonly<PhraseOptions> = Object.freeze({
  enabled: false,
  spans: 'ngrams',
  pos: 'any',
  entityWords: 'exclude',
  maxTokens: 2,
  minCount: 2,
  score: 'shareSum',
  dedup: 'phrases',
  parts: 'candidates',
  rescueWords: 'off',
  nameTail: false,
  stopHeads: 'off',
  fullNames: false,
});

export const PHRASE_OPTION_RULES: OptionRules<PhraseOptions> = Object.freeze({
  enabled: { type: 'boolean' },
  spans: { type: 'enum', values: PHRASE_SPANS },
  pos: { type: 'enum', values: PHRASE_POS },
  entityWords: { type: 'enum', values: PHRASE_ENTITY_WORDS },
  maxTokens: { type: 'number', min: 2, max: 8, integer: true },
  minCount: { type: 'number', min: 1, max: 1e6, integer: true },
  score: { type: 'enum', values: PHRASE_SCORES },
  dedup: { type: 'enum', values: PHRASE_DEDUP },
  parts: { type: 'enum', values: PHRASE_PARTS },
  rescueWords: { type: 'enum', values: PHRASE_RESCUE_WORDS },
  nameTail: { type: 'boolean' },
  stopHeads: { type: 'enum', values: PHRASE_STOP_HEADS },
  fullNames: { type: 'boolean' },
});

/** The candidate occurrences the stage reads (candidate-doc.ts `CandidateDoc` satisfies it). */
export interface PhraseDocView {
  /** Node of each candidate occurrence. */
  readonly node: Int32Array;
  /** Token index of each candidate occurrence (ascending). */
  readonly tokenIndex: Int32Array;
  /** UTF-16 offset of each candidate occurrence. */
  readonly charStart: Int32Array;
  /** Node labels. */
  readonly words: readonly string[];
}

/** A phrase candidate of one document. */
export interface PhraseCandidate {
  /** Surface: the concatenated tokens. */
  readonly text: string;
  /** Node indices of its words, in order (from its first occurrence). */
  readonly members: Int32Array;
  /** Occurrences in the document (in the role of {@link PhraseOptions.spans}). */
  readonly count: number;
  /** UTF-16 offset of its first occurrence. */
  readonly charStart: number;
  /** UTF-16 offset of the start of its last occurrence (set by {@link findCompounds}). */
  readonly lastStart?: number;
  /** Number of its parts that are one character long (set by {@link findCompounds}). */
  readonly oneCharParts?: number;
  /** Whether it joins names with a name dot or a space (set by {@link findCompounds}). */
  readonly joined?: boolean;
  /** Whether it is a word plus a sequel number (阿凡达2, 复联4; set by {@link findCompounds}). */
  readonly sequel?: boolean;
}

/**
 * The phrase candidates of one document (step 1 of the module header), in order of first occurrence.
 * Pure.
 * @param tokens all tokens of the document (`word`, and `tag` for `pos: 'contentWords'`)
 * @param entities per node: its KG entities or null; the words that have some are not phrase words
 *   (`entityWords: 'exclude'`); null: no such restriction
 */
export function findPhrases(
  tokens: readonly { readonly word: string; readonly tag?: string }[],
  doc: PhraseDocView,
  options: Pick<PhraseOptions, 'spans' | 'pos' | 'maxTokens' | 'minCount'>,
  entities: readonly (Int32Array | null)[] | null = null,
): PhraseCandidate[] {
  const { node, tokenIndex, charStart } = doc;
  const count = node.length;
  const contentOnly = options.pos === 'contentWords';
  const member = (k: number): boolean =>
    (!contentOnly || !isFunctionTag(tokens[tokenIndex[k]].tag)) && !(entities && entities[node[k]] && entities[node[k]]!.length > 0);
  const maxTokens = options.maxTokens;
  const found = new Map<string, { members: Int32Array; count: number; charStart: number }>();
  const add = (a: number, b: number): void => {
    // occurrences a..b (inclusive), adjacent tokens
    let text = '';
    for (let k = a; k <= b; k++) text += tokens[tokenIndex[k]].word;
    const seen = found.get(text);
    if (seen) seen.count++;
    else found.set(text, { members: node.slice(a, b + 1), count: 1, charStart: charStart[a] });
  };
  let start = 0;
  while (start < count) {
    if (!member(start)) {
      start++;
      continue;
    }
    // a run: occurrences start..end-1 of member tokens, adjacent in the token sequence
    let end = start + 1;
    while (end < count && tokenIndex[end] === tokenIndex[end - 1] + 1 && member(end)) end++;
    const length = end - start;
    if (length >= 2) {
      if (options.spans === 'maximal') {
        if (length <= maxTokens) add(start, end - 1);
      } else {
        for (let a = start; a < end - 1; a++) {
          for (let b = a + 1; b < end && b - a + 1 <= maxTokens; b++) add(a, b);
        }
      }
    }
    start = end;
  }
  const words = nodeIndex(doc.words);
  const out: PhraseCandidate[] = [];
  for (const [text, p] of found) {
    if (p.count < options.minCount || words.has(text)) continue;
    out.push({ text, members: p.members, count: p.count, charStart: p.charStart });
  }
  // Map iteration is insertion order = order of first occurrence
  return out;
}

/** Whether a POS tag marks a function word (numeral, classifier, pronoun, adverb, preposition, …): its first letter is one of the jieba/ICTCLAS function-word tags m q r d p c u e y o (see {@link PhraseOptions.pos}). */
export function isFunctionTag(tag: string | undefined): boolean {
  if (tag === undefined) return false;
  switch (tag.charCodeAt(0)) {
    case 0x6d: // m
    case 0x71: // q
    case 0x72: // r
    case 0x64: // d
    case 0x70: // p
    case 0x63: // c
    case 0x75: // u
    case 0x65: // e
    case 0x79: // y
    case 0x6f: // o
      return true;
    default:
      return false;
  }
}

/** Occurrences of each node among the candidate occurrences (into `out` when given: zeroed, nodeCount long). */
export function nodeCounts(node: Int32Array, nodeCount: number, out?: Int32Array): Int32Array {
  const c = out ?? new Int32Array(nodeCount);
  for (let k = 0; k < node.length; k++) c[node[k]]++;
  return c;
}

/**
 * Phrase scores from the words' final scores (step 2 of the module header). A phrase with a member
 * that is not eligible (dropped isolated word) gets NaN and is not output.
 * @param values final score of every node (graph score, × IDF when the prior is on)
 * @param eligible nodes that may be output
 * @param counts occurrences of every node ({@link nodeCounts})
 */
export function phraseScores(phrases: readonly PhraseCandidate[], values: Float64Array, eligible: Uint8Array, counts: Int32Array, score: PhraseOptions['score']): Float64Array {
  const out = new Float64Array(phrases.length);
  for (let p = 0; p < phrases.length; p++) {
    const { members, count } = phrases[p];
    let sum = 0;
    let max = -Infinity;
    let ok = true;
    for (let m = 0; m < members.length; m++) {
      const w = members[m];
      // a part that is not a graph word (a one-character part, findCompounds) contributes nothing
      if (w < 0) continue;
      if (!eligible[w]) ok = false;
      const v = values[w];
      sum += score === 'shareSum' ? (v * count) / counts[w] : v;
      if (v > max) max = v;
    }
    out[p] = !ok ? NaN : score === 'max' ? max : score === 'mean' ? sum / members.length : sum;
  }
  return out;
}

/** The name dots (middle dot, bullet, katakana middle dot, hyphenation point) written between the parts of a foreign name. */
export const NAME_DOTS = /^[·•・‧∙]$/u;
const NAME_DOT_ANY = /[·•・‧∙]/gu;
/** Some name dot anywhere (not global: `test` keeps no state). */
const NAME_DOT_IN = /[·•・‧∙]/u;

/** A name with its dots folded to the middle dot U+00B7 (the form the Douban KG uses). */
export function foldNameDots(name: string): string {
  return name.replace(NAME_DOT_ANY, '·');
}

const LATIN_WORD = /^[A-Za-z][A-Za-z.'-]*$/u;
const SPACE = /^[ \u00a0]$/u;
const HAS_LETTER = /\p{L}/u;
const WHITESPACE = /\s/u;

/** Whether the code unit is a CJK Unified Ideograph (U+4E00–U+9FFF: a letter, not whitespace). */
const isIdeograph = (c: number): boolean => c >= 0x4e00 && c <= 0x9fff;

const letterTest = memoOneUnit((w) => HAS_LETTER.test(w));
const whitespaceTest = memoOneUnit((w) => WHITESPACE.test(w));

/** Whether the word has a letter (\p{L}); a word starting with an ideograph has one. */
function hasLetter(w: string): boolean {
  return isIdeograph(w.charCodeAt(0)) || letterTest(w);
}

/** Whether the word has a whitespace character (\s); a word of ideographs only has none. */
function hasWhitespace(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (!isIdeograph(w.charCodeAt(i))) return whitespaceTest(w);
  return false;
}

/** Whether the word is a sequel number: one digit 1–9, or 1 followed by a digit (10–19). */
function isSequelNumber(w: string): boolean {
  const c = w.charCodeAt(0);
  if (w.length === 1) return c >= 0x31 && c <= 0x39;
  if (w.length !== 2 || c !== 0x31) return false;
  const d = w.charCodeAt(1);
  return d >= 0x30 && d <= 0x39;
}

/**
 * Compound phrase candidates over all tokens (`parts: 'content'`, module header step 1 widened): a part
 * is any token with a letter whose POS tag is not a function word's ({@link isFunctionTag}) and that is
 * not a stop word, whatever its length — so 唢呐+匠, 西洋+乐 and 焦+师傅 can form although 匠, 乐 and 焦 are
 * not candidates. Two parts may also be joined by one name dot (钱宁•塔图姆) or, between Latin words, one
 * space (Hannibal Lecter): the joiner is kept in the surface and does not count as a part. A phrase has
 * 2..`maxTokens` parts, at least one of them a candidate occurrence (so it has a graph score), at least
 * one part of two or more characters, no part that names a KG entity when `entities` is given (except
 * in a joined name), and occurs ≥ `minCount` times; a surface that is itself a graph word is not a
 * phrase. A graph word directly followed by a sequel number of one or two digits (阿凡达2, 复联4; not
 * 2年, 4个) is a phrase too (`sequel`), after the others. Members that are not graph words are -1. Pure;
 * order of first occurrence.
 * @param stop the stop-word test of the candidate stage
 */
export function findCompounds(
  tokens: readonly { readonly word: string; readonly tag?: string; readonly start: number }[],
  doc: PhraseDocView,
  options: Pick<PhraseOptions, 'maxTokens' | 'minCount'> & Partial<Pick<PhraseOptions, 'nameTail' | 'stopHeads'>>,
  stop: (word: string) => boolean,
  entities: readonly (Int32Array | null)[] | null = null,
  head: ((word: string) => boolean) | null = null,
): PhraseCandidate[] {
  const T = tokens.length;
  // the per-token arrays are views of two buffers (util/arena.ts)
  const ints = arena(new Int32Array(2 * T));
  const flags = arena(new Int8Array(2 * T));
  // token index → node of the candidate occurrence there, or -1
  const tokenNode = ints(T).fill(-1);
  for (let k = 0; k < doc.node.length; k++) tokenNode[doc.tokenIndex[k]] = doc.node[k];
  const stopHeads = head === null ? 'off' : (options.stopHeads ?? 'off');
  const nameTail = options.nameTail === true;
  // per token, decided once: 1 = a part, 2 = a part only at a compound's edge (a film stop word,
  // `stopHeads`), 0 = not (-1 = not yet known)
  const part = flags(T).fill(-1);
  const isPart = (t: number): boolean => {
    if (part[t] < 0) {
      const tok = tokens[t];
      if (tokenNode[t] >= 0) part[t] = 1;
      // a film head noun, whatever its tag (片/q, 导演/v)
      else if (stopHeads !== 'off' && head!(tok.word)) part[t] = 2;
      else if (isFunctionTag(tok.tag) || !hasLetter(tok.word) || hasWhitespace(tok.word)) part[t] = 0;
      else part[t] = stop(tok.word) ? 0 : 1;
    }
    return part[t] > 0;
  };
  /** Whether the token may end a name as its cut-off last syllable (`nameTail`). */
  const isTail = (t: number): boolean => {
    const w = tokens[t].word;
    return w.length === 1 && NAME_TAIL_CHARS.includes(w);
  };
  const isEntity = (t: number): boolean => entities !== null && tokenNode[t] >= 0 && entities[tokenNode[t]] !== null && entities[tokenNode[t]]!.length > 0;
  /** Whether the token has at least two code points. */
  const isLong = (t: number): boolean => {
    const w = tokens[t].word;
    if (w.length !== 2) return w.length > 2;
    const hi = w.charCodeAt(0);
    const lo = w.charCodeAt(1);
    return !(hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff); // one surrogate pair: one code point
  };
  const joiner = (t: number): boolean => {
    if (t <= 0 || t + 1 >= T) return false;
    const w = tokens[t].word;
    // the name dots and the spaces are one code unit each
    if (w.length !== 1) return false;
    if (NAME_DOTS.test(w)) return true;
    return SPACE.test(w) && LATIN_WORD.test(tokens[t - 1].word) && LATIN_WORD.test(tokens[t + 1].word);
  };
  // the candidates by surface, each made once and counted on (the output objects themselves)
  const found = new Map<string, { text: string; members: Int32Array; count: number; charStart: number; lastStart: number; oneCharParts: number; joined: boolean }>();
  // the current run of parts, possibly joined: parts[0..runLength) token indices, joinedBefore[] whether a joiner precedes
  const parts = ints(T);
  const joinedBefore = flags(T);
  let t = 0;
  while (t < T) {
    if (!isPart(t)) {
      t++;
      continue;
    }
    parts[0] = t;
    joinedBefore[0] = 0;
    let runLength = 1;
    let u = t + 1;
    for (;;) {
      // a name's cut-off last syllable ends the run (nameTail): after a part that follows a name dot
      // or has one in it
      if (nameTail && u < T && isTail(u) && (joinedBefore[runLength - 1] === 1 || hasNameDot(tokens[parts[runLength - 1]].word))) {
        parts[runLength] = u;
        joinedBefore[runLength++] = 2;
        u++;
        break;
      }
      if (u < T && isPart(u)) {
        parts[runLength] = u;
        joinedBefore[runLength++] = 0;
        u++;
      } else if (u < T && joiner(u) && isPart(u + 1)) {
        parts[runLength] = u + 1;
        joinedBefore[runLength++] = 1;
        u += 2;
      } else break;
    }
    // a run that ends with a name's last syllable: the name without it is no candidate
    const tailed = joinedBefore[runLength - 1] === 2;
    for (let a = 0; a < runLength - 1; a++) {
      for (let b = a + 1; b < runLength && b - a + 1 <= options.maxTokens; b++) {
        let joined = false;
        for (let m = a + 1; m <= b; m++) if (joinedBefore[m]) joined = true;
        if (tailed && joined && b === runLength - 2) continue;
        let hasNode = false;
        let long = false;
        let oneChar = 0;
        let entity = false;
        let inner = false;
        for (let m = a; m <= b; m++) {
          const p = parts[m];
          if (tokenNode[p] >= 0) hasNode = true;
          if (isLong(p)) long = true;
          else oneChar++;
          if (isEntity(p)) entity = true;
          // a film head noun only as the last part, or the first under 'edges' (not 片, 剧: one character),
          // of a compound of two parts (爆米花+电影; 爆米花+商业+电影 is no keyword)
          if (part[p] === 2 && ((m !== b && !(m === a && stopHeads === 'edges' && isLong(p))) || b > a + 1)) inner = true;
        }
        if (!hasNode || !long || inner || (entity && !joined)) continue;
        let text = '';
        for (let p = parts[a]; p <= parts[b]; p++) text += tokens[p].word;
        const seen = found.get(text);
        if (seen) {
          seen.count++;
          seen.lastStart = tokens[parts[a]].start;
        } else {
          const members = new Int32Array(b - a + 1);
          for (let m = a; m <= b; m++) members[m - a] = tokenNode[parts[m]];
          found.set(text, { text, members, count: 1, charStart: tokens[parts[a]].start, lastStart: tokens[parts[a]].start, oneCharParts: oneChar, joined });
        }
      }
    }
    t = u;
  }
  // a graph word followed by a sequel number (阿凡达2, 复联4): one or two digits, then no more digits,
  // letters, classifier or unit (阿凡达2年, 4个 are not titles)
  const sequels = new Map<string, { member: number; count: number; charStart: number; lastStart: number }>();
  for (let t = 0; t + 1 < T; t++) {
    if (tokenNode[t] < 0 || !isSequelNumber(tokens[t + 1].word)) continue;
    const after = t + 2 < T ? tokens[t + 2] : null;
    if (after && (NOT_AFTER_SEQUEL.test(after.word) || (after.tag !== undefined && /^[mq]/u.test(after.tag)))) continue;
    const text = tokens[t].word + tokens[t + 1].word;
    const seen = sequels.get(text);
    if (seen) {
      seen.count++;
      seen.lastStart = tokens[t].start;
    } else sequels.set(text, { member: tokenNode[t], count: 1, charStart: tokens[t].start, lastStart: tokens[t].start });
  }
  const words = nodeIndex(doc.words);
  const out: PhraseCandidate[] = [];
  for (const p of found.values()) if (p.count >= options.minCount && !words.has(p.text)) out.push(p);
  for (const [text, p] of sequels) {
    if (p.count < options.minCount || words.has(text) || found.has(text)) continue;
    out.push({ text, members: Int32Array.of(p.member, -1), count: p.count, charStart: p.charStart, lastStart: p.lastStart, oneCharParts: 1, joined: false, sequel: true });
  }
  return out;
}

/** Whether a surface joins names by a name dot or a space (a joined compound of {@link findCompounds}). */
export function isJoinedName(text: string): boolean {
  return hasNameDot(text) || text.includes(' ') || text.includes('\u00a0');
}

/** Whether the word has a name dot in it (a KG name matched whole by the segmenter: 马修·麦康纳). */
function hasNameDot(w: string): boolean {
  return NAME_DOT_IN.test(w);
}

/**
 * Characters that often end a transliterated foreign name and are rarely a one-character word after a
 * name (`nameTail`): the most frequent last characters of the dotted person names of the Douban KG
 * (each the last character of ≥ 20 of ~13,000 names), without those that are common words on their own
 * (里 多 比 加 内 提 因 万 本 通 南 文 金 米 达 安 什 西 丁 亚 伊 拉 汉 隆 耶 吉 玛 宁 娃 莫 利).
 */
export const NAME_TAIL_CHARS = '斯尔特德克森曼恩顿格纳夫勒尼奇姆兹林诺基罗茨蒂伦迪兰登逊根瑞普雷洛奥卡朗托丝科弗塔瑟瓦坦伯维默菲赫娜布泽索松蒙莱珀农希萨妮莉丹汀肯彻博塞威';

/**
 * Verbs of a cast or credits list (饰演, 扮演, 主演, 客串, 执导 …): what a text says of who plays or makes
 * a film, never what it is about (guideline rule 3). Not stop words (the paper presets keep them as
 * graph words); `output.castVerbs: 'drop'` keeps them out of the output ({@link isCastVerb}).
 */
export const CAST_VERBS: readonly string[] = Object.freeze([
  '饰演', '扮演', '饰', '主演', '出演', '参演', '合演', '客串', '领衔', '领衔主演', '联袂主演', '共同主演',
  '特别出演', '友情出演', '特别客串', '友情客串', '担纲', '执导', '联合执导', '监制',
]);
const CAST_VERB_SET: ReadonlySet<string> = new Set(CAST_VERBS);
/** The cast verbs of two or more characters by their first code unit (a text is searched only where one may start). */
const LONG_CAST_VERBS = new Map<number, string[]>();
const CAST_VERB_FIRST = new Uint8Array(0x10000);
for (const v of CAST_VERBS) {
  if (v.length < 2) continue;
  LONG_CAST_VERBS.set(v.charCodeAt(0), [...(LONG_CAST_VERBS.get(v.charCodeAt(0)) ?? []), v]);
  CAST_VERB_FIRST[v.charCodeAt(0)] = 1;
}

/**
 * Whether the surface is a cast-list verb ({@link CAST_VERBS}) or a compound with one of two or more
 * characters in it (张三饰演, 饰演李四, 王五饰演赵六; not 服饰 or 装饰: 饰 alone counts only as the whole surface).
 */
export function isCastVerb(text: string): boolean {
  if (CAST_VERB_SET.has(text)) return true;
  if (text.length < 3) return false;
  for (let i = 0; i + 2 <= text.length; i++) {
    if (CAST_VERB_FIRST[text.charCodeAt(i)] === 0) continue;
    for (const v of LONG_CAST_VERBS.get(text.charCodeAt(i))!) if (text.startsWith(v, i)) return true;
  }
  return false;
}

const NOT_AFTER_SEQUEL = /^[0-9A-Za-z年月日号个部集季次岁代期章回场点分秒倍亿万千百元块米%％]/u;
