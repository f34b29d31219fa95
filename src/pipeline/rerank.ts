/**
 * Learned re-ranking of the candidates (an extension beyond 王芳 等 2022; option group `rerank`, only in
 * the preset `filmkw-rerank`). The graph stage ranks words by TextRank × IDF, which cannot see what the
 * annotation guideline rewards: the first persons named in a synopsis, the film a review is about, the
 * full form of a name rather than its short form, a theme noun over a supporting actor named once in a
 * cast list. This stage describes the `pool` best output candidates by the graph score (graph words and
 * phrases) by a fixed vector of document-level features ({@link RERANK_FEATURES}), orders them by the
 * score of boosted trees (rerank-model.ts), then applies the phrase stage's no-overlapping-variants
 * rule (phrases.ts `selectItems`).
 *
 * Features are properties of the candidate in this document — never its identity — so the model carries
 * no vocabulary: graph score and rank, IDF, frequency, spread, first position, length, POS, entity kind,
 * order of first mention among the entities of its kind, cast-list context (a name in （…饰） brackets,
 * after 主演/配音, or in a 、-separated list), 《》 marks, being the document's most mentioned film, full
 * vs short form of a name, KG and semantic edge weights, phrase shape, the overlapping variants among
 * the candidates (the best longer one containing it, the best shorter one it contains: 传统 / 传统文化,
 * 梦溪 / 沈梦溪), and its rank by frequency and by first occurrence. Optional features (after
 * {@link RERANK_CORE_FEATURE_COUNT}: the PositionRank score) are computed only for a model that lists
 * them; the committed model does not (ANALYSIS.md §7.1). The model is trained by
 * `npm run train:rerank` (scripts/train-rerank.mjs) on film-train only; models/rerank.json holds it with
 * the training file's sha256. Figures: eval/results/film-dev/ANALYSIS.md §7.
 *
 * Pure: a function of the document's ranked graph, the KG and the model passed in.
 */
import type { KgView } from '../kg/model.js';
import { nodeIndex, type TokenLike } from './graph.js';
import { foldNameDots, nodeCounts, type PhraseCandidate } from './phrases.js';
import type { IdfTable } from './idf.js';
import type { OptionRules } from '../util/option-rules.js';
import { FNV_OFFSET, FNV_PRIME, hashName } from '../util/hash.js';
import { arena } from '../util/arena.js';
import { lowerBound } from '../util/sorted.js';

/** Options of the re-ranking stage (group `rerank`). */
export interface RerankOptions {
  /**
   * Order the candidates by the learned model instead of the graph score (module header): words, and
   * the phrase stage's phrases when `phrases.enabled`; with the phrase stage off, words only (every
   * phrase feature is 0), with any preset. The bundled model was trained on `filmkw-rerank`'s candidates,
   * phrases included; other combinations are measured with `filmkw eval --set`. Off in every preset but
   * `filmkw-rerank`.
   * @default false
   */
  enabled: boolean;
  /**
   * Only the `pool` best candidates by the final graph score (words and phrases together) are scored
   * by the model; the others are never output. The model is trained on the same pool; 60 was chosen by
   * cross-validation on film-train (100 and all candidates score the same, 40 lower) and is what keeps
   * the model's work small (ANALYSIS.md §7).
   * @default 60
   */
  pool: number;
}

export const DEFAULT_RERANK_OPTIONS: Readonly<RerankOptions> = Object.freeze({ enabled: false, pool: 60 });

export const RERANK_OPTION_RULES: OptionRules<RerankOptions> = Object.freeze({
  enabled: { type: 'boolean' },
  pool: { type: 'number', min: 1, max: 1e6, integer: true },
});

