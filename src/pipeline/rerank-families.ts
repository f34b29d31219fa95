/**
 * The re-ranker's feature families, run in this order by rerank.ts `rerankItems`; each is a named
 * function of the document and of the families before it:
 *
 * 1. occurrences ({@link occurrences}): per graph word, its count, first and last offset, 《》 marks and
 *    the POS tag of its first occurrence;
 * 2. entity context ({@link entityContext}): order of first mention per entity kind and among persons,
 *    KG links among the document's entities, the document's main film, the entity a phrase names;
 * 3. candidates and pool ordering ({@link candidateList}, {@link relativeRanks}, {@link poolOrder}): the
 *    output candidates (eligible words, scored phrases) with their graph score, their ranks by first
 *    occurrence and by count, and the `pool` best by the graph score;
 * 4. overlap index ({@link overlapIndex}): per candidate the best longer candidate containing it and the
 *    best shorter one it contains, and the short forms;
 * 5. rows ({@link wordRow}, {@link phraseRow}, {@link overlapRow}, {@link rankRow}): one feature vector
 *    per pooled candidate.
 *
 * Every family declares the scratch space it takes as a {@link Space} (…Space functions), from which
 * rerankItems sizes its three buffers: the per-document arrays are views of them (util/arena.ts), as a
 * fresh typed array per array costs several times a view (bench/README.md "Figures behind code comments").
 */
import type { KgView } from '../kg/model.js';
import { nodeIndex } from './candidate-doc.js';
import { foldNameDots, nodeCounts } from './phrases.js';
import type { IdfTable } from './idf.js';
import { FNV_OFFSET, FNV_PRIME, hashName } from '../util/hash.js';
import { arena } from '../util/arena.js';
import { kthSmallest, orderByKey } from '../util/sorted.js';
import { F, RERANK_FEATURE_COUNT, type RerankFeature } from './rerank-features.js';
import type { RerankDocument } from './rerank-features.js';

/** Scratch values a family takes from the three buffers (32-bit integers, bytes, doubles). */
export interface Space {
  readonly ints: number;
  readonly bytes: number;
  readonly floats: number;
}

/** The three buffers, handed out as consecutive zeroed views. */
export interface Scratch {
  readonly ints: (length: number) => Int32Array;
  readonly bytes: (length: number) => Uint8Array;
  readonly floats: (length: number) => Float64Array;
}

/** The sum of the families' spaces. */
export function totalSpace(...spaces: readonly Space[]): Space {
  let ints = 0;
  let bytes = 0;
  let floats = 0;
  for (const s of spaces) {
    ints += s.ints;
    bytes += s.bytes;
    floats += s.floats;
  }
  return { ints, bytes, floats };
}

/** Scratch of exactly `space` (a family asking for more than its declared space throws). */
export function scratchFor(space: Space): Scratch {
  return { ints: arena(new Int32Array(space.ints)), bytes: arena(new Uint8Array(space.bytes)), floats: arena(new Float64Array(space.floats)) };
}

/** The most values of one kind {@link ScratchBuffers} keeps between documents. */
export const KEPT_SCRATCH_VALUES = 1 << 20;

/**
 * Buffers one extractor keeps across documents (core.ts `DocumentContext.rerankScratch`): {@link take}
 * hands out the prefixes of three kept buffers, zeroed, in place of three fresh arrays per document
 * (an allocation and its collection cost more than zeroing a prefix). The scratch, and so the feature
 * matrix carved from it, is the caller's until {@link release}. Bounded: a buffer grows to at most
 * {@link KEPT_SCRATCH_VALUES} values; a larger document, or one taken while another still holds the
 * buffers (a callback that extracts), gets fresh arrays ({@link scratchFor}).
 */
export class ScratchBuffers {
  private ints = new Int32Array(0);
  private bytes = new Uint8Array(0);
  private floats = new Float64Array(0);
  private holders = 0;

  /** Scratch of `space`; every take is paired with one {@link release}. */
  take(space: Space): Scratch {
    this.holders++;
    if (this.holders > 1 || Math.max(space.ints, space.bytes, space.floats) > KEPT_SCRATCH_VALUES) return scratchFor(space);
    if (this.ints.length < space.ints) this.ints = new Int32Array(grown(this.ints.length, space.ints));
    if (this.bytes.length < space.bytes) this.bytes = new Uint8Array(grown(this.bytes.length, space.bytes));
    if (this.floats.length < space.floats) this.floats = new Float64Array(grown(this.floats.length, space.floats));
    return {
      ints: arena(this.ints.fill(0, 0, space.ints).subarray(0, space.ints)),
      bytes: arena(this.bytes.fill(0, 0, space.bytes).subarray(0, space.bytes)),
      floats: arena(this.floats.fill(0, 0, space.floats).subarray(0, space.floats)),
    };
  }

