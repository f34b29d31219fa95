/**
 * Packed string columns of the KG store, laid out so that a snapshot's sections are used as they are
 * (views on the file's bytes) and loading builds nothing (issue 6, cold start: format 1 rebuilt the JSON string
 * table and the name index at every load; its cost: bench/README.md "Figures behind code comments"):
 *
 *   - {@link StringTable}: n strings as UTF-16 code units in one Uint16Array, with n+1 Int32 offsets;
 *     a string is decoded on first use and kept. UTF-16 keeps any JS string exactly (lone surrogates
 *     too) and is smaller than UTF-8 for CJK text.
 *   - {@link ListColumn}: one list of strings per entity (surfaces, aliases): entity i's strings are items
 *     offsets[i] .. offsets[i+1]-1 of a StringTable.
 *   - {@link NameIndex}: normalised name → entity indices, as an open-addressing hash table (linear
 *     probing, FNV-1a over UTF-16 code units; a power-of-two table, built at least twice the key count,
 *     and a loaded one must have an empty slot) over a
 *     StringTable of keys, each key with two sorted index lists: the entities it names, and the entities
 *     it names or is an alias of. Keys are in the order the store used to insert them (names in entity
 *     order, then alias-only keys), which is the order of `KgView.names()`.
 *
 * The hash function and the probing are part of the snapshot format (src/kg/snapshot.ts, format 2).
 */
import { hashName, hashUnits, SlotTags } from '../util/hash.js';
import { isPlainName, normalizeName } from './model.js';

const EMPTY_STRINGS: readonly string[] = Object.freeze([]);
const EMPTY_INDICES: readonly number[] = Object.freeze([]);

/** Decodes code units a..b-1 (in slices: `fromCharCode.apply` takes a bounded number of arguments). */
function decode(units: Uint16Array, a: number, b: number): string {
  if (b - a <= 4096) return String.fromCharCode.apply(null, units.subarray(a, b) as unknown as number[]);
  let s = '';
  for (let p = a; p < b; p += 4096) s += String.fromCharCode.apply(null, units.subarray(p, Math.min(b, p + 4096)) as unknown as number[]);
  return s;
}

/** Whether every list ids[off[k] .. off[k+1]-1] is strictly ascending. */
function ascendingLists(off: Int32Array, ids: Int32Array): boolean {
  for (let k = 0; k + 1 < off.length; k++) for (let i = off[k] + 1; i < off[k + 1]; i++) if (ids[i] <= ids[i - 1]) return false;
  return true;
}

/** `ok` is false when offsets do not describe `total` items (first 0, non-decreasing, last = total). */
function offsetsOk(o: Int32Array, total: number): boolean {
  if (o.length === 0 || o[0] !== 0 || o[o.length - 1] !== total) return false;
  for (let i = 1; i < o.length; i++) if (o[i] < o[i - 1]) return false;
  return true;
}

/**
 * Code units i and i + 1 of a string of length `len` (0 past its end) as one Int32, unit i in the low
 * half: the inline units of the in-memory lookup records (pipeline/corpus-pack.ts, pipeline/idf.ts).
 */
export const unitPair = (unit: (i: number) => number, len: number, i: number): number => (i < len ? unit(i) : 0) | ((i + 1 < len ? unit(i + 1) : 0) << 16);

/** n strings packed as UTF-16 code units (module header). Read only. */
export class StringTable {
  private memo: (string | undefined)[] | undefined;

  constructor(
    readonly units: Uint16Array,
    readonly offsets: Int32Array,
  ) {}

  static from(strings: readonly string[]): StringTable {
    let total = 0;
    for (const s of strings) total += s.length;
    const units = new Uint16Array(total);
    const offsets = new Int32Array(strings.length + 1);
    let p = 0;
    for (let i = 0; i < strings.length; i++) {
      const s = strings[i];
      for (let k = 0; k < s.length; k++) units[p++] = s.charCodeAt(k);
      offsets[i + 1] = p;
    }
    const t = new StringTable(units, offsets);
    t.memo = strings.slice(); // the strings are at hand: nothing to decode later
    return t;
  }

  get length(): number {
    return this.offsets.length - 1;
  }

  get(i: number): string {
    const memo = (this.memo ??= new Array<string | undefined>(this.length));
    let s = memo[i];
    if (s === undefined) {
      s = decode(this.units, this.offsets[i], this.offsets[i + 1]);
      memo[i] = s;
    }
    return s;
  }

  /** Whether string i equals `s` (compared in place, nothing decoded). */
  equals(i: number, s: string): boolean {
    const a = this.offsets[i];
    if (this.offsets[i + 1] - a !== s.length) return false;
    const u = this.units;
    for (let k = 0; k < s.length; k++) if (u[a + k] !== s.charCodeAt(k)) return false;
    return true;
  }

