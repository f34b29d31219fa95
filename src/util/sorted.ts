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

/** Orders strings by UTF-16 code units (the order of `<`), locale-independent: the KG's id and name order. */
export const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The distinct strings of `xs` in {@link cmpStr} order (none for undefined). */
export const sortedUnique = (xs: readonly string[] | undefined): string[] => [...new Set(xs ?? [])].sort(cmpStr);
