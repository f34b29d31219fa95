/**
 * The embedded KG store: a compact, read-only in-memory film KG built for the extraction hot path.
 *
 * Layout (all per-entity data is addressed by a dense index 0..entityCount-1 in canonical id order,
 * i.e. entities sorted by id with plain UTF-16 code-unit comparison):
 *   - entity columns: ids, names (packed string tables, kg/packed.ts: UTF-16 code units decoded on first
 *     use), kinds (Uint8Array), surfaces, aliases, sourceIds (packed per-entity lists; sourceIds empty
 *     unless the entity is a merge, model.ts `Entity.sourceIds`), movieOf (Int32Array, -1 = none);
 *   - name index (kg/packed.ts NameIndex, a hash table on typed arrays, stored in snapshots so a load
 *     builds nothing): normalised name → sorted entity indices (`lookupName`), and name-or-alias →
 *     sorted indices (`lookup`). ALIAS targets and `Entity.aliases` both count as aliases;
 *   - relations as columns in canonical order (kind, from, to, movieId), deduplicated: `relKind`
 *     (Uint8Array, index into RELATION_KINDS), `relFrom`/`relTo`/`relMovie` (Int32Array entity indices;
 *     for ALIAS `relTo` indexes the sorted alias-name table `aliasNames`; `relMovie` -1 = none);
 *   - neighbours as CSR: `nbOffsets` (Int32Array, entityCount+1) and `nbTargets` (Int32Array, sorted
 *     unique per entity, no self), undirected, with a parallel `nbCounts` (number of distinct relations
 *     between the pair). Every relation kind except ALIAS counts, plus character↔its movie (counted as one
 *     relation: the character belongs to the movie).
 *
 * Canonical content (what `toData()` returns and `contentHash` covers): entities sorted by id with
 * `surfaces`, `aliases` and `sourceIds` sorted and unique (`sourceIds` only when it names another id than
 * the entity's own); relations sorted by (kind in RELATION_KINDS order, from, to,
 * movieId — ids compared as strings, a missing movieId first) and deduplicated. Duplicate entity rows
 * with the same id are merged (surfaces and aliases united) when kind, name and movieId agree; otherwise
 * the build fails. Relations whose ends (or PLAYED movie, or a character's movie) are not entities fail
 * the build with `dangling: 'error'` (default) or are dropped and counted with `dangling: 'drop'`.
 * Self-relations are kept in the content but are not neighbours; `buildReport` counts them.
 *
 * Memory at the paper's scale (17k entities, 3M relations): relation columns 13 B/relation, CSR
 * 8 B per directed neighbour slot plus 4 B offsets per entity; strings 2 B per code unit plus 4 B per
 * string; the name index 4 B per hash slot (≥ 2 per key) plus 8 B per key and 4 B per listed entity.
 */
import { createHash } from 'node:crypto';
import { inputError } from '../errors.js';
import { ListColumn, NameIndex, StringTable } from './packed.js';
import {
  ENTITY_KINDS,
  RELATION_KINDS,
  emptyStats,
  type Entity,
  type EntityKind,
  type KgData,
  type KgStats,
  type KgView,
  type Relation,
  type RelationKind,
} from './model.js';
import { cmpStr, lowerBound, sortedUnique } from '../util/sorted.js';

const EMPTY: readonly number[] = Object.freeze([]);
const EMPTY_STRINGS: readonly string[] = Object.freeze([]);
const ALIAS_CODE = RELATION_KINDS.indexOf('ALIAS');
const ENTITY_KIND_CODE = new Map<string, number>(ENTITY_KINDS.map((k, i) => [k, i]));
const RELATION_KIND_CODE = new Map<string, number>(RELATION_KINDS.map((k, i) => [k, i]));

/** Options of {@link KgStore.fromData} / {@link KgBuilder}. */
export interface KgBuildOptions {
  /**
   * What to do with a relation whose end (or PLAYED movie) is not an entity, and a character whose movie
   * is not an entity: fail with a FilmkwError('INPUT') naming it, or drop it and count it in `buildReport`.
   * @default 'error'
   */
  dangling?: 'error' | 'drop';
}