  release(): void {
    this.holders = Math.max(0, this.holders - 1);
  }
}

/** A kept buffer's new length: at least twice the old (few regrowths), at most the bound. */
function grown(old: number, need: number): number {
  return Math.min(KEPT_SCRATCH_VALUES, Math.max(need, 2 * old));
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

/**
 * Whether the occurrence at [s, e) of `text` stands in a cast list: 饰, a closing bracket or 、 right
 * after it, an opening bracket or 、 right before it, a cast cue (主演, 配音 …) in the 8 characters
 * before it, or 主演 / 饰演 / 领衔 right after it (由吴京主演).
 */
export function inCastContext(text: string, s: number, e: number): boolean {
  const next = text.charCodeAt(e);
  if (next === 0x9970 /* 饰 */ || next === 0xff09 || next === 0x29 || next === 0x3001 /* 、 */) return true;
  const before = text.charCodeAt(s - 1);
  if (before === 0x3001 || before === 0xff08 || before === 0x28) return true;
  for (let j = Math.max(0, s - 8); j + 2 <= s; j++) {
    const c = text.charCodeAt(j);
    if (CUE_FIRST[c] === 1 && CAST_CUES.has(c * 0x10000 + text.charCodeAt(j + 1))) return true;
  }
  return CUE_FIRST[next] === 1 && RIGHT_CUES.has(next * 0x10000 + text.charCodeAt(e + 1));
}

/** Whether token t, at offset s of `text`, lies inside 《》 (an opening mark right before it, 》 right after; the token is read only after a 《). */
function inTitleMarks(text: string, s: number, tokens: RerankDocument['tokens'], t: number): boolean {
  return text.charCodeAt(s - 1) === 0x300a && text.charCodeAt(s + tokens[t].word.length) === 0x300b;
}

/** The feature of a POS tag's group (its index in the row), or -1. */
function posGroup(tag: string | undefined): number {
  if (!tag) return -1;
  if (tag === 'nr' || tag === 'nrt' || tag === 'nrfg' || tag === 'nr1' || tag === 'nr2') return F.posName;
  if (tag === 'ns' || tag === 'nsf') return F.posPlace;
  if (tag === 'nz' || tag === 'nt') return F.posOtherProper;
  if (tag === 'eng') return F.posLatin;
  if (tag === 'x') return F.posUnknown;
  if (tag.startsWith('n')) return F.posNoun;
  if (tag.startsWith('v')) return F.posVerb;
  if (tag.startsWith('a')) return F.posAdj;
  return -1;
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

const norm = (v: number, max: number): number => (max > 0 ? v / max : 0);

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

// ── 1. occurrences ──────────────────────────────────────────────────────────────────────────────────

/** Per graph word: where and how often it occurs. */
export interface Occurrences {
  readonly count: Int32Array;
  /** UTF-16 offsets of its first and last occurrence (first: -1 for a node that never occurs). */
  readonly first: Int32Array;
  readonly last: Int32Array;
  /** Occurrences inside 《》. */
  readonly marks: Int32Array;
  /** POS tag of its first occurrence. */
  readonly tag: readonly (string | undefined)[];
}

export const occurrencesSpace = (n: number, counted: boolean): Space => ({ ints: (counted ? 3 : 4) * n, bytes: 0, floats: 0 });

export function occurrences(d: RerankDocument, s: Scratch): Occurrences {
  const n = d.words.length;
  const count = d.counts ?? nodeCounts(d.node, n, s.ints(n));
  const first = s.ints(n).fill(-1);
  const last = s.ints(n);
  const marks = s.ints(n);
  const tag: (string | undefined)[] = new Array(n);
  for (let k = 0; k < d.node.length; k++) {
    const i = d.node[k];
    const start = d.charStart[k];
    if (first[i] < 0) {
      first[i] = start;
      tag[i] = d.tokens[d.tokenIndex[k]].tag;
    }
    last[i] = start;
    if (inTitleMarks(d.text, start, d.tokens, d.tokenIndex[k])) marks[i]++;
  }
  return { count, first, last, marks, tag };
}

// ── 2. entity context ───────────────────────────────────────────────────────────────────────────────

/** What the KG says about the document's entities. */
export interface EntityContext {
  /** Order of first mention among the entities of the node's kind (-1: no entity). */
  readonly kindOrder: Int32Array;
  /** Order of first mention among persons and characters together (-1: neither). */
  readonly personOrder: Int32Array;
  /** Number of the document's other entities the node's entity is related to in the KG (≤ 400 entities). */
  readonly links: Int32Array;
  /** The document's main film: its node (-1: none) and entity. */
  readonly mainMovie: number;
  readonly mainEntity: number;
  /** Eligible words that denote a KG entity. */
  readonly entityCount: number;
  /** The text has a cast list (（…饰）). */
  readonly castDoc: boolean;
  /** The entity phrase p's surface names (looked up when first asked), or -1. */
  readonly phraseEntity: (p: number) => number;
}

export const entityContextSpace = (n: number, m: number): Space => ({ ints: 3 * n + m, bytes: 0, floats: 0 });

export function entityContext(d: RerankDocument, kg: KgView | null, occ: Occurrences, s: Scratch): EntityContext {
  const n = d.words.length;
  const kindOrder = s.ints(n).fill(-1);
  const personOrder = s.ints(n).fill(-1);
  mentionOrders(d, kg, kindOrder, personOrder);
  const links = s.ints(n);
  const { mainMovie, mainEntity, entityCount } = mainFilm(d, kg, occ, links);
  const castDoc = d.text.includes('饰）') || d.text.includes('饰)');
  const phraseEntities = s.ints(d.phrases.length).fill(-2); // -2: not looked up yet
  const phraseEntity = (p: number): number => {
    let e = phraseEntities[p];
    if (e === -2) e = phraseEntities[p] = surfaceEntity(kg, d.phrases[p].text, d.phrases[p].joined === true);
    return e;
  };
  return { kindOrder, personOrder, links, mainMovie, mainEntity, entityCount, castDoc, phraseEntity };
}

/** Order of first mention per entity kind, and among persons and characters (synopses name the leads first); nodes are in order of first occurrence. */
function mentionOrders(d: RerankDocument, kg: KgView | null, kindOrder: Int32Array, personOrder: Int32Array): void {
  if (!kg) return;
  const n = d.words.length;
  const seenOfKind = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    if (d.entity[i] < 0) continue;
    const kind = kg.kindOf(d.entity[i]);
    const k = seenOfKind.get(kind) ?? 0;
    kindOrder[i] = k;
    seenOfKind.set(kind, k + 1);
  }
  let persons = 0;
  for (let i = 0; i < n; i++) if (d.entity[i] >= 0 && PERSONISH.has(kg.kindOf(d.entity[i]))) personOrder[i] = persons++;
}

/**
 * The KG links among the document's eligible entities (into `links`), and the main film: a film named
 * in 《》 when there is one, then the most mentions plus KG links to the document's other entities (a
 * common word that is also a title — 师父, 孩子们 — is rarely in 《》).
 */
function mainFilm(d: RerankDocument, kg: KgView | null, occ: Occurrences, links: Int32Array): { mainMovie: number; mainEntity: number; entityCount: number } {
  if (!kg) return { mainMovie: -1, mainEntity: -1, entityCount: 0 };
  const entityNodes: number[] = [];
  for (let i = 0; i < d.words.length; i++) if (d.entity[i] >= 0 && d.eligible[i]) entityNodes.push(i);
  if (entityNodes.length <= 400) {
    for (let a = 0; a < entityNodes.length; a++) {
      for (let b = a + 1; b < entityNodes.length; b++) {
        if (kg.relationCount(d.entity[entityNodes[a]], d.entity[entityNodes[b]]) > 0) {
          links[entityNodes[a]]++;
          links[entityNodes[b]]++;
        }
      }
    }
  }
  let mainMovie = -1;
  let mainScore = -1;
  for (const i of entityNodes) {
    if (kg.kindOf(d.entity[i]) !== 'Movie') continue;
    const score = occ.count[i] + links[i] + (occ.marks[i] > 0 ? 1000 : 0);
    if (score > mainScore) {
      mainScore = score;
      mainMovie = i;
    }
  }
  return { mainMovie, mainEntity: mainMovie >= 0 ? d.entity[mainMovie] : -1, entityCount: entityNodes.length };
}

// ── 3. candidates and pool ordering ─────────────────────────────────────────────────────────────────

/** More candidates than this (words + phrases of one document) are refused (sort keys stay exact). */
export const CAND_LIMIT = 1 << 20;

/** The output candidates: word node i as i, phrase p as n + p. */
export interface Candidates {
  /** Number of output candidates, and how many of them (the first ones of `cand`) are words. */
  readonly total: number;
  readonly wordCandidates: number;
  /** The candidates, words in node order, then phrases in order. */
  readonly cand: Int32Array;
  /** Per candidate: final graph score / the document's best, first occurrence, occurrences. */
  readonly base: Float64Array;
  readonly start: Int32Array;
  readonly occurrences: Int32Array;
  /** The document's best final graph score, graph rank score and PositionRank score (eligible words; phrases for the first). */
  readonly maxValue: number;
  readonly maxRank: number;
  readonly maxPosition: number;
}

export const candidatesSpace = (n: number, m: number): Space => ({ ints: 3 * (n + m), bytes: 0, floats: n + m });

export function candidateList(d: RerankDocument, occ: Occurrences, s: Scratch): Candidates {
  const n = d.words.length;
  const m = d.phrases.length;
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
  for (let p = 0; p < m; p++) if (d.phraseValues[p] > maxValue) maxValue = d.phraseValues[p];
  const cand = s.ints(n + m);
  const base = s.floats(n + m);
  const start = s.ints(n + m);
  const occurrences = s.ints(n + m);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!d.eligible[i]) continue;
    base[i] = norm(d.values[i], maxValue);
    start[i] = occ.first[i];
    occurrences[i] = occ.count[i];
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
  return { total, wordCandidates, cand, base, start, occurrences, maxValue, maxRank, maxPosition };
}

