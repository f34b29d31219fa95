/**
 * FNV-1a (32 bits), the one hash of the project: the KG name index (src/kg/packed.ts, part of the snapshot
 * format) and the IDF table's index use it.
 */

/** FNV-1a (32 bits): offset basis and prime. */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a (32 bits) over the UTF-16 code units of `s`. */
export function hashName(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/**
 * FNV-1a (32 bits) over units a..b-1 of an array: {@link hashName} of a packed table's code units (the
 * same value as of the decoded string), or of bytes (the IDF index, src/pipeline/idf.ts).
 */
export function hashUnits(units: ArrayLike<number>, a: number, b: number): number {
  let h = FNV_OFFSET;
  for (let i = a; i < b; i++) h = Math.imul(h ^ units[i], FNV_PRIME);
  return h >>> 0;
}
