/**
 * Candidate word → MKG entities (王芳 等 2022 §2.1/§2.2: the lexicon makes entity names single tokens,
 * and rule (2) of the word graph relates candidates "related in MKG"; spec §1.4 `kgEntityMatch`).
 *
 * Matching is by surface string after the KG's name normalisation ({@link KgView.lookup}: NFKC, trimmed,
 * whitespace collapsed): `'exact'` takes entity names only, `'exactOrAlias'` (default) also the aliases
 * (别名), so "冰雪长津湖" denotes the same entity as "长津湖" — the issue asks for alias-aware edges; the
 * spec's default `'exact'` predates that. With `mergeAliases` the name and its aliases, when both occur,
 * become one graph node (see candidate-doc.ts `mergeEntityNodes`).
 *
 * Ambiguous names (one surface, several entities: homonymous people, a character name that occurs in
 * several films, a title that is also a character) — the paper matches by surface string and does not
 * address this (spec §1.6). Rule, option `ambiguity`:
 * - `'union'` (default, the paper's surface semantics): the word stands for all its entities; it is
 *   KG-related to another word when any pair of their entities is related, and its neighbour set for
 *   eq. 8 is the union of its entities' neighbour sets.
 * - `'contextual'`: keep only the entities related in the KG to an entity of another candidate of the
 *   same document; when none is, keep them all (as `'union'`).
 * For the output (`kind`, `entityId`) one entity is reported: the one with the most in-document KG
 * links, then by kind (Movie, Person, Character, Genre), then the lowest index ({@link primaryEntity}).
 */
import type { EntityKind, KgView } from '../kg/model.js';
import { ENTITY_KINDS } from '../kg/model.js';
import { sortedHas } from '../util/sorted.js';
import type { OptionRules } from '../util/option-rules.js';

/** Options of entity matching (group `kgMatch`). */
export const MATCH_MODES = ['exact', 'exactOrAlias'] as const;
export const AMBIGUITY_RULES = ['union', 'contextual'] as const;

export interface KgMatchOptions {
  /**
   * Which surfaces denote an entity: its name only, or its name and its aliases.
   * @default 'exactOrAlias'
   */
  match: (typeof MATCH_MODES)[number];
  /**
   * Merge the nodes of an entity's name and aliases when several occur in one document.
   * @default true
   */
  mergeAliases: boolean;
  /**
   * Rule for a surface that names several entities (see module header).
   * @default 'union'
   */
  ambiguity: (typeof AMBIGUITY_RULES)[number];
  /**
   * Entity kinds a candidate may match.
   * @default ['Movie', 'Person', 'Character', 'Genre']
   */
  kinds: EntityKind[];
}

export const DEFAULT_KG_MATCH_OPTIONS: Readonly<KgMatchOptions> = Object.freeze({
  match: 'exactOrAlias',
  mergeAliases: true,
  ambiguity: 'union',
  kinds: Object.freeze([...ENTITY_KINDS]) as EntityKind[],
});

export const KG_MATCH_OPTION_RULES: OptionRules<KgMatchOptions> = Object.freeze({
  match: { type: 'enum', values: MATCH_MODES },
  mergeAliases: { type: 'boolean' },
  ambiguity: { type: 'enum', values: AMBIGUITY_RULES },
  kinds: { type: 'subset', values: ENTITY_KINDS },
});

/** Cache of word → entity indices for one (KG, options) pair; lookups are pure, so caching is safe. */
export class MatchCache {
  private readonly map = new Map<string, Int32Array | null>();
  constructor(private readonly limit = 200_000) {}
  get(word: string): Int32Array | null | undefined {
    return this.map.get(word);
  }
  set(word: string, value: Int32Array | null): void {
    if (this.map.size >= this.limit) this.map.clear();
    this.map.set(word, value);
  }
}

/** Entity indices (sorted) each word denotes, or null. */
export function matchEntities(words: readonly string[], kg: KgView, options: KgMatchOptions, cache?: MatchCache): (Int32Array | null)[] {
  const allKinds = options.kinds.length === ENTITY_KINDS.length;
  return words.map((word) => {
    const cached = cache?.get(word);
    if (cached !== undefined) return cached;
    const found = options.match === 'exact' ? kg.lookupName(word) : kg.lookup(word);
    let result: Int32Array | null = null;
    if (found.length > 0) {
      const kept = allKinds ? found : found.filter((i) => options.kinds.includes(kg.kindOf(i)));
      if (kept.length > 0) result = new Int32Array(kept);
    }
    cache?.set(word, result);
    return result;
  });
}

/** Number of other words in the document whose entities include a KG neighbour of `entity`. */
export function inDocumentLinks(kg: KgView, entity: number, self: number, entities: readonly (Int32Array | null)[]): number {
  const nb = kg.neighbours(entity);
  if (nb.length === 0) return 0;
  let links = 0;
  for (let j = 0; j < entities.length; j++) {
    if (j === self) continue;
    const other = entities[j];
    if (!other) continue;
    for (let k = 0; k < other.length; k++) {
      if (other[k] !== entity && sortedHas(nb, other[k])) {
        links++;
        break;
      }
    }
  }
  return links;
}

/** Apply the `'contextual'` ambiguity rule (identity for `'union'`). */
export function resolveAmbiguity(entities: readonly (Int32Array | null)[], kg: KgView, options: Pick<KgMatchOptions, 'ambiguity'>): (Int32Array | null)[] {
  if (options.ambiguity === 'union') return entities.slice();
  return entities.map((set, i) => {
    if (!set || set.length < 2) return set;
    const kept = Array.from(set).filter((e) => inDocumentLinks(kg, e, i, entities) > 0);
    return kept.length > 0 && kept.length < set.length ? Int32Array.from(kept) : set;
  });
}

const KIND_RANK: Record<EntityKind, number> = { Movie: 0, Person: 1, Character: 2, Genre: 3 };

/** The entity reported for a node (see module header). */
export function primaryEntity(kg: KgView, node: number, entities: readonly (Int32Array | null)[]): number {
  const set = entities[node];
  if (!set || set.length === 0) return -1;
  if (set.length === 1) return set[0];
  let best = -1;
  let bestLinks = -1;
  let bestKind = 99;
  for (let k = 0; k < set.length; k++) {
    const e = set[k];
    const links = inDocumentLinks(kg, e, node, entities);
    const kind = KIND_RANK[kg.kindOf(e)];
    if (links > bestLinks || (links === bestLinks && kind < bestKind)) {
      best = e;
      bestLinks = links;
      bestKind = kind;
    }
  }
  return best;
}