  toArray(): string[] {
    const out = new Array<string>(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.get(i);
    return out;
  }

  /** A reason when the offsets do not fit the code units, else null. */
  check(): string | null {
    return offsetsOk(this.offsets, this.units.length) ? null : 'offsets do not fit the string data';
  }
}

/** One list of strings per entity over a {@link StringTable} (module header). Read only. */
export class ListColumn {
  private memo: (readonly string[] | undefined)[] | undefined;

  constructor(
    readonly offsets: Int32Array,
    readonly items: StringTable,
  ) {}

  static from(lists: readonly (readonly string[])[]): ListColumn {
    const offsets = new Int32Array(lists.length + 1);
    const flat: string[] = [];
    for (let i = 0; i < lists.length; i++) {
      for (const s of lists[i]) flat.push(s);
      offsets[i + 1] = flat.length;
    }
    const c = new ListColumn(offsets, StringTable.from(flat));
    c.memo = lists.map((l) => (l.length === 0 ? EMPTY_STRINGS : Object.isFrozen(l) ? l : Object.freeze([...l])));
    return c;
  }

  get length(): number {
    return this.offsets.length - 1;
  }

  /** The list of entity i (frozen). */
  get(i: number): readonly string[] {
    const a = this.offsets[i], b = this.offsets[i + 1];
    if (a === b) return EMPTY_STRINGS;
    const memo = (this.memo ??= new Array<readonly string[] | undefined>(this.length));
    let l = memo[i];
    if (l === undefined) {
      const xs = new Array<string>(b - a);
      for (let k = a; k < b; k++) xs[k - a] = this.items.get(k);
      l = Object.freeze(xs);
      memo[i] = l;
    }
    return l;
  }

  toArrays(): (readonly string[])[] {
    const out = new Array<readonly string[]>(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.get(i);
    return out;
  }

  check(entities: number): string | null {
    if (this.offsets.length !== entities + 1 || !offsetsOk(this.offsets, this.items.length)) return 'list offsets do not fit';
    return this.items.check();
  }
}

/** The name index (module header). Read only. */
export class NameIndex {
  private nameMemo: (readonly number[] | undefined)[] | undefined;
  private anyMemo: (readonly number[] | undefined)[] | undefined;
  private probe: ProbeTable | undefined;

  constructor(
    readonly keys: StringTable,
    /** Hash table: key index, or -1 for an empty slot; length a power of two > number of keys. */
    readonly slots: Int32Array,
    /** Entities named by key k: nameIds[nameOff[k] .. nameOff[k+1]-1], ascending. */
    readonly nameOff: Int32Array,
    readonly nameIds: Int32Array,
    /** Entities named by key k or having it as an alias: anyIds[anyOff[k] .. anyOff[k+1]-1], ascending. */
    readonly anyOff: Int32Array,
    readonly anyIds: Int32Array,
  ) {}

  /**
   * Builds the index of entities with these names and aliases (Entity.aliases ∪ ALIAS targets); every
   * name and alias is normalised with `normalizeName`.
   */
  static build(names: StringTable, aliases: ListColumn): NameIndex {
    const E = names.length;
    const byName = new Map<string, number[]>();
    for (let i = 0; i < E; i++) {
      const n = normalizeName(names.get(i));
      const l = byName.get(n);
      if (!l) byName.set(n, [i]);
      else if (l[l.length - 1] !== i) l.push(i);
    }
    const byAny = new Map<string, number[]>();
    for (const [n, l] of byName) byAny.set(n, l.slice());
    for (let i = 0; i < E; i++) {
      for (const a of aliases.get(i)) {
        const n = normalizeName(a);
        const l = byAny.get(n);
        if (!l) byAny.set(n, [i]);
        else if (!l.includes(i)) l.push(i);
      }
    }
    const keys = [...byAny.keys()];
    const K = keys.length;
    const nameOff = new Int32Array(K + 1), anyOff = new Int32Array(K + 1);
    let nn = 0, na = 0;
    for (let k = 0; k < K; k++) {
      nn += byName.get(keys[k])?.length ?? 0;
      na += byAny.get(keys[k])!.length;
      nameOff[k + 1] = nn;
      anyOff[k + 1] = na;
    }
    const nameIds = new Int32Array(nn), anyIds = new Int32Array(na);
    for (let k = 0; k < K; k++) {
      const ln = byName.get(keys[k]);
      if (ln) nameIds.set(ln, nameOff[k]);
      anyIds.set(byAny.get(keys[k])!.sort((a, b) => a - b), anyOff[k]);
    }
    let cap = 8;
    while (cap < 2 * K) cap *= 2;
    const slots = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    for (let k = 0; k < K; k++) {
      let s = hashName(keys[k]) & mask;
      while (slots[s] !== -1) s = (s + 1) & mask;
      slots[s] = k;
    }
    return new NameIndex(StringTable.from(keys), slots, nameOff, nameIds, anyOff, anyIds);
  }

  get size(): number {
    return this.keys.length;
  }