/** Defaults of {@link KgBuildOptions} (frozen). */
export const KG_BUILD_DEFAULTS: Readonly<Required<KgBuildOptions>> = Object.freeze({ dangling: 'error' });

/** What a build merged, dropped or noticed (only on stores built from data, not on loaded snapshots). */
export interface KgBuildReport {
  /** Entity rows merged into an earlier row with the same id. */
  duplicateEntities: number;
  /** Relation rows identical to another one (dropped from the content). */
  duplicateRelations: number;
  /** Relations from an entity to itself (kept in the content, not neighbours). */
  selfRelations: number;
  /** Dangling relations dropped (`dangling: 'drop'`), with up to 10 examples. */
  danglingDropped: number;
  danglingExamples: string[];
  /** Characters whose movie is not an entity (movieId dropped with `dangling: 'drop'`). */
  danglingCharacterMovies: number;
}

/** The raw columns of a store (what a snapshot holds). Internal to src/kg. */
export interface KgColumns {
  ids: StringTable;
  names: StringTable;
  kinds: Uint8Array;
  surfaces: ListColumn;
  aliases: ListColumn;
  /** Model.ts `Entity.sourceIds` per entity (empty when the entity is not a merge). */
  sourceIds: ListColumn;
  movieOf: Int32Array;
  aliasNames: StringTable;
  relKind: Uint8Array;
  relFrom: Int32Array;
  relTo: Int32Array;
  relMovie: Int32Array;
  nbOffsets: Int32Array;
  nbTargets: Int32Array;
  nbCounts: Int32Array;
  contentHash: string;
}

/** What a store derives from its columns for lookups (stored in a snapshot, built otherwise). Internal to src/kg. */
export interface KgIndexes {
  /** Entity.aliases ∪ ALIAS relation targets, sorted unique, per entity. */
  allAliases: ListColumn;
  nameIndex: NameIndex;
}

/** The string columns as plain arrays (what the builder has, and what the content hash reads). */
interface PlainStrings {
  ids: readonly string[];
  names: readonly string[];
  surfaces: readonly (readonly string[])[];
  aliases: readonly (readonly string[])[];
  sourceIds: readonly (readonly string[])[];
  aliasNames: readonly string[];
}

/** The columns with their string parts packed (see packed.ts). */
export function packColumns(
  plain: PlainStrings,
  rest: Omit<KgColumns, 'ids' | 'names' | 'surfaces' | 'aliases' | 'sourceIds' | 'aliasNames'>,
): KgColumns {
  return {
    ...rest,
    ids: StringTable.from(plain.ids),
    names: StringTable.from(plain.names),
    surfaces: ListColumn.from(plain.surfaces),
    aliases: ListColumn.from(plain.aliases),
    sourceIds: ListColumn.from(plain.sourceIds),
    aliasNames: StringTable.from(plain.aliasNames),
  };
}

/** Builds the lookup indexes of a store from its columns (a store built from data, or an older snapshot). */
export function buildIndexes(cols: KgColumns): KgIndexes {
  const E = cols.ids.length;
  // aliases: Entity.aliases ∪ ALIAS relation targets
  const extra: string[][] = [];
  const { relKind, relFrom, relTo, aliasNames } = cols;
  // relations are sorted by kind, so ALIAS relations are one contiguous run
  const lo = lowerBound(relKind, ALIAS_CODE), hi = lowerBound(relKind, ALIAS_CODE + 1);
  for (let i = lo; i < hi; i++) (extra[relFrom[i]] ??= []).push(aliasNames.get(relTo[i]));
  const all = new Array<readonly string[]>(E);
  for (let i = 0; i < E; i++) {
    const a = cols.aliases.get(i);
    all[i] = extra[i] ? Object.freeze(sortedUnique([...a, ...extra[i]])) : a;
  }
  const allAliases = ListColumn.from(all);
  return { allAliases, nameIndex: NameIndex.build(cols.names, allAliases) };
}