/** Feature names, in the order of every feature vector and of the model's weights. */
export const RERANK_FEATURES = [
  'base', // final graph score (× IDF) / the document's best
  'baseRank', // 1 / (1 + rank by final graph score)
  'logBase', // ln(0.001 + base)
  'top3', // among the 3 best by final graph score
  'top10',
  'top30',
  'textrank', // graph rank score / the document's best (phrases: their best word's)
  'idf', // IDF of the surface / 10
  'logCount', // ln(1 + occurrences)
  'firstPos', // first occurrence / text length
  'spread', // (last − first occurrence) / text length
  'len2',
  'len3',
  'len4plus',
  'kgEdges', // ln(1 + Σ KG edge weights)
  'semEdges', // ln(1 + Σ semantic edge weights)
  'person',
  'movie',
  'character',
  'genre',
  'kindFirst', // the first entity of its kind to be mentioned
  'kindSecond',
  'kindOrderInv', // 1 / (1 + order of first mention among its kind)
  'personFirst', // the first person or character named
  'personSecond',
  'personLater', // the fourth or a later person or character named
  'personCastDoc', // a person or character in a text with a cast list (（…饰）)
  'cast', // share of occurrences in a cast-list context
  'titleMarks', // share of occurrences inside 《》
  'mainMovie', // the film mentioned most often
  'shortForm', // part of a longer name or candidate in this document
  'fullForm', // an entity name containing another candidate of this document
  'posName',
  'posPlace',
  'posOtherProper',
  'posNoun',
  'posVerb',
  'posAdj',
  'posUnknown',
  'posLatin',
  'phrase',
  'phrase3',
  'phraseOneChar',
  'phraseJoined',
  'phraseEntity',
  'phraseSequel', // a word plus a sequel number (阿凡达2)
  'partBest', // phrase: the best final graph score of its words / the document's best
  'partWorst', // phrase: the worst (0 for a part that is not a graph word)
  'inPhraseShare', // word: the largest share of its occurrences inside one phrase candidate
  'mainFilmRelated', // an entity related in the KG to the document's main film (its director, actors, characters)
  'otherMovie', // a film that is not the document's main film
  'entityLinks', // ln(1 + number of the document's entities it is related to in the KG)
  // overlapping variants (传统 / 传统文化, 梦溪 / 沈梦溪, 段誉 / 世子段誉): among the document's output
  // candidates, the best by the final graph score that contains this surface, and the best it contains
  'containerBase', // the best longer candidate containing it: its final graph score / the document's best (0: none)
  'containerGap', // that score − its own
  'containerShare', // that candidate's occurrences / its own (0: none)
  'containerEntity', // that candidate names a KG entity
  'containedBase', // the best shorter candidate it contains: final graph score / the document's best (0: none)
  'containedGap', // that score − its own
  'containedShare', // its occurrences / that candidate's (0: none)
  'containedEntity', // it contains a candidate that names a KG entity
  'digit', // the surface has a digit (20年前罗拉, 阿凡达2)
  // relative to the document's other output candidates
  'docLength', // ln(1 + text length) / 10: reviews are long, synopses short
  'countRank', // 1 / (1 + number of output candidates with more occurrences)
  'firstRank', // 1 / (1 + number of output candidates that occur first)
  // optional features (RERANK_CORE_FEATURE_COUNT on): computed only for a model that lists them
  'positionRank', // PositionRank score on the document's word graph / the document's best (phrases: their best word's)
] as const;
export type RerankFeature = (typeof RERANK_FEATURES)[number];
const F = Object.fromEntries(RERANK_FEATURES.map((f, i) => [f, i])) as Record<RerankFeature, number>;
export const RERANK_FEATURE_COUNT = RERANK_FEATURES.length;
/**
 * The features every model has (the first ones of RERANK_FEATURES); the optional ones after them cost
 * extra work (positionRank: a second power iteration), which is done only for a model that lists them.
 * A model lists the features in order up to its last optional one (rerank-model.ts).
 */
export const RERANK_CORE_FEATURE_COUNT = RERANK_FEATURES.indexOf('positionRank');

/** What the stage reads of one ranked document. */
export interface RerankDocument {
  readonly text: string;
  readonly tokens: readonly (TokenLike & { readonly tag?: string })[];
  /** Node labels (graph words), numbered in order of first occurrence. */
  readonly words: readonly string[];
  /** Node, token index and UTF-16 offset of every candidate occurrence. */
  readonly node: Int32Array;
  readonly tokenIndex: Int32Array;
  readonly charStart: Int32Array;
  /** Graph rank score and final score (× IDF) of every node. */
  readonly rank: Float64Array;
  readonly values: Float64Array;
  /** Nodes that may be output. */
  readonly eligible: Uint8Array;
  /** Per node: Σ KG and Σ semantic weights of its edges. */
  readonly kgSum: Float64Array;
  readonly semSum: Float64Array;
  /** IDF weight of every eligible node when the caller has it (the prior's factor); else looked up. */
  readonly idfWeights?: Float64Array | null;
  /** The entity reported for each node (-1: none). */
  readonly entity: Int32Array;
  readonly phrases: readonly PhraseCandidate[];
  /** Phrase scores from their words (phrases.ts `phraseScores`; NaN: not output). */
  readonly phraseValues: Float64Array;
  /** Occurrences of every node when the caller has them (phrases.ts `nodeCounts`); else counted. */
  readonly counts?: Int32Array;
  /** PositionRank score of every node (feature `positionRank`), when the model lists it; else the feature is 0. */
  readonly positionRank?: Float64Array | null;
}

