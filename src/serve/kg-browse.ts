/**
 * KG look-ups of the viewer (`GET /api/kg/...`): entities by name or alias (exact, then substring),
 * and an entity's neighbourhood with the relation kinds that link it (导演 DIRECTED, 主演 ACTED_IN, …,
 * a character's film). The relations of every entity are indexed once, on first use (one pass over
 * the relation columns of the store).
 */
import { RELATION_KINDS, normalizeName, type EntityKind, type RelationKind } from '../kg/model.js';
import type { KgStore } from '../kg/store.js';
import { disambiguation } from './kg-words.js';

export interface EntitySummary {
  id: string;
  kind: EntityKind;
  name: string;
  /**
   * What tells it from other entities of the same name (kg-words.ts `disambiguation`): a film's directors
   * and cast, a person's films, a character's film and actor, the Douban id. On search matches and
   * entities, not on neighbours.
   */
  about?: string;
}

export interface NeighbourLink extends EntitySummary {
  /** How the two are linked: `out` = from the entity to the neighbour; `movieId` for PLAYED. */
  relations: { kind: RelationKind | 'IN_MOVIE'; direction: 'out' | 'in'; movieId?: string }[];
}

export interface EntityDetail extends EntitySummary {
  aliases: string[];
  surfaces: string[];
  movieId?: string;
  /** Neighbours, films first, then people, characters, genres; by name. At most `limit`. */
  neighbours: NeighbourLink[];
  /** Number of neighbours in all (may exceed `neighbours.length`). */
  neighbourCount: number;
}

const ALIAS = RELATION_KINDS.indexOf('ALIAS');
/** Entities of one name listed at most. */
const NAMED_MAX = 10;
const KIND_ORDER: Record<EntityKind, number> = { Movie: 0, Person: 1, Character: 2, Genre: 3 };

export class KgBrowser {
  private relOffsets: Int32Array | null = null;
  private relIndex: Int32Array | null = null;
  constructor(readonly store: KgStore) {}

  summary(i: number): EntitySummary {
    return { id: this.store.idOf(i), kind: this.store.kindOf(i), name: this.store.nameOf(i) };
  }

  /**
   * Entities named `query` (name or alias, exact after normalisation) first, then those with a name or
   * alias containing it; at most `limit`.
   */
  search(query: string, limit: number, kind?: EntityKind): EntitySummary[] {
    return this.matching(query, limit, kind).map((i) => ({ ...this.summary(i), about: this.about(i, this.links(i)) }));
  }

  /** Indices of the entities {@link search} lists. */
  private matching(query: string, limit: number, kind?: EntityKind): number[] {
    const ofKind = (i: number): boolean => kind === undefined || this.store.kindOf(i) === kind;
    const out: number[] = this.store.lookup(query).filter(ofKind);
    const seen = new Set(out);
    const q = normalizeName(query);
    if (q.length > 0) {
      const partial: { i: number; len: number }[] = [];
      for (const { name } of this.store.names()) {
        if (!name.includes(q)) continue;
        for (const i of this.store.lookup(name)) {
          if (seen.has(i) || !ofKind(i)) continue;
          seen.add(i);
          partial.push({ i, len: name.length });
        }
      }
      partial.sort((a, b) => a.len - b.len || KIND_ORDER[this.store.kindOf(a.i)] - KIND_ORDER[this.store.kindOf(b.i)] || a.i - b.i);
      out.push(...partial.map((p) => p.i));
    }
    return out.slice(0, limit);
  }

  /** The entities named `name` (name or alias, after normalisation), at most `max` (`GET /api/kg/entity?name=`, `filmkw kg show`). */
  named(name: string, limit: number, max = NAMED_MAX): EntityDetail[] {
    return this.store.lookup(name).slice(0, max).map((i) => this.detail(i, limit));
  }

  /** The entity with this id, or null. */
  byId(id: string, limit: number): EntityDetail | null {
    const i = this.store.entityIndex(id);
    return i < 0 ? null : this.detail(i, limit);
  }

  detail(i: number, limit: number): EntityDetail {
    const s = this.store;
    const all = this.links(i);
    const movie = s.movieOf(i);
    const detail: EntityDetail = {
      ...this.summary(i),
      about: this.about(i, all),
      aliases: [...s.aliasesOf(i)],
      surfaces: [...s.surfacesOf(i)],
      neighbours: all.slice(0, limit),
      neighbourCount: all.length,
    };
    if (movie >= 0) detail.movieId = s.idOf(movie);
    return detail;
  }

  /** The line that tells entity i from others of its name (kg-words.ts), with the ids merged into it. */
  private about(i: number, links: readonly NeighbourLink[]): string {
    return disambiguation({ id: this.store.idOf(i), kind: this.store.kindOf(i), sourceIds: this.store.sourceIdsOf(i) }, links);
  }

  /** Every neighbour of entity i with the relations that link them: films first, then people, characters, genres; by name. */
  private links(i: number): NeighbourLink[] {
    const s = this.store;
    const links = new Map<number, NeighbourLink>();
    const link = (j: number): NeighbourLink => {
      let l = links.get(j);
      if (!l) links.set(j, (l = { ...this.summary(j), relations: [] }));
      return l;
    };
    const { offsets, index } = this.relations();
    const c = s.cols;
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      const r = index[p];
      const out = c.relFrom[r] === i;
      const other = out ? c.relTo[r] : c.relFrom[r];
      if (other === i) continue;
      const rel: NeighbourLink['relations'][number] = { kind: RELATION_KINDS[c.relKind[r]], direction: out ? 'out' : 'in' };
      if (c.relMovie[r] >= 0) rel.movieId = s.idOf(c.relMovie[r]);
      link(other).relations.push(rel);
    }
    // a character belongs to its film (the store counts them as neighbours)
    const movie = s.movieOf(i);
    if (movie >= 0) link(movie).relations.push({ kind: 'IN_MOVIE', direction: 'out' });
    for (const j of s.neighbours(i)) if (s.movieOf(j) === i) link(j).relations.push({ kind: 'IN_MOVIE', direction: 'in' });
    return [...links.values()].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : 1));
  }

  /** Relation indices per entity (both ends; ALIAS relations end at a name and are left out). */
  private relations(): { offsets: Int32Array; index: Int32Array } {
    if (this.relOffsets && this.relIndex) return { offsets: this.relOffsets, index: this.relIndex };
    const c = this.store.cols;
    const n = this.store.entityCount;
    const offsets = new Int32Array(n + 1);
    const R = c.relKind.length;
    for (let r = 0; r < R; r++) {
      if (c.relKind[r] === ALIAS) continue;
      offsets[c.relFrom[r] + 1]++;
      if (c.relTo[r] !== c.relFrom[r]) offsets[c.relTo[r] + 1]++;
    }
    for (let i = 0; i < n; i++) offsets[i + 1] += offsets[i];
    const fill = offsets.slice(0, n);
    const index = new Int32Array(offsets[n]);
    for (let r = 0; r < R; r++) {
      if (c.relKind[r] === ALIAS) continue;
      index[fill[c.relFrom[r]]++] = r;
      if (c.relTo[r] !== c.relFrom[r]) index[fill[c.relTo[r]]++] = r;
    }
    this.relOffsets = offsets;
    this.relIndex = index;
    return { offsets, index };
  }
}