class GrowInt32 {
  a: Int32Array;
  n = 0;
  constructor(cap = 1024) {
    this.a = new Int32Array(cap);
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  take(): Int32Array {
    return this.a.slice(0, this.n);
  }
}

/**
 * Incremental builder: add entities, then relations (their ends must already be added), then `build()`.
 * `fromData` uses it; the synthetic generator feeds it typed columns without allocating relation objects.
 */
export class KgBuilder {
  private readonly opts: Required<KgBuildOptions>;
  private readonly byId = new Map<string, number>();
  private readonly ents: Entity[] = [];
  private readonly aliasIds = new Map<string, number>();
  private readonly aliasList: string[] = [];
  private readonly kind = new GrowInt32();
  private readonly from = new GrowInt32();
  private readonly to = new GrowInt32();
  private readonly movie = new GrowInt32();
  private report: KgBuildReport = {
    duplicateEntities: 0,
    duplicateRelations: 0,
    selfRelations: 0,
    danglingDropped: 0,
    danglingExamples: [],
    danglingCharacterMovies: 0,
  };
  private relSeen = 0;

  constructor(opts: KgBuildOptions = {}) {
    this.opts = { dangling: opts.dangling ?? KG_BUILD_DEFAULTS.dangling };
  }

  /** Adds (or merges) an entity; returns its builder index (not the final store index). */
  addEntity(e: Entity): number {
    if (!e || typeof e.id !== 'string' || e.id === '') throw inputError(`kg store: entity #${this.ents.length}: missing id`);
    if (!ENTITY_KIND_CODE.has(e.kind)) throw inputError(`kg store: entity ${e.id}: unknown kind '${String(e.kind)}'`);
    if (typeof e.name !== 'string') throw inputError(`kg store: entity ${e.id}: missing name`);
    const prev = this.byId.get(e.id);
    if (prev !== undefined) {
      const p = this.ents[prev];
      if (p.kind !== e.kind || p.name !== e.name || (p.movieId ?? '') !== (e.movieId ?? '')) {
        throw inputError(
          `kg store: entity ${e.id} appears twice with different ${p.kind !== e.kind ? 'kind' : p.name !== e.name ? 'name' : 'movieId'}` +
            ` ('${p.kind !== e.kind ? p.kind : p.name !== e.name ? p.name : p.movieId ?? ''}' vs '${p.kind !== e.kind ? e.kind : p.name !== e.name ? e.name : e.movieId ?? ''}')`,
        );
      }
      p.surfaces = [...p.surfaces, ...(e.surfaces ?? [])];
      p.aliases = [...p.aliases, ...(e.aliases ?? [])];
      if (e.sourceIds?.length) p.sourceIds = [...(p.sourceIds ?? []), ...e.sourceIds];
      this.report.duplicateEntities++;
      return prev;
    }
    const i = this.ents.length;
    this.byId.set(e.id, i);
    const ent: Entity = { id: e.id, kind: e.kind, name: e.name, surfaces: [...(e.surfaces ?? [])], aliases: [...(e.aliases ?? [])] };
    if (e.movieId !== undefined) ent.movieId = e.movieId;
    if (e.sourceIds?.length) ent.sourceIds = [...e.sourceIds];
    this.ents.push(ent);
    return i;
  }

  /** Builder index of an added entity id, or -1. */
  indexOf(id: string): number {
    return this.byId.get(id) ?? -1;
  }

  private dangling(what: string): void {
    if (this.opts.dangling === 'error') throw inputError(`kg store: ${what} (not an entity)`);
    this.report.danglingDropped++;
    if (this.report.danglingExamples.length < 10) this.report.danglingExamples.push(what);
  }