/** The candidates by first occurrence, and each one's rank by first occurrence and by count (ties share a rank). */
export interface RelativeRanks {
  readonly byFirst: Int32Array;
  readonly countRank: Int32Array;
  readonly firstRank: Int32Array;
}

export const relativeRanksSpace = (n: number, m: number): Space => ({ ints: 3 * (n + m), bytes: 0, floats: 0 });

/**
 * Candidates by first occurrence (ties: candidate index): the words and the phrases are each in that
 * order already when their first occurrences do not decrease (nodes are numbered in order of first
 * occurrence, phrases are found in text order), and are then merged; otherwise sorted as numbers
 * start × 2^20 + index (exact in a double; a comparator sort costs ten times as much). Ranks: the
 * number of candidates with an earlier first occurrence / with more occurrences.
 */
export function relativeRanks(c: Candidates, s: Scratch): RelativeRanks {
  const { total, wordCandidates, cand, start, occurrences } = c;
  const byFirst = s.ints(total);
  const countRank = s.ints(cand.length);
  const firstRank = s.ints(cand.length);
  let maxCount = 0;
  let ordered = true;
  for (let k = 0; k < total; k++) {
    const x = cand[k];
    if (occurrences[x] > maxCount) maxCount = occurrences[x];
    if (k > 0 && k !== wordCandidates && start[x] < start[cand[k - 1]]) ordered = false;
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
    const x = byFirst[r];
    firstRank[x] = r > 0 && start[byFirst[r - 1]] === start[x] ? firstRank[byFirst[r - 1]] : r;
  }
  // more[v] = candidates with more than v occurrences
  const more = new Int32Array(maxCount + 2);
  for (let k = 0; k < total; k++) more[occurrences[cand[k]]]++;
  for (let v = maxCount - 1; v >= 0; v--) more[v] += more[v + 1];
  for (let k = 0; k < total; k++) countRank[cand[k]] = more[occurrences[cand[k]] + 1];
  return { byFirst, countRank, firstRank };
}