/** One output candidate with its features. */
export interface RerankItem {
  readonly text: string;
  /** Node index of a word, or -1 for a phrase. */
  readonly node: number;
  /** Index into `phrases` for a phrase, else -1. */
  readonly phrase: number;
  readonly charStart: number;
  /** The entity the surface names (-1: none). */
  readonly entity: number;
  /** The feature vector (row `baseRank` of the document's feature matrix). */
  readonly features: Float64Array;
  /** Rank by the final graph score among all items (0 = best). */
  readonly baseRank: number;
}

/** The scored candidates of one document: items in order of the final graph score, features row by row. */
export interface RerankTable {
  /** The `pool` best candidates by the final graph score, best first (item r has baseRank r). */
  readonly items: readonly RerankItem[];
  /** Row r = the features of items[r] ({@link RERANK_FEATURE_COUNT} values per row). */
  readonly matrix: Float64Array;
}

const PERSONISH = new Set(['Person', 'Character']);
const CAST_LEFT = ['主演', '演员', '配音', '饰演', '领衔', '出演', '客串'];
/** The two-character cues as numbers (first code unit × 2^16 + second), compared without slicing the text. */
const pairCode = (cue: string): number => cue.charCodeAt(0) * 0x10000 + cue.charCodeAt(1);
const CAST_CUES = new Set(CAST_LEFT.map(pairCode));
const RIGHT_CUES = new Set(['主演', '饰演', '领衔'].map(pairCode));
/** Whether a code unit is the first of some cue (a quick test before the pair is looked up). */
const CUE_FIRST = new Uint8Array(0x10000);
for (const cue of CAST_LEFT) CUE_FIRST[cue.charCodeAt(0)] = 1;

/** Whether the occurrence at [s, e) of `text` stands in a cast list (see module header). */
export function inCastContext(text: string, s: number, e: number): boolean {
  const next = text.charCodeAt(e);
  // 饰 right after the name, a closing bracket, or a list separator
  if (next === 0x9970 /* 饰 */ || next === 0xff09 || next === 0x29 || next === 0x3001 /* 、 */) return true;
  const before = text.charCodeAt(s - 1);
  if (before === 0x3001 || before === 0xff08 || before === 0x28) return true;
  // a cue within the 8 characters before the name (the cues are two characters long)
  for (let j = Math.max(0, s - 8); j + 2 <= s; j++) {
    const c = text.charCodeAt(j);
    if (CUE_FIRST[c] === 1 && CAST_CUES.has(c * 0x10000 + text.charCodeAt(j + 1))) return true;
  }
  // 主演 / 饰演 right after the name (由吴京主演)
  return CUE_FIRST[next] === 1 && RIGHT_CUES.has(next * 0x10000 + text.charCodeAt(e + 1));
}

/** Whether [s, e) lies inside 《》 (the nearest mark to the left is an opening one and 》 follows). */
function inTitleMarks(text: string, s: number, e: number): boolean {
  return text.charCodeAt(s - 1) === 0x300a && text.charCodeAt(e) === 0x300b;
}

function posGroup(tag: string | undefined): RerankFeature | null {
  if (!tag) return null;
  if (tag === 'nr' || tag === 'nrt' || tag === 'nrfg' || tag === 'nr1' || tag === 'nr2') return 'posName';
  if (tag === 'ns' || tag === 'nsf') return 'posPlace';
  if (tag === 'nz' || tag === 'nt') return 'posOtherProper';
  if (tag === 'eng') return 'posLatin';
  if (tag === 'x') return 'posUnknown';
  if (tag.startsWith('n')) return 'posNoun';
  if (tag.startsWith('v')) return 'posVerb';
  if (tag.startsWith('a')) return 'posAdj';
  return null;
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/** Whether the string has an ASCII or a full-width digit (0-9, ０-９). */
function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (c >= 0xff10 && c <= 0xff19)) return true;
  }
  return false;
}

