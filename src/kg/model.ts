/**
 * The film knowledge graph (MKG) data model shared by importers, the embedded store, Neo4j and the
 * extraction pipeline.
 *
 * Entity kinds (paper: 影视剧, 明星, 角色, 类型) and relation kinds (导演, 编剧, 主演, 类型, 别名, 饰演).
 *
 * Entity ids are stable and deterministic (see {@link entityId}):
 *   - Movie with a Douban subject id:        `movie/douban/<subjectId>`
 *   - Person with a Douban celebrity id:      `person/douban/<celebrityId>`
 *   - any kind without a source id:           `<kind lowercased>/name/<normalised name>`
 *   - Character (always scoped to its movie): `character/<movieId>/<normalised name>`
 *   - Genre:                                  `genre/<normalised name>`
 *
 * ALIAS relations go from a Movie to an alternative *name* (not to an entity): `to` holds the
 * normalised alias string. PLAYED goes Person → Character and carries the movie in `movieId`; the
 * character itself also records its movie (`Entity.movieId`), and the store counts movie↔character as
 * a neighbour pair (the character belongs to the movie).
 *
 * Entities merged at import (src/kg/resolve.ts) keep the id of the entity with a source id (the Douban
 * one); `Entity.sourceIds` lists every id that was merged into it.
 */

export const ENTITY_KINDS = ['Movie', 'Person', 'Character', 'Genre'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export const RELATION_KINDS = ['DIRECTED', 'WROTE', 'ACTED_IN', 'HAS_GENRE', 'ALIAS', 'PLAYED'] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

/** Direction of each relation kind: which entity kind is at each end (ALIAS ends at a name). */
export const RELATION_ENDS: Record<RelationKind, { from: EntityKind; to: EntityKind | 'Name' }> = {
  DIRECTED: { from: 'Person', to: 'Movie' },
  WROTE: { from: 'Person', to: 'Movie' },
  ACTED_IN: { from: 'Person', to: 'Movie' },
  HAS_GENRE: { from: 'Movie', to: 'Genre' },
  ALIAS: { from: 'Movie', to: 'Name' },
  PLAYED: { from: 'Person', to: 'Character' },
};

export interface Entity {
  /** Stable id, see module header. */
  id: string;
  kind: EntityKind;
  /** Normalised name ({@link normalizeName}). */
  name: string;
  /** Original surface forms seen in the sources (unique, sorted). */
  surfaces: string[];
  /** Normalised alternative names (Movie; mirrored by ALIAS relations). Unique, sorted. */
  aliases: string[];
  /** Character only: the id of the movie the character belongs to. */
  movieId?: string;
  /**
   * Entity resolution at import (src/kg/resolve.ts): every id this entity had in its sources, its own id
   * included (unique, sorted), when it is the merge of several (`person/douban/1054398` and
   * `person/name/张艺谋`); absent otherwise.
   */
  sourceIds?: string[];
}

export interface Relation {
  kind: RelationKind;
  /** Entity id. */
  from: string;
  /** Entity id; for ALIAS the normalised alias name. */
  to: string;
  /** PLAYED only: the movie in which the person played the character. */
  movieId?: string;
}

/** Plain, order-independent KG content: what importers produce and stores hold. */
export interface KgData {
  entities: Entity[];
  relations: Relation[];
}

/** Counts as printed by `filmkw kg stats --json`. */
export interface KgStats {
  entities: { total: number; byKind: Record<EntityKind, number> };
  relations: { total: number; byKind: Record<RelationKind, number> };
}

/**
 * Read-only view of a KG used on the extraction hot path. Entities are addressed by a dense index
 * 0..entityCount-1 (stable for a given store). Implemented by the embedded store.
 */
export interface KgView {
  readonly entityCount: number;
  /** sha256 hex of the canonical content (same content ⇒ same hash, whatever the order of import). */
  readonly contentHash: string;
  /** Indices of entities whose normalised name or alias equals `normalizeName(name)`; empty if none. Sorted ascending. */
  lookup(name: string): readonly number[];
  /** Indices of entities whose name (not alias) equals the normalised name. Sorted ascending. */
  lookupName(name: string): readonly number[];
  kindOf(index: number): EntityKind;
  idOf(index: number): string;
  /** The dense index of an entity id, -1 if absent (optional: a view without an id index is scanned). */
  entityIndex?(id: string): number;
  nameOf(index: number): string;
  aliasesOf(index: number): readonly string[];
  /** Undirected KG neighbours (any relation kind, plus character↔movie), sorted ascending, unique, no self. */
  neighbours(index: number): Int32Array;
  /** Number of distinct relations (any kind, either direction) between two entities; 0 if none. */
  relationCount(a: number, b: number): number;
  stats(): KgStats;
  /** Every name and alias with the kinds of the entities it denotes (for the user dictionary). */
  names(): Iterable<{ name: string; kinds: EntityKind[] }>;
}

/**
 * Normalise a name once, everywhere: NFKC (which folds full-width ASCII to half-width), trim, collapse
 * inner whitespace runs to one space. Case is kept (Latin titles are case-sensitive in dictionaries).
 */
export function normalizeName(raw: string): string {
  // fast path (the pipeline normalises every candidate that matches an entity): printable ASCII
  // without spaces and CJK Unified Ideographs are left unchanged by NFKC, whitespace collapsing and trim
  if (isPlainName(raw)) return raw;
  return raw.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/**
 * Cheap test that normalizeName(s) === s: true only for a non-empty string of printable ASCII without
 * spaces and CJK Unified Ideographs (U+4E00–U+9FFF), which NFKC leaves alone.
 */
export function isPlainName(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x4e00 && c <= 0x9fff) || (c > 0x20 && c < 0x7f))) return false;
  }
  return true;
}

/** Deterministic id for an entity without a source id (see module header). */
export function entityId(kind: EntityKind, name: string, movieId?: string): string {
  const n = normalizeName(name);
  switch (kind) {
    case 'Character':
      if (!movieId) throw new Error('kg: a Character id needs its movie id');
      return `character/${movieId}/${n}`;
    case 'Genre':
      return `genre/${n}`;
    default:
      return `${kind.toLowerCase()}/name/${n}`;
  }
}

export const doubanMovieId = (subjectId: string | number): string => `movie/douban/${subjectId}`;
export const doubanPersonId = (celebrityId: string | number): string => `person/douban/${celebrityId}`;

export function emptyStats(): KgStats {
  return {
    entities: { total: 0, byKind: Object.fromEntries(ENTITY_KINDS.map((k) => [k, 0])) as Record<EntityKind, number> },
    relations: { total: 0, byKind: Object.fromEntries(RELATION_KINDS.map((k) => [k, 0])) as Record<RelationKind, number> },
  };
}