  /** Adds a relation by ids (ends must be added entities; for ALIAS `to` is the alias name). */
  addRelation(r: Relation): void {
    const n = this.relSeen++;
    const k = RELATION_KIND_CODE.get(r.kind);
    if (k === undefined) throw inputError(`kg store: relation #${n}: unknown kind '${String(r.kind)}'`);
    const f = this.byId.get(r.from);
    const desc = () => `relation #${n} ${r.kind} ${r.from} → ${r.to}${r.movieId !== undefined ? ` (movie ${r.movieId})` : ''}`;
    if (f === undefined) return this.dangling(`${desc()}: unknown entity '${r.from}'`);
    let t: number;
    if (k === ALIAS_CODE) {
      if (typeof r.to !== 'string') throw inputError(`kg store: ${desc()}: missing alias name`);
      t = this.aliasIds.get(r.to) ?? -1;
      if (t < 0) {
        t = this.aliasList.length;
        this.aliasIds.set(r.to, t);
        this.aliasList.push(r.to);
      }
    } else {
      const ti = this.byId.get(r.to);
      if (ti === undefined) return this.dangling(`${desc()}: unknown entity '${r.to}'`);
      t = ti;
    }
    let m = -1;
    if (r.movieId !== undefined) {
      const mi = this.byId.get(r.movieId);
      if (mi === undefined) return this.dangling(`${desc()}: unknown movie '${r.movieId}'`);
      m = mi;
    }
    this.pushIdx(k, f, t, m);
  }

  /**
   * Adds a relation by builder indices (fast path, no validation beyond ranges): kind code is the
   * index in RELATION_KINDS; for ALIAS `to` is an index returned by {@link aliasIndex}; movie -1 = none.
   */
  pushIdx(kind: number, from: number, to: number, movie = -1): void {
    this.kind.push(kind);
    this.from.push(from);
    this.to.push(to);
    this.movie.push(movie);
  }

  /** Index of an alias name for {@link pushIdx} ALIAS relations. */
  aliasIndex(name: string): number {
    let t = this.aliasIds.get(name);
    if (t === undefined) {
      t = this.aliasList.length;
      this.aliasIds.set(name, t);
      this.aliasList.push(name);
    }
    return t;
  }

  private built = false;