export const poolOrderSpace = (n: number, m: number): Space => ({ ints: 4 * (n + m), bytes: 0, floats: 3 * (n + m) });

/**
 * The `pool` best candidates by the graph score, ties by first occurrence and index (`order`, `rows`
 * of them): of the candidates in byFirst order, those scored at least the pool's last (util/sorted.ts
 * `kthSmallest`; all of them when the pool takes more than half), sorted stably by the graph score
 * (`orderByKey`).
 */
export function poolOrder(c: Candidates, byFirst: Int32Array, pool: number, s: Scratch): { order: Int32Array; rows: number } {
  const { total, base } = c;
  const rows = Math.min(total, pool);
  const order = s.ints(total);
  if (rows === 0) return { order, rows };
  const negBase = s.floats(total);
  for (let r = 0; r < total; r++) negBase[r] = 0 - base[byFirst[r]];
  // the pool's last score, found by a selection when the pool takes at most half of the candidates
  const selected = s.floats(total);
  let last = Infinity;
  if (2 * rows <= total) {
    selected.set(negBase);
    last = kthSmallest(selected, total, rows - 1);
  }
  const at = s.ints(total);
  let kept = 0;
  for (let r = 0; r < total; r++) {
    if (negBase[r] > last) continue;
    at[kept] = r;
    selected[kept++] = negBase[r];
  }
  const sorted = s.ints(total);
  orderByKey(selected, kept, sorted, s.ints(total));
  for (let k = 0; k < rows; k++) order[k] = byFirst[at[sorted[k]]];
  return { order, rows };
}

// ── 4. overlap index ────────────────────────────────────────────────────────────────────────────────

