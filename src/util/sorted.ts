/** Sorted arrays: binary search over ascending numeric arrays (the KG store's sorted columns, sorted id lists), and the string order of the KG's sorted lists. */

/** Whether the ascending array `a` contains `value`. */
export function sortedHas(a: Int32Array, value: number): boolean {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = a[mid];
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/** First index in [lo, hi) of the ascending array `a` whose value is ≥ `value` (hi when none is). */
export function lowerBound(a: ArrayLike<number>, value: number, lo = 0, hi = a.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Runs of this many indices are sorted by insertion before the merges of {@link orderByKey}. */
const INSERTION_RUN = 16;

/**
 * The indices 0 … n-1 by ascending `keys[i]`, equal keys by index (a stable sort), into out[0 … n-1];
 * `tmp` (n values at least) is scratch. Keys must not be NaN. Written here rather than taken from a
 * library: a typed array's own sort carries no index along, and a sort with a comparator calls a
 * function per comparison (several times the cost for the re-ranker's pool, rerank-families.ts).
 */
export function orderByKey(keys: Float64Array, n: number, out: Int32Array, tmp: Int32Array): void {
  for (let lo = 0; lo < n; lo += INSERTION_RUN) insertionRun(keys, out, lo, Math.min(n, lo + INSERTION_RUN));
  let src = out;
  let dst = tmp;
  for (let width = INSERTION_RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) mergeRuns(keys, src, dst, lo, Math.min(n, lo + width), Math.min(n, lo + 2 * width));
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== out) for (let i = 0; i < n; i++) out[i] = src[i];
}

/** out[lo … hi-1] = lo … hi-1 sorted by key by insertion (stable). */
function insertionRun(keys: Float64Array, out: Int32Array, lo: number, hi: number): void {
  for (let i = lo; i < hi; i++) {
    const key = keys[i];
    let j = i - 1;
    while (j >= lo && keys[out[j]] > key) {
      out[j + 1] = out[j];
      j--;
    }
    out[j + 1] = i;
  }
}

/** dst[lo … hi-1] = the sorted runs src[lo … mid-1] and src[mid … hi-1] merged (stable: the left one first on ties). */
function mergeRuns(keys: Float64Array, src: Int32Array, dst: Int32Array, lo: number, mid: number, hi: number): void {
  let a = lo;
  let b = mid;
  let k = lo;
  while (a < mid && b < hi) dst[k++] = keys[src[b]] < keys[src[a]] ? src[b++] : src[a++];
  while (a < mid) dst[k++] = src[a++];
  while (b < hi) dst[k++] = src[b++];
}

/**
 * The k-th smallest (0-based) of a[0 … n-1], reordering them: Hoare's selection (linear on average),
 * which after `rounds` partitions (default 2·log2 n + 8) sorts what is left instead, so that no input
 * costs more than a sort. Values must not be NaN.
 */
export function kthSmallest(a: Float64Array, n: number, k: number, rounds = 2 * Math.ceil(Math.log2(n + 1)) + 8): number {
  let lo = 0;
  let hi = n - 1;
  for (let round = 0; lo < hi; round++) {
    if (round >= rounds) {
      a.subarray(lo, hi + 1).sort();
      return a[k];
    }
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/** Orders strings by UTF-16 code units (the order of `<`), locale-independent: the KG's id and name order. */
export const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The distinct strings of `xs` in {@link cmpStr} order (none for undefined). */
export const sortedUnique = (xs: readonly string[] | undefined): string[] => [...new Set(xs ?? [])].sort(cmpStr);
