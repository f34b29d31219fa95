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

/**
 * Tagged slots of an open-addressing table keyed by strings (the KG name index's probe table, the IDF
 * table): a slot holds its key's index in the low bits and, in the bits the indices of `keys` keys leave
 * free below the sign bit, a tag made of the top bits of the key's hash (the slot number uses the
 * bottom ones). A probe compares the tag before reading the key itself (its offsets and code units, far
 * away in memory), so a string that is not a key is mostly answered from the slots alone, and a key is
 * compared with the string only where the tag matches. Empty slots stay -1 (the sign bit is never a tag's).
 */
export class SlotTags {
  /** The bits of a slot holding the key index. */
  readonly keyMask: number;
  /** The bits of a slot holding the tag. */
  readonly tagMask: number;
  private readonly shift: number;

  constructor(keys: number) {
    let keyBits = 1;
    while (keyBits < 31 && 1 << keyBits <= keys) keyBits++;
    const tagBits = 31 - keyBits;
    this.keyMask = keyBits >= 31 ? 0x7fffffff : (1 << keyBits) - 1;
    this.tagMask = tagBits === 0 ? 0 : ((1 << tagBits) - 1) << keyBits;
    this.shift = 32 - tagBits - keyBits;
  }

  /** The tag of hash h, in place (the bits of {@link tagMask}). */
  tagOf(h: number): number {
    return (h >>> this.shift) & this.tagMask;
  }
}