  /** Builds the store (once per builder). */
  build(): KgStore {
    if (this.built) throw new Error('kg store: KgBuilder.build() called twice');
    this.built = true;
    const nE = this.ents.length;
    // 1. canonical entity order
    const order = Array.from({ length: nE }, (_, i) => i).sort((a, b) => cmpStr(this.ents[a].id, this.ents[b].id));
    const remap = new Int32Array(nE);
    order.forEach((old, neu) => (remap[old] = neu));
    const ids: string[] = new Array(nE);
    const names: string[] = new Array(nE);
    const kinds = new Uint8Array(nE);
    const surfaces: (readonly string[])[] = new Array(nE);
    const aliases: (readonly string[])[] = new Array(nE);
    const sourceIds: (readonly string[])[] = new Array(nE);
    const movieOf = new Int32Array(nE).fill(-1);
    for (let i = 0; i < nE; i++) {
      const e = this.ents[order[i]];
      ids[i] = e.id;
      names[i] = e.name;
      kinds[i] = ENTITY_KIND_CODE.get(e.kind)!;
      surfaces[i] = e.surfaces.length ? Object.freeze(sortedUnique(e.surfaces)) : EMPTY_STRINGS;
      aliases[i] = e.aliases.length ? Object.freeze(sortedUnique(e.aliases)) : EMPTY_STRINGS;
      sourceIds[i] = canonicalSourceIds(e);
    }
    for (let i = 0; i < nE; i++) {
      const e = this.ents[order[i]];
      if (e.movieId === undefined) continue;
      const m = this.byId.get(e.movieId);
      if (m === undefined) {
        if (this.opts.dangling === 'error') throw inputError(`kg store: entity ${e.id}: movie '${e.movieId}' (not an entity)`);
        this.report.danglingCharacterMovies++;
        continue;
      }
      movieOf[i] = remap[m];
    }
    // 2. alias-name table in sorted order
    const aOrder = Array.from({ length: this.aliasList.length }, (_, i) => i).sort((a, b) => cmpStr(this.aliasList[a], this.aliasList[b]));
    const aRemap = new Int32Array(this.aliasList.length);
    aOrder.forEach((old, neu) => (aRemap[old] = neu));
    const aliasNames = aOrder.map((i) => this.aliasList[i]);
    // 3. relations: remap, radix sort, dedupe
    const n = this.kind.n;
    const K = this.kind.a, F = this.from.a, T = this.to.a, M = this.movie.a;
    const rk = new Uint8Array(n), rf = new Int32Array(n), rt = new Int32Array(n), rm = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const k = K[i];
      if (k < 0 || k >= RELATION_KINDS.length) throw new RangeError(`kg store: relation #${i}: bad kind code ${k}`);
      const toMax = k === ALIAS_CODE ? this.aliasList.length : nE;
      if (!(F[i] >= 0 && F[i] < nE && T[i] >= 0 && T[i] < toMax && M[i] >= -1 && M[i] < nE)) throw new RangeError(`kg store: relation #${i}: index out of range`);
      rk[i] = k;
      rf[i] = remap[F[i]];
      rt[i] = k === ALIAS_CODE ? aRemap[T[i]] : remap[T[i]];
      rm[i] = M[i] < 0 ? 0 : remap[M[i]] + 1; // +1 so "none" sorts first
    }
    const maxTo = Math.max(nE, aliasNames.length);
    let perm = identity(n);
    perm = countingSort(perm, rm, nE + 1);
    perm = countingSort(perm, rt, maxTo);
    perm = countingSort(perm, rf, nE);
    perm = countingSort(perm, rk, RELATION_KINDS.length);
    let u = 0;
    const relKind = new Uint8Array(n), relFrom = new Int32Array(n), relTo = new Int32Array(n), relMovie = new Int32Array(n);
    for (let j = 0; j < n; j++) {
      const i = perm[j];
      if (u > 0 && relKind[u - 1] === rk[i] && relFrom[u - 1] === rf[i] && relTo[u - 1] === rt[i] && relMovie[u - 1] === rm[i] - 1) {
        this.report.duplicateRelations++;
        continue;
      }
      relKind[u] = rk[i];
      relFrom[u] = rf[i];
      relTo[u] = rt[i];
      relMovie[u] = rm[i] - 1;
      if (rk[i] !== ALIAS_CODE && rf[i] === rt[i]) this.report.selfRelations++;
      u++;
    }
    const plain: PlainStrings = { ids, names, surfaces, aliases, sourceIds, aliasNames };
    const rel = { kinds, movieOf, relKind: relKind.slice(0, u), relFrom: relFrom.slice(0, u), relTo: relTo.slice(0, u), relMovie: relMovie.slice(0, u) };
    const csr = buildCsr(nE, rel.relKind, rel.relFrom, rel.relTo, movieOf);
    const contentHash = hashContent(plain, rel);
    const store = new KgStore(packColumns(plain, { ...rel, ...csr, contentHash }));
    store.buildReport = this.report;
    return store;
  }
}

/** `Entity.sourceIds` sorted and unique with the entity's own id, or none when it names no other id. */
function canonicalSourceIds(e: Entity): readonly string[] {
  if (!e.sourceIds?.length) return EMPTY_STRINGS;
  const all = sortedUnique([...e.sourceIds, e.id]);
  return all.length > 1 ? Object.freeze(all) : EMPTY_STRINGS;
}

function identity(n: number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  return p;
}

/** Stable counting sort of `perm` by key[perm[i]] in 0..range-1. */
function countingSort(perm: Int32Array, key: ArrayLike<number>, range: number): Int32Array {
  const n = perm.length;
  if (n < 2) return perm;
  const count = new Int32Array(range + 1);
  for (let i = 0; i < n; i++) count[key[perm[i]] + 1]++;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) if (key[perm[i]] < key[perm[i - 1]]) sorted = false;
  if (sorted) return perm;
  for (let i = 0; i < range; i++) count[i + 1] += count[i];
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = perm[i];
    out[count[key[p]]++] = p;
  }
  return out;
}

