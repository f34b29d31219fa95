/**
 * Selection of the top K (pke's `get_n_best`): the graph words by descending score ({@link orderByScore},
 * the word-only output), or words and phrases together ({@link selectItems}, the phrase stage and the
 * re-ranker) with the guideline's rule "no overlapping variants" (`phrases.dedup`) and the words that take
 * back a phrase's place (`phrases.rescueWords`). Ties are broken by first occurrence or by code point
 * (`rank.tieBreak`); the order is a total order, so the output is deterministic.
 */
import { compareCodePoints, type RankOptions } from './rank.js';
import { isJoinedName, type PhraseOptions } from './phrases.js';

/** Whether node a ranks before node b (descending score, then the tie-break). */
function before(scores: Float64Array, words: readonly string[], tieBreak: RankOptions['tieBreak'], a: number, b: number): boolean {
  if (scores[a] !== scores[b]) return scores[a] > scores[b];
  if (tieBreak === 'lexicographic') {
    const c = compareCodePoints(words[a], words[b]);
    if (c !== 0) return c < 0;
  }
  return a < b;
}

/**
 * Node indices ordered by descending score with the deterministic tie-break: `'firstOccurrence'`
 * relies on nodes being numbered in order of first occurrence (the graph stage does this), so ties keep
 * the lower index; `'lexicographic'` orders tied words by code point.
 * @param limit return only the first `limit` (a partial selection, O(n·limit) for small limits)
 * @param eligible when given, only nodes with eligible[i] ≠ 0 are ordered
 */
export function orderByScore(scores: Float64Array, words: readonly string[], tieBreak: RankOptions['tieBreak'], limit = Infinity, eligible?: Uint8Array): number[] {
  const n = scores.length;
  if (limit < 32 && limit < n) {
    // insertion into a short sorted list
    const top: number[] = [];
    for (let i = 0; i < n; i++) {
      if (eligible && !eligible[i]) continue;
      if (top.length === limit && !before(scores, words, tieBreak, i, top[top.length - 1])) continue;
      let k = top.length < limit ? top.length : limit - 1;
      if (top.length < limit) top.push(i);
      while (k > 0 && before(scores, words, tieBreak, i, top[k - 1])) {
        top[k] = top[k - 1];
        k--;
      }
      top[k] = i;
    }
    return top;
  }
  const idx: number[] = [];
  for (let i = 0; i < n; i++) if (!eligible || eligible[i]) idx.push(i);
  if (tieBreak === 'lexicographic') idx.sort((a, b) => scores[b] - scores[a] || compareCodePoints(words[a], words[b]) || a - b);
  else idx.sort((a, b) => scores[b] - scores[a] || a - b);
  return limit < idx.length ? idx.slice(0, limit) : idx;
}

/** One rankable item: a graph word or a phrase. */
export interface RankedItem {
  readonly text: string;
  readonly value: number;
  /** UTF-16 offset of the first occurrence. */
  readonly charStart: number;
  readonly phrase: boolean;
  /** Occurrences in the document (read by `rescueWords` only). */
  readonly count?: number;
}

function overlaps(a: RankedItem, b: RankedItem, dedup: PhraseOptions['dedup']): boolean {
  if (dedup === 'off' || (dedup === 'phrases' && !a.phrase && !b.phrase)) return false;
  return a.text.includes(b.text) || b.text.includes(a.text);
}

/**
 * The top `limit` items (indices) by descending value with the deterministic tie-break and the dedup
 * rule (phrases.ts header, step 3). Items with a NaN value are never selected.
 */
export function selectItems(
  items: readonly RankedItem[],
  tieBreak: RankOptions['tieBreak'],
  dedup: PhraseOptions['dedup'],
  limit: number,
  rescue: PhraseOptions['rescueWords'] = 'off',
): number[] {
  const compare = (x: number, y: number): number => {
    const a = items[x];
    const b = items[y];
    if (a.value !== b.value) return b.value - a.value;
    if (tieBreak === 'lexicographic') {
      const c = compareCodePoints(a.text, b.text);
      if (c !== 0) return c;
    }
    return a.charStart - b.charStart || b.text.length - a.text.length || compareCodePoints(a.text, b.text) || x - y;
  };
  const taken: number[] = [];
  const take = (i: number): void => {
    const first = taken.findIndex((t) => overlaps(items[t], items[i], dedup));
    if (first < 0) taken.push(i);
    else if (rescue !== 'off' && rescues(items, taken, i, dedup, rescue)) {
      // the word takes the first hiding phrase's place; the other phrases that hid it go
      taken[first] = i;
      for (let k = taken.length - 1; k > first; k--) if (overlaps(items[taken[k]], items[i], dedup)) taken.splice(k, 1);
    }
  };
  if (limit > SELECT_BY_SCAN) {
    const idx: number[] = [];
    for (let i = 0; i < items.length; i++) if (!Number.isNaN(items[i].value)) idx.push(i);
    idx.sort(compare);
    for (let k = 0; k < idx.length && taken.length < limit; k++) take(idx[k]);
    return taken;
  }
  // a few: the best item not yet looked at, again and again (the order is the sorted one, as the
  // comparison is a total order), which for a short list is cheaper than sorting all; the scans read
  // a typed copy of the values, in which an item looked at becomes NaN
  const open = new Float64Array(items.length);
  for (let i = 0; i < items.length; i++) open[i] = items[i].value;
  while (taken.length < limit) {
    const best = bestOpen(open, compare);
    if (best < 0) break;
    open[best] = NaN;
    take(best);
  }
  return taken;
}

/** The index whose value (not NaN) `compare` orders first, or -1: higher values first, equal ones by `compare`. */
function bestOpen(open: Float64Array, compare: (x: number, y: number) => number): number {
  let best = -1;
  let bestValue = 0;
  for (let i = 0; i < open.length; i++) {
    const v = open[i];
    if (Number.isNaN(v)) continue;
    if (best < 0 || v > bestValue || (v === bestValue && compare(i, best) < 0)) {
      best = i;
      bestValue = v;
    }
  }
  return best;
}

/**
 * Whether word `i` replaces the taken items it overlaps (`rescueWords`, not `'off'`): all of them are
 * phrases that contain it, are no name joined by a name dot or a space (汉尼拔·莱克特 keeps its place
 * before 汉尼拔: the full name is the guideline's form) and give way under the rule.
 */
function rescues(items: readonly RankedItem[], taken: readonly number[], i: number, dedup: PhraseOptions['dedup'], rule: PhraseOptions['rescueWords']): boolean {
  const w = items[i];
  if (w.phrase) return false;
  const wc = w.count ?? 0;
  for (const t of taken) {
    const p = items[t];
    if (!overlaps(p, w, dedup)) continue;
    if (!p.phrase || !p.text.includes(w.text) || isJoinedName(p.text)) return false;
    const pc = p.count ?? 0;
    const yields = rule === 'outside' ? wc > pc : pc === 1 && wc >= (rule === 'repeated' ? 2 : 1);
    if (!yields) return false;
  }
  return true;
}

/** {@link selectItems} scans for the best remaining item when at most this many are asked for, else sorts. */
const SELECT_BY_SCAN = 10;