/** Overlapping variants among the candidates (传统 / 传统文化, 梦溪 / 沈梦溪). */
export interface OverlapIndex {
  /** Per candidate: the best candidate containing it / it contains (by graph score; ties: the earlier), or -1. */
  readonly container: Int32Array;
  readonly contained: Int32Array;
  /** It contains a candidate that names a KG entity. */
  readonly containsEntity: Uint8Array;
  /** It is part of a longer word of 3–12 code units, or of a phrase that names an entity or joins names. */
  readonly shortForm: Uint8Array;
}

/** The surface table takes at most 8 (n + m) + 16 slots (a power of two ≥ 4 × the candidates, ≥ 16). */
export const overlapSpace = (n: number, m: number): Space => ({ ints: 11 * (n + m) + 16, bytes: 2 * (n + m), floats: 0 });

/** The candidate whose surface is w[a, b) (h: its hash), or -1. */
type SurfaceLookup = (w: string, a: number, b: number, h: number) => number;

/**
 * The candidates' surfaces in an open-addressing table on their FNV-1a hash (util/hash.ts), each
 * surface holding its best candidate (the higher graph score, then the earlier).
 */
function surfaceTable(c: Candidates, candText: (x: number) => string, s: Scratch): SurfaceLookup {
  const { total, cand, base } = c;
  let slots = 16;
  while (slots < 4 * total) slots *= 2;
  const surfaceSlots = s.ints(slots).fill(-1);
  const slotMask = slots - 1;
  const surfaceHash = s.ints(cand.length);
  for (let k = 0; k < total; k++) {
    const x = cand[k];
    const t = candText(x);
    const h = hashName(t) | 0;
    surfaceHash[x] = h;
    for (let q = h & slotMask; ; q = (q + 1) & slotMask) {
      const other = surfaceSlots[q];
      if (other < 0 || (surfaceHash[other] === h && candText(other) === t)) {
        if (other < 0 || base[x] > base[other]) surfaceSlots[q] = x;
        break;
      }
    }
  }
  return (w, a, b, h) => {
    for (let q = h & slotMask; ; q = (q + 1) & slotMask) {
      const x = surfaceSlots[q];
      if (x < 0) return -1;
      if (surfaceHash[x] !== h) continue;
      const t = candText(x);
      if (t.length !== b - a) continue;
      let k = 0;
      while (k < t.length && t.charCodeAt(k) === w.charCodeAt(a + k)) k++;
      if (k === t.length) return x;
    }
  };
}

/**
 * One pass over the proper substrings (≥ 2 code units) of the longer surfaces, looked up among the
 * candidates' surfaces: short forms (a part of any word of 3–12 code units, or of a phrase that names
 * an entity or joins names) and the overlap relations between candidates (surfaces of 3–12 code
 * units). The substrings are not cut out: each one's hash grows by a code unit at a time.
 */
