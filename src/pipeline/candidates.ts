/**
 * Candidate selection (pipeline step 2; paper §2.1; spec §1.2 step 2 and §1.4 `posFilter`).
 *
 * The paper: "去掉词性标注中不含'n'和'v'的词" (drop words whose POS tag contains neither n nor v), then
 * stop-word filtering. jieba/cppjieba additionally require ≥ 2 characters (spec §4.1, §4.3); the
 * paper says nothing, so `minLength` is an option (default 2, as jieba).
 *
 * A token is a candidate iff, in this order:
 * 1. it is not punctuation/whitespace/symbol (no letter and no digit) — always — and not a number (only
 *    digits and number punctuation: 2021, 3.14, 50%, １,000) unless `numbers: 'keep'` (cppjieba);
 * 2. its tag passes `posFilter`: `'containsNV'` (tag contains n or v: n, nr, nz, ns, vn, v, vd, an,
 *   eng, …; the literal rule), `'containsNVorX'` (the same plus `x`, the tag both segmenters give
 *   out-of-vocabulary words found by the HMM, e.g. 游天鸣, 焦三; punctuation, also `x`, is already out by
 *   rule 1), `'startsWithNV'` (excludes an, eng…), `'none'` (any tag, cppjieba's TextRank), or an
 *   explicit tag list (jieba's allowPOS: exact match);
 * 3. `english: 'drop'` removes tokens made only of ASCII letters/digits/`+#&._%-` (IMAX, Wanda);
 * 4. it has at least `minLength` code points;
 * 5. neither the word nor its lower-case form is in the stop-word list (only the word itself with
 *    `stopwordCase: 'sensitive'`, cppjieba).
 *
 * Each candidate keeps its word, tag, offsets and its index in the full token sequence (PositionRank's
 * position over all tokens and `windowOver: 'allTokens'` need it).
 *
 * Defaults checked on the dev set, one option at a time: eval/results/film-dev/ANALYSIS.md §3.
 */
import { usageError } from '../errors.js';
import type { Token } from './segment.js';
import { builtinStopwords, loadStopwords } from './stopwords.js';
import type { OptionRules } from '../util/option-rules.js';

export interface CandidateToken extends Token {
  /** Index of the token in the full token sequence given to {@link selectCandidates}. */
  index: number;
}

export interface CandidateSelection {
  /** The candidate tokens in text order. */
  tokens: CandidateToken[];
  /** Their indices into the full token sequence, ascending (same order as `tokens`). */
  indices: Int32Array;
}

/** Named stop-word sets (see stopwords.ts). */
export const STOPWORD_SETS = ['filmkw', 'cppjieba', 'jiebaEnglish', 'none'] as const;
export type StopwordSetName = (typeof STOPWORD_SETS)[number];

export const POS_FILTERS = ['containsNV', 'containsNVorX', 'startsWithNV', 'none'] as const;
export const ENGLISH_RULES = ['keep', 'drop'] as const;
export const NUMBER_RULES = ['drop', 'keep'] as const;
export const STOPWORD_CASES = ['insensitive', 'sensitive'] as const;

export interface CandidateOptions {
  /**
   * POS rule (see module header).
   * @default 'containsNV'
   */
  posFilter: (typeof POS_FILTERS)[number] | readonly string[];
  /**
   * Stop words: `'filmkw'` = nodejieba's stop_words.utf8 + dictionaries/stopwords-film.txt;
   * `'cppjieba'` = nodejieba's list only (cppjieba TextRank); `'jiebaEnglish'` = jieba's 32-word English
   * default (`jieba.analyse` STOP_WORDS); `'none'`.
   * @default 'filmkw'
   */
  stopwords: StopwordSetName;
  /**
   * Minimum length in code points (jieba and cppjieba use 2; the paper is silent).
   * @default 2
   */
  minLength: number;
  /**
   * Keep or drop pure-Latin tokens (tag `eng` passes `'containsNV'`). Kept by default: the dev set's gold
   * keywords include Latin names (Wanda, Gilead, Hannibal).
   * @default 'keep'
   */
  english: (typeof ENGLISH_RULES)[number];
  /**
   * Pure numbers (2021, 3.14, 50%): dropped by default (never a keyword by the annotation guideline);
   * `'keep'` is cppjieba's TextRank (it filters only single characters and stop words).
   * @default 'drop'
   */
  numbers: (typeof NUMBER_RULES)[number];
  /**
   * Stop-word test: the word or its lower-case form (`'insensitive'`, default: Again = again), or the
   * word exactly as written (`'sensitive'`, cppjieba).
   * @default 'insensitive'
   */
  stopwordCase: (typeof STOPWORD_CASES)[number];
}

