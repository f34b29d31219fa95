/**
 * Jaccard similarity of two KG neighbour sets (spec eq. 8, [RECON]):
 *
 *   sm(A, B) = |A ∩ B| / |A ∪ B|,   and `empty` (default 0) when A ∪ B = ∅.
 *
 * Sets are sorted ascending, duplicate-free Int32Arrays (the shape `KgView.neighbours` returns), so the
 * intersection is a linear merge. Hubs (a genre or a prolific actor can have thousands of neighbours)
 * are handled without walking the big list: when one list is much longer than the other the small one
 * is probed into the big one by galloping (exponential + binary) search, O(|small| · log |big|).
 * Cheap exits: an empty side gives 0 at once, and when the ranges of values do not overlap the
 * intersection is empty.
 *
 * `exclude` (spec option `jaccardExcludeEndpoints`): the two endpoints themselves are removed from both
 * sets before computing, so that two directly linked entities are not penalised by each other's
 * presence in the union.
 *
 * Graphology has no Jaccard (graphology-similarity is an empty stub), so this is ours. {@link JaccardMemo}
 * keeps the values of hub pairs across the documents of one extractor.
 */
import { sortedHas } from '../util/sorted.js';

/** Ratio |big| / |small| above which galloping is used instead of a linear merge. */
const GALLOP_RATIO = 16;

/** First index k ≥ from with big[k] ≥ value (big sorted ascending); big.length if none. */
function gallop(big: Int32Array, value: number, from: number): number {
  const n = big.length;
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < n && big[hi] < value) {
    lo = hi + 1;
    hi = from + step;
    step <<= 1;
  }
  if (hi > n) hi = n;
  // binary search in [lo, hi)
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (big[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Size of the intersection of two sorted, duplicate-free Int32Arrays, ignoring the values `skipA` and
 * `skipB` (pass -1 to skip nothing).
 */
export function intersectionSize(a: Int32Array, b: Int32Array, skipA = -1, skipB = -1): number {
  let small = a;
  let big = b;
  if (small.length > big.length) {
    small = b;
    big = a;
  }
  const ns = small.length;
  const nb = big.length;
  if (ns === 0 || nb === 0) return 0;
  if (small[ns - 1] < big[0] || big[nb - 1] < small[0]) return 0;
  let count = 0;
  if (nb > GALLOP_RATIO * ns) {
    let k = 0;
    for (let i = 0; i < ns && k < nb; i++) {
      const v = small[i];
      k = gallop(big, v, k);
      if (k < nb && big[k] === v) {
        if (v !== skipA && v !== skipB) count++;
        k++;
      }
    }
    return count;
  }
  let i = 0;
  let j = 0;
  while (i < ns && j < nb) {
    const x = small[i];
    const y = big[j];
    if (x < y) i++;
    else if (x > y) j++;
    else {
      if (x !== skipA && x !== skipB) count++;
      i++;
      j++;
    }
  }
  return count;
}

/**
 * Jaccard similarity of two sorted duplicate-free Int32Arrays.
 * @param endpoints when given as [i, j] (entity indices of the two ends), i and j are removed from both
 *   sets first (option `jaccardExcludeEndpoints`).
 * @param empty value returned when the union is empty (option `jaccardEmpty`).
 */
export function jaccard(a: Int32Array, b: Int32Array, endpoints: readonly [number, number] | null = null, empty = 0): number {
  let sizeA = a.length;
  let sizeB = b.length;
  let skipA = -1;
  let skipB = -1;
  if (endpoints) {
    skipA = endpoints[0];
    skipB = endpoints[1];
    // remove both endpoints from each side when present
    if (sortedHas(a, skipA)) sizeA--;
    if (skipB !== skipA && sortedHas(a, skipB)) sizeA--;
    if (sortedHas(b, skipA)) sizeB--;
    if (skipB !== skipA && sortedHas(b, skipB)) sizeB--;
  }
  if (sizeA === 0 && sizeB === 0) return empty;
  if (sizeA === 0 || sizeB === 0) return 0;
  const inter = intersectionSize(a, b, skipA, skipB);
  return inter / (sizeA + sizeB - inter);
}

/** Memo of Jaccard values keyed by entity pair (graph.ts `GraphKgInput.jaccardMemo`). */
export class JaccardMemo {
  private readonly map = new Map<number, number>();
  /** Pairs whose two neighbour lists together are at least this long are memoised. */
  constructor(
    readonly minSize = 512,
    private readonly limit = 100_000,
  ) {}
  get(a: number, b: number): number | undefined {
    return this.map.get(a < b ? a * 0x4000000 + b : b * 0x4000000 + a);
  }
  set(a: number, b: number, value: number): void {
    if (this.map.size >= this.limit) this.map.clear();
    this.map.set(a < b ? a * 0x4000000 + b : b * 0x4000000 + a, value);
  }
}