  /** Index of the key equal to `s` (exactly, not normalised), -1 if none. */
  find(s: string): number {
    const probe = (this.probe ??= new ProbeTable(this));
    const { slots, keyMask, tagMask } = probe;
    const mask = slots.length - 1;
    const h = hashName(s);
    const tag = probe.tagOf(h);
    for (let p = h & mask; ; p = (p + 1) & mask) {
      let x = slots[p];
      if (x === -1) return -1;
      if ((x & tagMask) === 0) x = probe.tagSlot(p);
      if ((x & tagMask) === tag && this.keys.equals(x & keyMask, s)) return x & keyMask;
    }
  }

  /** Entities named by key k (ascending). */
  named(k: number): readonly number[] {
    return list((this.nameMemo ??= new Array(this.size)), k, this.nameOff, this.nameIds);
  }

  /** Entities named by key k or having it as an alias (ascending). */
  any(k: number): readonly number[] {
    return list((this.anyMemo ??= new Array(this.size)), k, this.anyOff, this.anyIds);
  }

  /** `find` on the name, then (unless it is already normal) on its normalised form; -1 if neither. */
  resolve(name: string): number {
    const k = this.find(name);
    if (k >= 0 || isPlainName(name)) return k;
    const n = normalizeName(name);
    return n === name ? -1 : this.find(n);
  }

  check(entities: number): string | null {
    const K = this.keys.length;
    const bad = this.keys.check();
    if (bad) return `keys: ${bad}`;
    const cap = this.slots.length;
    if (cap < 8 || (cap & (cap - 1)) !== 0 || cap <= K) return 'hash table size';
    let used = 0;
    for (let i = 0; i < cap; i++) {
      const k = this.slots[i];
      if (k < -1 || k >= K) return 'hash slot out of range';
      if (k >= 0) used++;
    }
    if (used !== K || used === cap) return 'hash table does not hold every key once, with an empty slot';
    // every key sits once, on its own probe chain: from its hash slot to its slot, no empty slot between
    const seen = new Uint8Array(K);
    const mask = cap - 1;
    const { units, offsets } = this.keys;
    for (let p = 0; p < cap; p++) {
      const k = this.slots[p];
      if (k < 0) continue;
      if (seen[k]) return 'a key is in the hash table twice';
      seen[k] = 1;
      for (let q = hashUnits(units, offsets[k], offsets[k + 1]) & mask; q !== p; q = (q + 1) & mask) if (this.slots[q] === -1) return 'a key is not on its probe chain';
    }
    if (this.nameOff.length !== K + 1 || !offsetsOk(this.nameOff, this.nameIds.length)) return 'name list offsets';
    if (this.anyOff.length !== K + 1 || !offsetsOk(this.anyOff, this.anyIds.length)) return 'alias list offsets';
    for (const ids of [this.nameIds, this.anyIds]) for (let i = 0; i < ids.length; i++) if (ids[i] < 0 || ids[i] >= entities) return 'entity index out of range';
    if (!ascendingLists(this.nameOff, this.nameIds) || !ascendingLists(this.anyOff, this.anyIds)) return 'entity lists not ascending';
    return null;
  }
}

/**
 * The slots of a {@link NameIndex} as `find` probes them, tagged (util/hash.ts `SlotTags`). Most words the
 * pipeline looks up name nothing, and a tagged probe answers those mostly from the slots alone. The
 * stored slots and the probing stay the snapshot's; only this copy carries the tags. A slot gets its tag
 * when a probe first passes it (tag 0: not yet made; a made tag is never 0), so the copy costs one
 * memory copy, not a hash of every key: a run that looks up few words pays for few slots.
 */
class ProbeTable {
  readonly slots: Int32Array;
  readonly keyMask: number;
  readonly tagMask: number;
  private readonly tags: SlotTags;
  /** The tag that stands for a hash whose tag bits are all 0 (0 means "not made yet"). */
  private readonly zeroTag: number;

  constructor(private readonly index: NameIndex) {
    this.slots = index.slots.slice();
    this.tags = new SlotTags(index.keys.length);
    this.keyMask = this.tags.keyMask;
    this.tagMask = this.tags.tagMask;
    this.zeroTag = this.tagMask & -this.tagMask;
  }

  /** The tag of hash h: never 0 when the slots have tag bits. */
  tagOf(h: number): number {
    return this.tags.tagOf(h) || this.zeroTag;
  }

  /** Gives slot p (holding a key, untagged) its key's tag; the slot's new value. */
  tagSlot(p: number): number {
    const k = this.slots[p];
    const { units, offsets } = this.index.keys;
    return (this.slots[p] = k | this.tagOf(hashUnits(units, offsets[k], offsets[k + 1])));
  }
}

function list(memo: (readonly number[] | undefined)[], k: number, off: Int32Array, ids: Int32Array): readonly number[] {
  const a = off[k], b = off[k + 1];
  if (a === b) return EMPTY_INDICES;
  let l = memo[k];
  if (l === undefined) {
    l = Array.from(ids.subarray(a, b));
    memo[k] = l;
  }
  return l;
}