export const DEFAULT_CANDIDATE_OPTIONS: Readonly<CandidateOptions> = Object.freeze({
  posFilter: 'containsNV',
  stopwords: 'filmkw',
  minLength: 2,
  english: 'keep',
  numbers: 'drop',
  stopwordCase: 'insensitive',
});

export const CANDIDATE_OPTION_RULES: OptionRules<CandidateOptions> = Object.freeze({
  posFilter: { type: 'enumOrStrings', values: POS_FILTERS, pattern: /^[A-Za-z]{1,8}$/u, describe: 'POS tags' },
  stopwords: { type: 'enum', values: STOPWORD_SETS },
  minLength: { type: 'number', min: 1, max: 64, integer: true },
  english: { type: 'enum', values: ENGLISH_RULES },
  numbers: { type: 'enum', values: NUMBER_RULES },
  stopwordCase: { type: 'enum', values: STOPWORD_CASES },
});

/** jieba.analyse's default English stop words (`KeywordExtractor.STOP_WORDS`, spec §4.1). */
export const JIEBA_ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  'the', 'of', 'is', 'and', 'to', 'in', 'that', 'we', 'for', 'an', 'are', 'by', 'be', 'as', 'on', 'with',
  'can', 'if', 'from', 'which', 'you', 'it', 'this', 'then', 'at', 'have', 'all', 'not', 'one', 'has', 'or',
]);

const EMPTY: ReadonlySet<string> = new Set();

/** The stop-word set of a name (the lists are read from disk on each call: load it once and pass it on). */
export function stopwordSet(name: StopwordSetName): ReadonlySet<string> {
  switch (name) {
    case 'filmkw':
      return loadStopwords({ lists: ['nodejieba', 'film'] });
    case 'cppjieba':
      return loadStopwords({ lists: ['nodejieba'] });
    case 'jiebaEnglish':
      return JIEBA_ENGLISH_STOPWORDS;
    case 'none':
      return EMPTY;
    default:
      throw usageError(`candidates: unknown stopwords ${JSON.stringify(name)} (valid: ${STOPWORD_SETS.join(', ')})`);
  }
}

/**
 * The film-domain stop words that are not general ones: dictionaries/stopwords-film.txt without the
 * words of nodejieba's list (电影, 导演, 人物 …). phrases.ts `findCompounds` lets them head a compound
 * under `phrases.stopHeads`. Read from disk on each call.
 */
export function filmOnlyStopwords(): ReadonlySet<string> {
  const general = new Set(builtinStopwords('nodejieba'));
  return new Set(builtinStopwords('film').filter((w) => !general.has(w)));
}

/**
 * The generic film nouns that may head a compound under `phrases.stopHeads` (邪典电影, 第四代导演, 爆米花片,
 * 华裔演员, 圣母情节): the film vocabulary of the annotation guideline's rule 3, all film stop words but
 * 片 and 剧, which are one character long (no candidates) and tagged as a classifier or a noun. Not the
 * other film stop words: a verb or an evaluative word (觉得, 讲述, 出现, 精彩) heads no keyword (真心觉得,
 * 此剧讲述 are accidental neighbours).
 */
export const FILM_HEAD_NOUNS: readonly string[] = Object.freeze([
  '电影', '影片', '片子', '片', '剧', '故事', '剧情', '镜头', '观众', '演员', '导演', '角色', '主角', '配角', '画面',
  '情节', '结局', '人物', '主人公', '台词', '桥段', '编剧', '剧本', '作品', '续集', '前作', '影院', '电影院', '银幕',
]);