/** More candidates than this (words + phrases of one document) are refused (sort keys stay exact). */
const CAND_LIMIT = 1 << 20;

/**
 * The KG entity a phrase surface names (its name, or with its name dots folded to ·), or -1.
 * @param dots whether the surface may hold a name dot (phrases.ts `joined`); false skips the folding
 */
export function surfaceEntity(kg: KgView | null, text: string, dots = true): number {
  if (!kg) return -1;
  let found = kg.lookup(text);
  if (found.length === 0 && dots) {
    const folded = foldNameDots(text);
    if (folded !== text) found = kg.lookup(folded);
  }
  return found.length > 0 ? found[0] : -1;
}

/**
 * The output candidates of one document with their feature vectors (module header): of the eligible
 * graph words and the phrases with a score, the `pool` best by the final graph score (ties: first
 * occurrence), best first, their features in one matrix. Pure.
 */
export function rerankItems(d: RerankDocument, kg: KgView | null, idf: IdfTable, pool = Infinity): RerankTable {
  const n = d.words.length;
  const m = d.phrases.length;
  if (n + m >= CAND_LIMIT) throw new RangeError(`rerank: ${n + m} candidates in one document (at most ${CAND_LIMIT - 1})`);
  const L = Math.max(1, d.text.length);
  // the per-node and per-candidate arrays are views of three buffers (util/arena.ts): integers (with the
  // surface table of at most 8 (n + m) + 16 slots), bytes, and numbers (with the feature matrix)
  const rowBound = Math.min(n + m, pool);
  const ints = arena(new Int32Array(9 * n + 19 * (n + m) + m + 16));
  const bytes = arena(new Uint8Array(n + 2 * (n + m)));
  const floats = arena(new Float64Array(2 * (n + m) + rowBound * RERANK_FEATURE_COUNT));
  const count = d.counts ?? nodeCounts(d.node, n, ints(n));
  const first = ints(n).fill(-1);
  const last = ints(n);
  const cast = ints(n);
  const marks = ints(n);
  const tag: (string | undefined)[] = new Array(n);
  for (let k = 0; k < d.node.length; k++) {
    const i = d.node[k];
    const s = d.charStart[k];
    const e = s + d.tokens[d.tokenIndex[k]].word.length;
    if (first[i] < 0) {
      first[i] = s;
      tag[i] = d.tokens[d.tokenIndex[k]].tag;
    }
    last[i] = s;
    if (inTitleMarks(d.text, s, e)) marks[i]++;
  }
  // order of first mention among the entities of each kind (nodes are in order of first occurrence)
  const kindOrder = ints(n).fill(-1);
  const seenOfKind = new Map<string, number>();
  let mainMovie = -1;
  for (let i = 0; i < n; i++) {
    if (d.entity[i] < 0 || !kg) continue;
    const kind = kg.kindOf(d.entity[i]);
    const k = seenOfKind.get(kind) ?? 0;
    kindOrder[i] = k;
    seenOfKind.set(kind, k + 1);
  }
  // the main film: a film named in 《》 when there is one, then the most mentions plus KG links to the
  // document's other entities (a common word that is also a title — 师父, 孩子们 — is rarely in 《》)
  const entityNodes: number[] = [];
  for (let i = 0; i < n; i++) if (d.entity[i] >= 0 && d.eligible[i]) entityNodes.push(i);
  const links = ints(n);
  if (kg && entityNodes.length <= 400) {
    for (let a = 0; a < entityNodes.length; a++) {
      for (let b = a + 1; b < entityNodes.length; b++) {
        if (kg.relationCount(d.entity[entityNodes[a]], d.entity[entityNodes[b]]) > 0) {
          links[entityNodes[a]]++;
          links[entityNodes[b]]++;
        }
      }
    }
  }
  let mainScore = -1;
  if (kg) {
    for (const i of entityNodes) {
      if (kg.kindOf(d.entity[i]) !== 'Movie') continue;
      const score = count[i] + links[i] + (marks[i] > 0 ? 1000 : 0);
      if (score > mainScore) {
        mainScore = score;
        mainMovie = i;
      }
    }
  }
  const mainEntity = mainMovie >= 0 ? d.entity[mainMovie] : -1;
  // order of first mention among persons and characters together (synopses name the leads first)
  const personOrder = ints(n).fill(-1);
  let persons = 0;
  if (kg) for (let i = 0; i < n; i++) if (d.entity[i] >= 0 && PERSONISH.has(kg.kindOf(d.entity[i]))) personOrder[i] = persons++;
  const castDoc = d.text.includes('饰）') || d.text.includes('饰)');
  // the document's word → node map (graph.ts nodeIndex), fetched only when needed (only a person name of
  // ≥ 3 code units asks)
  let words: ReadonlyMap<string, number> | null = null;
  // the entity each phrase surface names, looked up when first asked (-2: not yet)
  const phraseEntities = ints(m).fill(-2);
  const phraseEntity = (p: number): number => {
    let e = phraseEntities[p];
    if (e === -2) e = phraseEntities[p] = surfaceEntity(kg, d.phrases[p].text, d.phrases[p].joined === true);
    return e;
  };

  // per word: occurrences inside its most frequent phrase candidate
  const inPhrase = ints(n);
  for (const ph of d.phrases) for (const m of ph.members) if (m >= 0 && ph.count > inPhrase[m]) inPhrase[m] = ph.count;
  let maxValue = 0;
  let maxRank = 0;
  let maxPosition = 0;
  const pr = d.positionRank ?? null;
  for (let i = 0; i < n; i++) {
    if (!d.eligible[i]) continue;
    if (d.values[i] > maxValue) maxValue = d.values[i];
    if (d.rank[i] > maxRank) maxRank = d.rank[i];
    if (pr && pr[i] > maxPosition) maxPosition = pr[i];
  }
  for (let p = 0; p < d.phrases.length; p++) if (d.phraseValues[p] > maxValue) maxValue = d.phraseValues[p];
  const norm = (v: number, max: number): number => (max > 0 ? v / max : 0);

  // every output candidate (word node i, or phrase p as n + p) with its final graph score
  const cand = ints(n + m);
  const base = floats(n + m);
  const start = ints(n + m);
  const occurrences = ints(n + m);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!d.eligible[i]) continue;
    base[i] = norm(d.values[i], maxValue);
    start[i] = first[i];
    occurrences[i] = count[i];
    cand[total++] = i;
  }
  const wordCandidates = total;
  for (let p = 0; p < m; p++) {
    if (Number.isNaN(d.phraseValues[p])) continue;
    base[n + p] = norm(d.phraseValues[p], maxValue);
    start[n + p] = d.phrases[p].charStart;
    occurrences[n + p] = d.phrases[p].count;
    cand[total++] = n + p;
  }
  // candidates by first occurrence (ties: candidate index): the words and the phrases are each in that
  // order already when their first occurrences do not decrease (nodes are numbered in order of first
  // occurrence, phrases are found in text order), and are then merged; otherwise sorted as numbers
  // start × 2^20 + index (exact in a double; a comparator sort costs ten times as much). Ranks: the
  // number of candidates with an earlier first occurrence / with more occurrences (ties share a rank).
  const byFirst = ints(total);
  const countRank = ints(n + m);
  const firstRank = ints(n + m);
  {
    let maxCount = 0;
    let ordered = true;
    for (let k = 0; k < total; k++) {
      const c = cand[k];
      if (occurrences[c] > maxCount) maxCount = occurrences[c];
      if (k > 0 && k !== wordCandidates && start[c] < start[cand[k - 1]]) ordered = false;
    }
    if (ordered) {
      // merge: on equal first occurrences the word (lower index) goes first
      let w = 0;
      let p = wordCandidates;
      for (let r = 0; r < total; r++) byFirst[r] = p >= total || (w < wordCandidates && start[cand[w]] <= start[cand[p]]) ? cand[w++] : cand[p++];
    } else {
      const keys = new Float64Array(total);
      for (let k = 0; k < total; k++) keys[k] = start[cand[k]] * CAND_LIMIT + cand[k];
      keys.sort();
      for (let r = 0; r < total; r++) byFirst[r] = keys[r] % CAND_LIMIT;
    }
    for (let r = 0; r < total; r++) {
      const c = byFirst[r];
      firstRank[c] = r > 0 && start[byFirst[r - 1]] === start[c] ? firstRank[byFirst[r - 1]] : r;
    }
    // more[v] = candidates with more than v occurrences
    const more = new Int32Array(maxCount + 2);
    for (let k = 0; k < total; k++) more[occurrences[cand[k]]]++;
    for (let v = maxCount - 1; v >= 0; v--) more[v] += more[v + 1];
    for (let k = 0; k < total; k++) countRank[cand[k]] = more[occurrences[cand[k]] + 1];
  }
  const docLength = Math.log1p(d.text.length) / 10;
  const candEntity = (c: number): number => (c >= n ? phraseEntity(c - n) : d.entity[c]);
  const candText = (c: number): string => (c >= n ? d.phrases[c - n].text : d.words[c]);
  // overlapping variants: per candidate, the best candidate containing it and the best it contains
  // (by final graph score; ties: the earlier candidate)
  const container = ints(n + m).fill(-1);
  const contained = ints(n + m).fill(-1);
  const containsEntity = bytes(n + m);
  // the candidates' surfaces in an open-addressing table on their FNV-1a hash (util/hash.ts), each
  // surface holding its best candidate (the higher final graph score, then the earlier)
  let slots = 16;
  while (slots < 4 * total) slots *= 2;
  const surfaceSlots = ints(slots).fill(-1);
  const slotMask = slots - 1;
  const surfaceHash = ints(n + m);
  for (let k = 0; k < total; k++) {
    const c = cand[k];
    const t = candText(c);
    const h = hashName(t) | 0;
    surfaceHash[c] = h;
    for (let q = h & slotMask; ; q = (q + 1) & slotMask) {
      const other = surfaceSlots[q];
      if (other < 0 || (surfaceHash[other] === h && candText(other) === t)) {
        if (other < 0 || base[c] > base[other]) surfaceSlots[q] = c;
        break;
      }
    }
  }
  /** The candidate whose surface is w[a, b) (h: its hash), or -1. */
  const surfaceAt = (w: string, a: number, b: number, h: number): number => {
    for (let q = h & slotMask; ; q = (q + 1) & slotMask) {
      const c = surfaceSlots[q];
      if (c < 0) return -1;
      if (surfaceHash[c] !== h) continue;
      const t = candText(c);
      if (t.length !== b - a) continue;
      let k = 0;
      while (k < t.length && t.charCodeAt(k) === w.charCodeAt(a + k)) k++;
      if (k === t.length) return c;
    }
  };
  const better = (a: number, b: number): boolean => b < 0 || base[a] > base[b] || (base[a] === base[b] && a < b);
  // one pass over the proper substrings (≥ 2 code units) of the longer surfaces, looked up among the
  // candidates' surfaces: short forms (a part of any word of 3–12 code units, or of a phrase that names
  // an entity or joins names) and the overlap relations between candidates (surfaces of 3–12 code
  // units). The substrings are not cut out: each one's hash grows by a code unit at a time and is looked
  // up in the table of surfaces.
  const shortForm = bytes(n + m);
  // short: 1 or 0, or -1 when phrase p's entity decides (looked up at the first substring found)
  const scan = (w: string, c: number, short: number, p = -1): void => {
    for (let a = 0; a + 2 <= w.length; a++) {
      let h = Math.imul(FNV_OFFSET ^ w.charCodeAt(a), FNV_PRIME);
      for (let b = a + 2; b <= w.length; b++) {
        h = Math.imul(h ^ w.charCodeAt(b - 1), FNV_PRIME);
        if (b - a === w.length) continue;
        const sub = surfaceAt(w, a, b, h);
        if (sub < 0 || sub === c) continue;
        if (short < 0) short = phraseEntity(p) >= 0 ? 1 : 0;
        if (short === 1) shortForm[sub] = 1;
        if (c < 0) continue;
        if (better(c, container[sub])) container[sub] = c;
        if (better(sub, contained[c])) contained[c] = sub;
        if (candEntity(sub) >= 0) containsEntity[c] = 1;
      }
    }
  };
  for (let i = 0; i < n; i++) {
    const w = d.words[i];
    if (w.length >= 3 && w.length <= 12) scan(w, d.eligible[i] ? i : -1, 1);
  }
  for (let p = 0; p < m; p++) {
    const w = d.phrases[p].text;
    const scored = !Number.isNaN(d.phraseValues[p]) && w.length >= 3 && w.length <= 12;
    const joined = d.phrases[p].joined === true;
    if (scored || joined) scan(w, scored ? n + p : -1, joined ? 1 : -1, p);
    else if (phraseEntity(p) >= 0) scan(w, -1, 1);
  }
  const setOverlap = (f: Float64Array, c: number): void => {
    const up = container[c];
    if (up >= 0) {
      f[F.containerBase] = base[up];
      f[F.containerGap] = base[up] - base[c];
      f[F.containerShare] = occurrences[c] > 0 ? occurrences[up] / occurrences[c] : 0;
      f[F.containerEntity] = candEntity(up) >= 0 ? 1 : 0;
    }
    const down = contained[c];
    if (down >= 0) {
      f[F.containedBase] = base[down];
      f[F.containedGap] = base[down] - base[c];
      f[F.containedShare] = occurrences[down] > 0 ? occurrences[c] / occurrences[down] : 0;
    }
    f[F.containedEntity] = containsEntity[c];
    f[F.digit] = hasDigit(candText(c)) ? 1 : 0;
    f[F.docLength] = docLength;
    f[F.countRank] = 1 / (1 + countRank[c]);
    f[F.firstRank] = 1 / (1 + firstRank[c]);
  };
  const setLength = (f: Float64Array, text: string): void => {
    const len = codePoints(text);
    f[len <= 2 ? F.len2 : len === 3 ? F.len3 : F.len4plus] = 1;
  };
  const setKind = (f: Float64Array, e: number): void => {
    if (e < 0 || !kg) return;
    const kind = kg.kindOf(e);
    f[kind === 'Person' ? F.person : kind === 'Movie' ? F.movie : kind === 'Character' ? F.character : F.genre] = 1;
  };
  const wordFeatures = (f: Float64Array, i: number): void => {
    const w = d.words[i];
    f[F.base] = norm(d.values[i], maxValue);
    f[F.textrank] = norm(d.rank[i], maxRank);
    if (pr) f[F.positionRank] = norm(pr[i], maxPosition);
    f[F.idf] = (d.idfWeights ? d.idfWeights[i] : idf.weight(w)) / 10;
    f[F.logCount] = Math.log1p(count[i]);
    f[F.firstPos] = first[i] / L;
    f[F.spread] = (last[i] - first[i]) / L;
    setLength(f, w);
    f[F.kgEdges] = Math.log1p(d.kgSum[i]);
    f[F.semEdges] = Math.log1p(d.semSum[i]);
    setKind(f, d.entity[i]);
    if (kindOrder[i] >= 0) {
      f[F.kindFirst] = kindOrder[i] === 0 ? 1 : 0;
      f[F.kindSecond] = kindOrder[i] === 1 ? 1 : 0;
      f[F.kindOrderInv] = 1 / (1 + kindOrder[i]);
    }
    if (personOrder[i] >= 0) {
      f[F.personFirst] = personOrder[i] === 0 ? 1 : 0;
      f[F.personSecond] = personOrder[i] === 1 ? 1 : 0;
      f[F.personLater] = personOrder[i] >= 3 ? 1 : 0;
      f[F.personCastDoc] = castDoc ? 1 : 0;
    }
    f[F.cast] = count[i] > 0 ? cast[i] / count[i] : 0;
    f[F.titleMarks] = count[i] > 0 ? marks[i] / count[i] : 0;
    f[F.mainMovie] = i === mainMovie ? 1 : 0;
    if (kg && d.entity[i] >= 0) {
      f[F.entityLinks] = Math.log1p(links[i]);
      if (kg.kindOf(d.entity[i]) === 'Movie' && i !== mainMovie) f[F.otherMovie] = 1;
      if (mainEntity >= 0 && i !== mainMovie && kg.relationCount(d.entity[i], mainEntity) > 0) f[F.mainFilmRelated] = 1;
    }
    f[F.shortForm] = shortForm[i];
    if (w.length >= 3 && d.entity[i] >= 0 && kg && PERSONISH.has(kg.kindOf(d.entity[i]))) {
      words ??= nodeIndex(d.words);
      for (let a = 0; a < w.length && !f[F.fullForm]; a++) for (let b = a + 2; b <= w.length; b++) if (b - a < w.length && words.has(w.slice(a, b))) f[F.fullForm] = 1;
    }
    const pos = posGroup(tag[i]);
    if (pos) f[F[pos]] = 1;
    f[F.inPhraseShare] = count[i] > 0 ? inPhrase[i] / count[i] : 0;
  };
  const phraseFeatures = (f: Float64Array, p: number): void => {
    const value = d.phraseValues[p];
    const ph = d.phrases[p];
    let rank = 0;
    let position = 0;
    let kgSum = 0;
    let semSum = 0;
    let best = 0;
    let worst = Infinity;
    for (const m of ph.members) {
      const v = m < 0 ? 0 : d.values[m];
      if (v > best) best = v;
      if (v < worst) worst = v;
      if (m < 0) continue;
      if (d.rank[m] > rank) rank = d.rank[m];
      if (pr && pr[m] > position) position = pr[m];
      kgSum += d.kgSum[m];
      semSum += d.semSum[m];
    }
    f[F.base] = norm(value, maxValue);
    f[F.textrank] = norm(rank, maxRank);
    if (pr) f[F.positionRank] = norm(position, maxPosition);
    f[F.idf] = idf.weight(ph.text) / 10;
    f[F.logCount] = Math.log1p(ph.count);
    f[F.firstPos] = ph.charStart / L;
    f[F.spread] = ((ph.lastStart ?? ph.charStart) - ph.charStart) / L;
    setLength(f, ph.text);
    f[F.kgEdges] = Math.log1p(kgSum);
    f[F.semEdges] = Math.log1p(semSum);
    setKind(f, phraseEntity(p));
    f[F.shortForm] = shortForm[n + p];
    f[F.phrase] = 1;
    f[F.phrase3] = ph.members.length >= 3 ? 1 : 0;
    f[F.phraseOneChar] = ph.oneCharParts ?? 0;
    f[F.phraseJoined] = ph.joined ? 1 : 0;
    f[F.phraseSequel] = ph.sequel ? 1 : 0;
    if (ph.sequel && d.entity[ph.members[0]] >= 0 && kg && kg.kindOf(d.entity[ph.members[0]]) === 'Movie') setKind(f, d.entity[ph.members[0]]);
    f[F.phraseEntity] = phraseEntity(p) >= 0 ? 1 : 0;
    f[F.partBest] = norm(best, maxValue);
    f[F.partWorst] = norm(worst, maxValue);
  };
  // ranked by the final graph score, ties by first occurrence and index; only the `pool` best become
  // items with features (the model scores no other). A candidate's slot is the first position of its
  // score among the sorted scores plus the candidates of that score placed before it in byFirst order;
  // candidates scored below the pool's last are never placed.
  const rows = Math.min(total, pool);
  const order = ints(total);
  if (rows > 0) {
    const negBase = floats(total);
    for (let k = 0; k < total; k++) negBase[k] = 0 - base[cand[k]];
    negBase.sort();
    const last = negBase[rows - 1];
    const used = ints(total);
    for (let r = 0; r < total; r++) {
      const c = byFirst[r];
      const key = 0 - base[c];
      if (key > last) continue;
      const at = lowerBound(negBase, key);
      order[at + used[at]++] = c;
    }
  }
  // cast-list context, counted only for the pooled words (the only ones with features)
  const pooled = bytes(n);
  for (let r = 0; r < rows; r++) if (order[r] < n) pooled[order[r]] = 1;
  for (let k = 0; k < d.node.length; k++) {
    const i = d.node[k];
    if (pooled[i] && inCastContext(d.text, d.charStart[k], d.charStart[k] + d.tokens[d.tokenIndex[k]].word.length)) cast[i]++;
  }
  const matrix = floats(rows * RERANK_FEATURE_COUNT);
  const items: RerankItem[] = new Array(rows);
  for (let r = 0; r < rows; r++) {
    const c = order[r];
    const f = matrix.subarray(r * RERANK_FEATURE_COUNT, (r + 1) * RERANK_FEATURE_COUNT);
    if (c >= n) phraseFeatures(f, c - n);
    else wordFeatures(f, c);
    setOverlap(f, c);
    f[F.baseRank] = 1 / (1 + r);
    f[F.logBase] = Math.log(0.001 + f[F.base]);
    f[F.top3] = r < 3 ? 1 : 0;
    f[F.top10] = r < 10 ? 1 : 0;
    f[F.top30] = r < 30 ? 1 : 0;
    items[r] =
      c >= n
        ? { text: d.phrases[c - n].text, node: -1, phrase: c - n, charStart: d.phrases[c - n].charStart, entity: phraseEntity(c - n), features: f, baseRank: r }
        : { text: d.words[c], node: c, phrase: -1, charStart: first[c], entity: d.entity[c], features: f, baseRank: r };
  }
  return { items, matrix };
}