/** Undirected CSR of non-ALIAS relations plus character↔movie, sorted unique targets, pair counts. */
function buildCsr(
  nE: number,
  relKind: Uint8Array,
  relFrom: Int32Array,
  relTo: Int32Array,
  movieOf: Int32Array,
): { nbOffsets: Int32Array; nbTargets: Int32Array; nbCounts: Int32Array } {
  const deg = new Int32Array(nE + 1);
  const n = relKind.length;
  for (let i = 0; i < n; i++) {
    if (relKind[i] === ALIAS_CODE) continue;
    const a = relFrom[i], b = relTo[i];
    if (a === b) continue;
    deg[a]++;
    deg[b]++;
  }
  for (let c = 0; c < nE; c++) {
    const m = movieOf[c];
    if (m < 0 || m === c) continue;
    deg[c]++;
    deg[m]++;
  }
  const off = new Int32Array(nE + 1);
  for (let i = 0; i < nE; i++) off[i + 1] = off[i] + deg[i];
  const total = off[nE];
  const raw = new Int32Array(total);
  const pos = off.slice(0, nE);
  for (let i = 0; i < n; i++) {
    if (relKind[i] === ALIAS_CODE) continue;
    const a = relFrom[i], b = relTo[i];
    if (a === b) continue;
    raw[pos[a]++] = b;
    raw[pos[b]++] = a;
  }
  for (let c = 0; c < nE; c++) {
    const m = movieOf[c];
    if (m < 0 || m === c) continue;
    raw[pos[c]++] = m;
    raw[pos[m]++] = c;
  }
  // sort each segment, collapse duplicates into counts (in place, compacting)
  const nbOffsets = new Int32Array(nE + 1);
  const counts = new Int32Array(total);
  let w = 0;
  for (let v = 0; v < nE; v++) {
    const s = off[v], e = off[v + 1];
    nbOffsets[v] = w;
    if (e - s > 1) raw.subarray(s, e).sort();
    for (let i = s; i < e; i++) {
      if (w > nbOffsets[v] && raw[w - 1] === raw[i]) counts[w - 1]++;
      else {
        raw[w] = raw[i];
        counts[w] = 1;
        w++;
      }
    }
  }
  nbOffsets[nE] = w;
  return { nbOffsets, nbTargets: w === total ? raw : raw.slice(0, w), nbCounts: w === total ? counts : counts.slice(0, w) };
}

/** sha256 of the canonical content (entities as JSON lines, alias table, relation columns as bytes). */
function hashContent(c: PlainStrings, r: Pick<KgColumns, 'kinds' | 'movieOf' | 'relKind' | 'relFrom' | 'relTo' | 'relMovie'>): string {
  const h = createHash('sha256');
  h.update(`filmkw-kg-content-v1\n${c.ids.length} ${c.aliasNames.length} ${r.relKind.length}\n`);
  let buf = '';
  for (let i = 0; i < c.ids.length; i++) {
    const m = r.movieOf[i];
    buf += JSON.stringify([c.ids[i], ENTITY_KINDS[r.kinds[i]], c.names[i], c.surfaces[i], c.aliases[i], m < 0 ? null : c.ids[m]]) + '\n';
    if (buf.length > 1 << 16) {
      h.update(buf);
      buf = '';
    }
  }
  h.update(buf);
  h.update(JSON.stringify(c.aliasNames) + '\n');
  for (const a of [r.relKind, r.relFrom, r.relTo, r.relMovie]) h.update(leBytes(a));
  // merged entities' source ids, only when there are any: a KG without merges keeps the hash it had
  // before sourceIds existed
  let merged = '';
  for (let i = 0; i < c.ids.length; i++) if (c.sourceIds[i].length) merged += JSON.stringify([i, c.sourceIds[i]]) + '\n';
  if (merged !== '') h.update(`sourceIds\n${merged}`);
  return h.digest('hex');
}