/** {@link FILM_HEAD_NOUNS} as a set. */
export function filmHeadNouns(): ReadonlySet<string> {
  return new Set(FILM_HEAD_NOUNS);
}

/** Validate and complete options (usage errors name the option and the valid values). */
export function resolveCandidateOptions(opts: Partial<CandidateOptions> = {}): CandidateOptions {
  const o: CandidateOptions = { ...DEFAULT_CANDIDATE_OPTIONS, ...opts };
  if (Array.isArray(o.posFilter)) {
    for (const t of o.posFilter) {
      if (typeof t !== 'string' || !/^[A-Za-z]{1,8}$/u.test(t)) throw usageError(`candidates: posFilter tag ${JSON.stringify(t)} is not a POS tag (1-8 letters)`);
    }
  } else if (!(POS_FILTERS as readonly unknown[]).includes(o.posFilter)) {
    throw usageError(`candidates: unknown posFilter ${JSON.stringify(o.posFilter)} (valid: ${POS_FILTERS.join(', ')}, or a list of tags)`);
  }
  if (!(STOPWORD_SETS as readonly unknown[]).includes(o.stopwords)) {
    throw usageError(`candidates: unknown stopwords ${JSON.stringify(o.stopwords)} (valid: ${STOPWORD_SETS.join(', ')})`);
  }
  if (!Number.isInteger(o.minLength) || o.minLength < 1) throw usageError(`candidates: minLength must be an integer ≥ 1, got ${JSON.stringify(o.minLength)}`);
  if (o.english !== 'keep' && o.english !== 'drop') throw usageError(`candidates: english must be keep or drop, got ${JSON.stringify(o.english)}`);
  if (o.numbers !== 'keep' && o.numbers !== 'drop') throw usageError(`candidates: numbers must be keep or drop, got ${JSON.stringify(o.numbers)}`);
  if (o.stopwordCase !== 'insensitive' && o.stopwordCase !== 'sensitive') {
    throw usageError(`candidates: stopwordCase must be insensitive or sensitive, got ${JSON.stringify(o.stopwordCase)}`);
  }
  return o;
}

const NO_LETTER_OR_DIGIT = /^[^\p{L}\p{N}]*$/u;
const NUMBER = /^[\p{N}.,:%+\-/．，：％＋－]+$/u;

/**
 * A test on words with its answers for one-code-unit words remembered (a table of 2^16 entries, filled
 * as they come): punctuation tokens are mostly one unit long, and a regular expression costs more than
 * the table.
 */
export function memoOneUnit(test: (word: string) => boolean): (word: string) => boolean {
  const known = new Uint8Array(0x10000); // 0: not yet, 1: false, 2: true
  return (word) => {
    if (word.length !== 1) return test(word);
    const c = word.charCodeAt(0);
    if (known[c] === 0) known[c] = test(word) ? 2 : 1;
    return known[c] === 2;
  };
}

const noLetterOrDigit = memoOneUnit((w) => NO_LETTER_OR_DIGIT.test(w));
const numberOnly = memoOneUnit((w) => NUMBER.test(w));
const LATIN = /^[A-Za-z0-9+#&._%-]*[A-Za-z][A-Za-z0-9+#&._%-]*$/u;

/** True for tokens that are never candidates: punctuation, whitespace, symbols, emoji, numbers. */
export function isPunctuationOrNumber(word: string): boolean {
  return isPunctuation(word) || isNumber(word);
}

/** No letter and no digit: punctuation, whitespace, symbols, emoji. */
export function isPunctuation(word: string): boolean {
  // fast path: a token starting with a CJK ideograph has a letter
  const c = word.charCodeAt(0);
  if (c >= 0x4e00 && c <= 0x9fff) return false;
  return noLetterOrDigit(word);
}

/** Only digits and number punctuation (2021, 3.14, 50%, １,000). */
export function isNumber(word: string): boolean {
  const c = word.charCodeAt(0);
  if (c >= 0x4e00 && c <= 0x9fff) return false;
  return numberOnly(word);
}

/**
 * Whether `toLowerCase` can change the word (false: it certainly does not): true for an upper-case ASCII
 * letter or any code unit beyond ASCII other than a CJK ideograph. The stop-word tests skip the
 * lower-cased lookup when false.
 */
export function lowerCaseMayChange(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return true;
    // other non-ASCII letters may lower-case too (Ａ, Σ): keep the exact test; CJK ideographs do not
    if (c > 0x7f && !(c >= 0x4e00 && c <= 0x9fff) && !(c >= 0x3400 && c <= 0x4dbf)) return true;
  }
  return false;
}