export function overlapIndex(d: RerankDocument, c: Candidates, ent: EntityContext, s: Scratch): OverlapIndex {
  const n = d.words.length;
  const m = d.phrases.length;
  const candText = (x: number): string => (x >= n ? d.phrases[x - n].text : d.words[x]);
  const candEntity = (x: number): number => (x >= n ? ent.phraseEntity(x - n) : d.entity[x]);
  const container = s.ints(n + m).fill(-1);
  const contained = s.ints(n + m).fill(-1);
  const containsEntity = s.bytes(n + m);
  const surfaceAt = surfaceTable(c, candText, s);
  const { base } = c;
  const better = (a: number, b: number): boolean => b < 0 || base[a] > base[b] || (base[a] === base[b] && a < b);
  const shortForm = s.bytes(n + m);
  // short: 1 or 0, or -1 when phrase p's entity decides (looked up at the first substring found)
  const scan = (w: string, x: number, short: number, p = -1): void => {
    for (let a = 0; a + 2 <= w.length; a++) {
      let h = Math.imul(FNV_OFFSET ^ w.charCodeAt(a), FNV_PRIME);
      for (let b = a + 2; b <= w.length; b++) {
        h = Math.imul(h ^ w.charCodeAt(b - 1), FNV_PRIME);
        if (b - a === w.length) continue;
        const sub = surfaceAt(w, a, b, h);
        if (sub < 0 || sub === x) continue;
        if (short < 0) short = ent.phraseEntity(p) >= 0 ? 1 : 0;
        if (short === 1) shortForm[sub] = 1;
        if (x < 0) continue;
        if (better(x, container[sub])) container[sub] = x;
        if (better(sub, contained[x])) contained[x] = sub;
        if (candEntity(sub) >= 0) containsEntity[x] = 1;
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
    else if (ent.phraseEntity(p) >= 0) scan(w, -1, 1);
  }
  return { container, contained, containsEntity, shortForm };
}

// ── 5. rows ─────────────────────────────────────────────────────────────────────────────────────────

export const rowsSpace = (n: number, m: number, rows: number): Space => ({ ints: 2 * n, bytes: n, floats: 2 * m + rows * RERANK_FEATURE_COUNT });

/** Everything a row is written from. */
export interface RowSources {
  readonly d: RerankDocument;
  readonly kg: KgView | null;
  readonly idf: IdfTable;
  readonly occ: Occurrences;
  readonly ent: EntityContext;
  readonly cands: Candidates;
  readonly ranks: RelativeRanks;
  readonly overlap: OverlapIndex;
  /** Per word: occurrences inside its most frequent phrase candidate ({@link phraseShares}). */
  readonly inPhrase: Int32Array;
  /** Per pooled word: occurrences in a cast-list context ({@link castCounts}). */
  readonly cast: Int32Array;
  /** Per pooled phrase: its IDF ({@link pooledPhraseLookups}). */
  readonly phraseIdf: Float64Array;
  /** The feature docLength, the same in every row: log(1 + the text's length) / 10. */
  readonly docLength: number;
}

/** Per word: occurrences inside its most frequent phrase candidate. */
export function phraseShares(d: RerankDocument, s: Scratch): Int32Array {
  const inPhrase = s.ints(d.words.length);
  for (const ph of d.phrases) {
    for (let k = 0; k < ph.members.length; k++) {
      const m = ph.members[k];
      if (m >= 0 && ph.count > inPhrase[m]) inPhrase[m] = ph.count;
    }
  }
  return inPhrase;
}

/** Cast-list context (inCastContext) per word, counted only for the pooled words (the only ones with features). */
export function castCounts(d: RerankDocument, order: Int32Array, rows: number, s: Scratch): Int32Array {
  const n = d.words.length;
  const cast = s.ints(n);
  const pooled = s.bytes(n);
  for (let r = 0; r < rows; r++) if (order[r] < n) pooled[order[r]] = 1;
  for (let k = 0; k < d.node.length; k++) {
    const i = d.node[k];
    if (pooled[i] && inCastContext(d.text, d.charStart[k], d.charStart[k] + d.tokens[d.tokenIndex[k]].word.length)) cast[i]++;
  }
  return cast;
}

/**
 * The pooled phrases' lookups in the two large tables, made together before the rows (one at a time
 * between other work, each lookup waits for memory in turn): their IDF, side by side (idf.ts `weights`;
 * 0 for the other phrases), and the KG entity each names (kept by `ent.phraseEntity`).
 */
export function pooledPhraseLookups(d: RerankDocument, idf: IdfTable, ent: EntityContext, order: Int32Array, rows: number, s: Scratch): Float64Array {
  const n = d.words.length;
  const phraseIdf = s.floats(d.phrases.length);
  // packed arrays, of the shapes the words' lookup passes (core.ts): one shape for idf.ts `weights`
  const texts: string[] = [];
  const which: number[] = [];
  for (let r = 0; r < rows; r++) {
    if (order[r] < n) continue;
    which.push(texts.length);
    texts.push(d.phrases[order[r] - n].text);
  }
  const values = s.floats(texts.length);
  if (idf.weights) idf.weights(texts, which, values);
  else for (let j = 0; j < texts.length; j++) values[j] = idf.weight(texts[j]);
  for (let r = 0, j = 0; r < rows; r++) {
    if (order[r] < n) continue;
    phraseIdf[order[r] - n] = values[j++];
    ent.phraseEntity(order[r] - n);
  }
  return phraseIdf;
}

/** Math.log1p of the counts below 1024, computed once: a row reads its count's value. */
const LOG1P_COUNTS = Float64Array.from({ length: 1024 }, (_, k) => Math.log1p(k));

/** Math.log1p(k) of a count k (the table's value when it holds k). */
function log1pCount(k: number): number {
  return k >>> 0 === k && k < LOG1P_COUNTS.length ? LOG1P_COUNTS[k] : Math.log1p(k);
}

/** Math.log1p(v) of an edge-weight sum, most often 0 (a word without KG or semantic edges). */
function log1pSum(v: number): number {
  return v === 0 ? 0 : Math.log1p(v);
}

function setLength(f: Float64Array, text: string): void {
  const len = codePoints(text);
  f[len <= 2 ? F.len2 : len === 3 ? F.len3 : F.len4plus] = 1;
}

function setKind(f: Float64Array, kg: KgView | null, e: number): void {
  if (e < 0 || !kg) return;
  const kind = kg.kindOf(e);
  f[kind === 'Person' ? F.person : kind === 'Movie' ? F.movie : kind === 'Character' ? F.character : F.genre] = 1;
}

/** The features of graph word i (score, counts, positions, entity context, form, POS). */
export function wordRow(f: Float64Array, i: number, x: RowSources): void {
  const { d, kg, occ, ent, cands } = x;
  const w = d.words[i];
  const L = Math.max(1, d.text.length);
  const count = occ.count[i];
  f[F.base] = norm(d.values[i], cands.maxValue);
  f[F.textrank] = norm(d.rank[i], cands.maxRank);
  if (d.positionRank) f[F.positionRank] = norm(d.positionRank[i], cands.maxPosition);
  f[F.idf] = (d.idfWeights ? d.idfWeights[i] : x.idf.weight(w)) / 10;
  f[F.logCount] = log1pCount(count);
  f[F.firstPos] = occ.first[i] / L;
  f[F.spread] = (occ.last[i] - occ.first[i]) / L;
  setLength(f, w);
  f[F.kgEdges] = log1pSum(d.kgSum[i]);
  f[F.semEdges] = log1pSum(d.semSum[i]);
  setKind(f, kg, d.entity[i]);
  wordMentionRow(f, i, x);
  f[F.cast] = count > 0 ? x.cast[i] / count : 0;
  f[F.titleMarks] = count > 0 ? occ.marks[i] / count : 0;
  f[F.mainMovie] = i === ent.mainMovie ? 1 : 0;
  if (kg && d.entity[i] >= 0) {
    f[F.entityLinks] = log1pCount(ent.links[i]);
    if (kg.kindOf(d.entity[i]) === 'Movie' && i !== ent.mainMovie) f[F.otherMovie] = 1;
    if (ent.mainEntity >= 0 && i !== ent.mainMovie && kg.relationCount(d.entity[i], ent.mainEntity) > 0) f[F.mainFilmRelated] = 1;
  }
  f[F.shortForm] = x.overlap.shortForm[i];
  if (w.length >= 3 && d.entity[i] >= 0 && kg && PERSONISH.has(kg.kindOf(d.entity[i])) && hasWordInside(d.words, w)) f[F.fullForm] = 1;
  const pos = posGroup(occ.tag[i]);
  if (pos >= 0) f[pos] = 1;
  f[F.inPhraseShare] = count > 0 ? x.inPhrase[i] / count : 0;
}

/** Whether a proper part (≥ 2 code units) of w is one of the document's words (a part is cut out and looked up only when a word of its length starts with its first two code units). */
function hasWordInside(words: readonly string[], w: string): boolean {
  const index = nodeIndex(words);
  const starts = wordStarts(words);
  for (let a = 0; a + 2 <= w.length; a++) {
    const c0 = w.charCodeAt(a);
    const c1 = w.charCodeAt(a + 1);
    for (let b = a + 2; b <= w.length; b++) if (b - a < w.length && starts.has(c0, c1, b - a) && index.has(w.slice(a, b))) return true;
  }
  return false;
}

/** The document's words (of two code units or more) by their first two code units and length, as bits of a hash: no false negative. */
class WordStarts {
  private readonly bits = new Uint32Array(128);
  add(c0: number, c1: number, length: number): void {
    const h = WordStarts.slot(c0, c1, length);
    this.bits[h >>> 5] |= 1 << (h & 31);
  }
  has(c0: number, c1: number, length: number): boolean {
    const h = WordStarts.slot(c0, c1, length);
    return (this.bits[h >>> 5] & (1 << (h & 31))) !== 0;
  }
  /** One of 4,096 bits: the top 12 bits of a multiplicative hash. */
  private static slot(c0: number, c1: number, length: number): number {
    return Math.imul(((c0 << 16) | c1) ^ length, 0x9e3779b1) >>> 20;
  }
}

const wordStartsOf = new WeakMap<readonly string[], WordStarts>();

/** {@link WordStarts} of the words, made when first asked and kept with them (labels never change once made). */
function wordStarts(words: readonly string[]): WordStarts {
  let starts = wordStartsOf.get(words);
  if (!starts) {
    starts = new WordStarts();
    for (const x of words) if (x.length >= 2) starts.add(x.charCodeAt(0), x.charCodeAt(1), x.length);
    wordStartsOf.set(words, starts);
  }
  return starts;
}

/** Order-of-mention features of word i: among its kind, and among persons and characters. */
function wordMentionRow(f: Float64Array, i: number, x: RowSources): void {
  const { kindOrder, personOrder } = x.ent;
  if (kindOrder[i] >= 0) {
    f[F.kindFirst] = kindOrder[i] === 0 ? 1 : 0;
    f[F.kindSecond] = kindOrder[i] === 1 ? 1 : 0;
    f[F.kindOrderInv] = 1 / (1 + kindOrder[i]);
  }
  if (personOrder[i] >= 0) {
    f[F.personFirst] = personOrder[i] === 0 ? 1 : 0;
    f[F.personSecond] = personOrder[i] === 1 ? 1 : 0;
    f[F.personLater] = personOrder[i] >= 3 ? 1 : 0;
    f[F.personCastDoc] = x.ent.castDoc ? 1 : 0;
  }
}

/** The features of phrase p (from its words' scores and edges, its count and positions, its shape and entity). */
export function phraseRow(f: Float64Array, p: number, x: RowSources): void {
  const { d, kg, cands } = x;
  const value = d.phraseValues[p];
  const ph = d.phrases[p];
  const pr = d.positionRank ?? null;
  const L = Math.max(1, d.text.length);
  let rank = 0;
  let position = 0;
  let kgSum = 0;
  let semSum = 0;
  let best = 0;
  let worst = Infinity;
  for (let k = 0; k < ph.members.length; k++) {
    const m = ph.members[k];
    const v = m < 0 ? 0 : d.values[m];
    if (v > best) best = v;
    if (v < worst) worst = v;
    if (m < 0) continue;
    if (d.rank[m] > rank) rank = d.rank[m];
    if (pr && pr[m] > position) position = pr[m];
    kgSum += d.kgSum[m];
    semSum += d.semSum[m];
  }
  f[F.base] = norm(value, cands.maxValue);
  f[F.textrank] = norm(rank, cands.maxRank);
  if (pr) f[F.positionRank] = norm(position, cands.maxPosition);
  f[F.idf] = x.phraseIdf[p] / 10;
  f[F.logCount] = log1pCount(ph.count);
  f[F.firstPos] = ph.charStart / L;
  f[F.spread] = ((ph.lastStart ?? ph.charStart) - ph.charStart) / L;
  setLength(f, ph.text);
  f[F.kgEdges] = log1pSum(kgSum);
  f[F.semEdges] = log1pSum(semSum);
  const entity = x.ent.phraseEntity(p);
  setKind(f, kg, entity);
  f[F.shortForm] = x.overlap.shortForm[d.words.length + p];
  f[F.phrase] = 1;
  f[F.phrase3] = ph.members.length >= 3 ? 1 : 0;
  f[F.phraseOneChar] = ph.oneCharParts ?? 0;
  f[F.phraseJoined] = ph.joined ? 1 : 0;
  f[F.phraseSequel] = ph.sequel ? 1 : 0;
  if (ph.sequel && d.entity[ph.members[0]] >= 0 && kg && kg.kindOf(d.entity[ph.members[0]]) === 'Movie') setKind(f, kg, d.entity[ph.members[0]]);
  f[F.phraseEntity] = entity >= 0 ? 1 : 0;
  f[F.partBest] = norm(best, cands.maxValue);
  f[F.partWorst] = norm(worst, cands.maxValue);
}

/** The overlapping-variant features of candidate c, its digit, and its place among the document's candidates. */
export function overlapRow(f: Float64Array, c: number, x: RowSources): void {
  const { d, cands, overlap, ranks } = x;
  const n = d.words.length;
  const { base, occurrences } = cands;
  const candEntity = (y: number): number => (y >= n ? x.ent.phraseEntity(y - n) : d.entity[y]);
  const up = overlap.container[c];
  if (up >= 0) {
    f[F.containerBase] = base[up];
    f[F.containerGap] = base[up] - base[c];
    f[F.containerShare] = occurrences[c] > 0 ? occurrences[up] / occurrences[c] : 0;
    f[F.containerEntity] = candEntity(up) >= 0 ? 1 : 0;
  }
  const down = overlap.contained[c];
  if (down >= 0) {
    f[F.containedBase] = base[down];
    f[F.containedGap] = base[down] - base[c];
    f[F.containedShare] = occurrences[down] > 0 ? occurrences[c] / occurrences[down] : 0;
  }
  f[F.containedEntity] = overlap.containsEntity[c];
  f[F.digit] = hasDigit(c >= n ? d.phrases[c - n].text : d.words[c]) ? 1 : 0;
  f[F.docLength] = x.docLength;
  f[F.countRank] = 1 / (1 + ranks.countRank[c]);
  f[F.firstRank] = 1 / (1 + ranks.firstRank[c]);
}

/** The features of the candidate's rank r by the graph score (after its base is set). */
export function rankRow(f: Float64Array, r: number): void {
  f[F.baseRank] = 1 / (1 + r);
  f[F.logBase] = Math.log(0.001 + f[F.base]);
  f[F.top3] = r < 3 ? 1 : 0;
  f[F.top10] = r < 10 ? 1 : 0;
  f[F.top30] = r < 30 ? 1 : 0;
}