/** Little-endian bytes of a typed array (a view on little-endian hosts). */
export function leBytes(a: Uint8Array | Uint16Array | Int32Array): Uint8Array {
  if (a instanceof Uint8Array || LITTLE_ENDIAN) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.byteLength);
  const dv = new DataView(out.buffer);
  if (a instanceof Uint16Array) for (let i = 0; i < a.length; i++) dv.setUint16(i * 2, a[i], true);
  else for (let i = 0; i < a.length; i++) dv.setInt32(i * 4, a[i], true);
  return out;
}
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class KgStore implements KgView {
  readonly entityCount: number;
  readonly contentHash: string;
  /** Set on stores built from data (not on loaded snapshots). */
  buildReport?: KgBuildReport;
  /** @internal raw columns (read by the snapshot writer; do not mutate). */
  readonly cols: KgColumns;
  /** @internal the lookup indexes (written into snapshots). */
  readonly indexes: KgIndexes;
  private idIdx?: Map<string, number>;
  private mergedIdx?: Map<string, number>;

  /** @internal use {@link KgStore.fromData}, {@link KgBuilder} or loadSnapshot (which passes the stored indexes). */
  constructor(cols: KgColumns, indexes?: KgIndexes) {
    this.cols = cols;
    this.entityCount = cols.ids.length;
    this.contentHash = cols.contentHash;
    this.indexes = indexes ?? buildIndexes(cols);
  }

  static fromData(data: KgData, opts: KgBuildOptions = {}): KgStore {
    if (!data || !Array.isArray(data.entities) || !Array.isArray(data.relations)) throw inputError('kg store: data needs entities[] and relations[]');
    const b = new KgBuilder(opts);
    for (const e of data.entities) b.addEntity(e);
    for (const r of data.relations) b.addRelation(r);
    return b.build();
  }

  /** Canonical content (see module header). Allocates one object per relation. */
  toData(): KgData {
    const c = this.cols;
    const entities: Entity[] = c.ids.toArray().map((id, i) => {
      const e: Entity = { id, kind: ENTITY_KINDS[c.kinds[i]], name: c.names.get(i), surfaces: [...c.surfaces.get(i)], aliases: [...c.aliases.get(i)] };
      if (c.movieOf[i] >= 0) e.movieId = c.ids.get(c.movieOf[i]);
      const merged = c.sourceIds.get(i);
      if (merged.length) e.sourceIds = [...merged];
      return e;
    });
    const relations: Relation[] = new Array(c.relKind.length);
    for (let i = 0; i < c.relKind.length; i++) {
      const k = c.relKind[i];
      const r: Relation = { kind: RELATION_KINDS[k], from: c.ids.get(c.relFrom[i]), to: k === ALIAS_CODE ? c.aliasNames.get(c.relTo[i]) : c.ids.get(c.relTo[i]) };
      if (c.relMovie[i] >= 0) r.movieId = c.ids.get(c.relMovie[i]);
      relations[i] = r;
    }
    return { entities, relations };
  }

  /** Dense index of an entity id, -1 if absent. */
  entityIndex(id: string): number {
    if (!this.idIdx) {
      this.idIdx = new Map();
      this.cols.ids.toArray().forEach((x, i) => this.idIdx!.set(x, i));
    }
    return this.idIdx.get(id) ?? -1;
  }

  /**
   * Dense index of the entity with this id, or of the entity it was merged into at import (an id listed
   * in its `sourceIds`, e.g. `person/name/张艺谋` → the index of `person/douban/1054398`); -1 if neither.
   */
  resolveEntityId(id: string): number {
    const exact = this.entityIndex(id);
    if (exact >= 0) return exact;
    if (!this.mergedIdx) {
      this.mergedIdx = new Map();
      const s = this.cols.sourceIds;
      for (let i = 0; i < this.entityCount; i++) for (const x of s.get(i)) if (x !== this.cols.ids.get(i)) this.mergedIdx.set(x, i);
    }
    return this.mergedIdx.get(id) ?? -1;
  }

  /** Model.ts `Entity.sourceIds` of entity i (empty when it is not a merge). */
  sourceIdsOf(index: number): readonly string[] {
    return this.cols.sourceIds.get(index);
  }

  lookup(name: string): readonly number[] {
    const idx = this.indexes.nameIndex;
    const k = idx.resolve(name);
    return k < 0 ? EMPTY : idx.any(k);
  }

  lookupName(name: string): readonly number[] {
    const idx = this.indexes.nameIndex;
    const k = idx.resolve(name);
    return k < 0 ? EMPTY : idx.named(k);
  }

  kindOf(index: number): EntityKind {
    return ENTITY_KINDS[this.cols.kinds[index]];
  }
  idOf(index: number): string {
    return this.cols.ids.get(index);
  }
  nameOf(index: number): string {
    return this.cols.names.get(index);
  }
  /** Entity.aliases ∪ ALIAS relation targets, sorted unique. */
  aliasesOf(index: number): readonly string[] {
    return this.indexes.allAliases.get(index);
  }
  surfacesOf(index: number): readonly string[] {
    return this.cols.surfaces.get(index);
  }
  /** Character only: index of its movie, -1 otherwise. */
  movieOf(index: number): number {
    return this.cols.movieOf[index];
  }

  /** A view into the CSR targets (do not mutate). */
  neighbours(index: number): Int32Array {
    const o = this.cols.nbOffsets;
    return this.cols.nbTargets.subarray(o[index], o[index + 1]);
  }

  /**
   * The neighbour CSR itself, for allocation-free hot loops: the neighbours of i are
   * `targets[offsets[i] .. offsets[i+1]-1]` (sorted), with `counts[k]` relations for `targets[k]`. Read only.
   */
  csr(): { readonly offsets: Int32Array; readonly targets: Int32Array; readonly counts: Int32Array } {
    return { offsets: this.cols.nbOffsets, targets: this.cols.nbTargets, counts: this.cols.nbCounts };
  }

  degree(index: number): number {
    return this.cols.nbOffsets[index + 1] - this.cols.nbOffsets[index];
  }

  relationCount(a: number, b: number): number {
    const { nbOffsets: o, nbTargets: t, nbCounts: c } = this.cols;
    if (a < 0 || a >= this.entityCount) return 0;
    let lo = o[a], hi = o[a + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = t[mid];
      if (v === b) return c[mid];
      if (v < b) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  get relationTotal(): number {
    return this.cols.relKind.length;
  }

  stats(): KgStats {
    const s = emptyStats();
    const c = this.cols;
    s.entities.total = this.entityCount;
    for (let i = 0; i < c.kinds.length; i++) s.entities.byKind[ENTITY_KINDS[c.kinds[i]]]++;
    s.relations.total = c.relKind.length;
    const counts = new Array<number>(RELATION_KINDS.length).fill(0);
    for (let i = 0; i < c.relKind.length; i++) counts[c.relKind[i]]++;
    RELATION_KINDS.forEach((k: RelationKind, i) => (s.relations.byKind[k] = counts[i]));
    return s;
  }

  /** Relations from an entity to itself (not neighbours). */
  selfRelations(): number {
    const c = this.cols;
    let n = 0;
    for (let i = 0; i < c.relKind.length; i++) if (c.relKind[i] !== ALIAS_CODE && c.relFrom[i] === c.relTo[i]) n++;
    return n;
  }

  *names(): Iterable<{ name: string; kinds: EntityKind[] }> {
    const { keys, anyOff, anyIds } = this.indexes.nameIndex;
    const kinds = this.cols.kinds;
    for (let key = 0; key < keys.length; key++) {
      let mask = 0;
      for (let p = anyOff[key]; p < anyOff[key + 1]; p++) mask |= 1 << kinds[anyIds[p]];
      yield { name: keys.get(key), kinds: ENTITY_KINDS.filter((_, k) => mask & (1 << k)) };
    }
  }
}