/**
 * Whether the word or (when `caseInsensitive`) its lower-case form is a stop word (rule 5 of the
 * module header).
 */
export function isStopword(stop: ReadonlySet<string>, word: string, caseInsensitive = true): boolean {
  return stop.has(word) || (caseInsensitive && lowerCaseMayChange(word) && stop.has(word.toLowerCase()));
}

type Predicate = (word: string, tag: string) => boolean;

function compile(o: CandidateOptions, stop: ReadonlySet<string>): Predicate {
  const pos: (tag: string) => boolean = Array.isArray(o.posFilter)
    ? ((set: ReadonlySet<string>) => (tag: string) => set.has(tag))(new Set(o.posFilter))
    : o.posFilter === 'containsNV'
      ? (tag) => tag.includes('n') || tag.includes('v')
      : o.posFilter === 'containsNVorX'
        ? (tag) => tag.includes('n') || tag.includes('v') || tag === 'x'
        : o.posFilter === 'startsWithNV'
          ? (tag) => tag.startsWith('n') || tag.startsWith('v')
          : () => true;
  const dropLatin = o.english === 'drop';
  const dropNumbers = o.numbers === 'drop';
  const caseInsensitive = o.stopwordCase === 'insensitive';
  const min = o.minLength;
  return (word, tag) => {
    if (isPunctuation(word) || (dropNumbers && isNumber(word))) return false;
    if (!pos(tag)) return false;
    if (dropLatin && LATIN.test(word)) return false;
    if (min > 1) {
      // code points, without allocating for the common short case
      let n = 0;
      for (let i = 0; i < word.length && n < min; i++) {
        const c = word.charCodeAt(i);
        if (c < 0xdc00 || c > 0xdfff) n++;
      }
      if (n < min) return false;
    }
    if (stop.size > 0 && isStopword(stop, word, caseInsensitive)) return false;
    return true;
  };
}

/** Candidate selection made ready: options validated, the POS rule compiled, the stop words resolved. */
export interface CandidateFilter {
  readonly options: Readonly<CandidateOptions>;
  /** Whether a token with this word and tag is a candidate. */
  keep(word: string, tag: string): boolean;
}

/**
 * Validate the options and build the filter (once per extractor). `stopwords` is the set to use for
 * `options.stopwords` (default: that named set, read now; pass one to share a loaded set).
 */
export function createCandidateFilter(opts: Partial<CandidateOptions> = DEFAULT_CANDIDATE_OPTIONS, stopwords?: ReadonlySet<string>): CandidateFilter {
  const options = Object.freeze(resolveCandidateOptions(opts));
  return Object.freeze({ options, keep: compile(options, stopwords ?? stopwordSet(options.stopwords)) });
}

/** Select the candidate tokens of one document (pure). */
export function selectCandidates(tokens: readonly Token[], filter: CandidateFilter): CandidateSelection {
  const indices = selectCandidateIndices(tokens, filter);
  const out: CandidateToken[] = Array.from(indices, (i) => {
    const t = tokens[i];
    return { word: t.word, tag: t.tag, start: t.start, end: t.end, index: i };
  });
  return { tokens: out, indices };
}

/**
 * The ascending token indices of the candidates of one document (pure): what {@link selectCandidates}
 * returns as `indices`, without building the candidate token objects (the extractor's hot path needs
 * only the indices).
 */
export function selectCandidateIndices(tokens: readonly Token[], filter: CandidateFilter): Int32Array {
  const keep = filter.keep;
  const idx = new Int32Array(tokens.length);
  let n = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (keep(t.word, t.tag)) idx[n++] = i;
  }
  return idx.subarray(0, n);
}
