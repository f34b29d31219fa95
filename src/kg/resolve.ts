/**
 * Entity resolution at import: which Person entities of a merged KG are one real person (issue 25).
 *
 * The sources name people in two ways: with a source id (DouBan-KGQA's Douban celebrity ids, explicit
 * ids of a project csv other than the name-based ones) or by name only (OpenKG, douban-movies-2065, the
 * demo KG). The builder already attaches a name-only *credit* to the Douban person credited on the same
 * film (src/kg/builder.ts); what is left are whole name-only entities (`person/name/<name>`) next to an
 * id-bearing entity of the same name — 张艺谋 as `person/douban/1054398` and as `person/name/张艺谋`. The
 * rules, applied here to entities (names compared loosely with `personKey`: NFKC, middle dots and full
 * stops between parts (J.R.R.托尔金 = J·R·R·托尔金), spaces and hyphens ignored, Latin case ignored):
 *
 *   1. **same film**: a name-only entity and an entity of the same name credited on a common film
 *      (DIRECTED, WROTE, ACTED_IN or PLAYED's movie) are one person — when exactly one id-bearing entity
 *      of the name shares a film with it; two name-only entities sharing a film are one too;
 *   2. **only id of the name**: a name-only entity that shares no film with an id-bearing one is the
 *      id-bearing entity of that name when there is exactly one; with several (two Douban 张国荣) it stays
 *      apart and is reported as ambiguous;
 *   3. two different source ids are never merged.
 *
 * Films are never merged by title alone (remakes share titles): a film without a source id (a project csv
 * such as the demo KG: `movie/name/英雄`) is the film with a source id that carries its title (name or
 * alias, normalised) **and** shares people with it — at least one director, or at least
 * {@link FILM_MIN_SHARED_PEOPLE} credited people — when exactly one such film exists; with several it stays
 * apart and is reported ({@link resolveFilms}). Its characters move to the kept film (the builder re-keys
 * `character/<movie id>/<name>`). The people are compared after the person rules, which run again after
 * the films (a name-only person of two Douban namesakes may share a film with one of them only then).
 *
 * A name-only entity whose names point at different id-bearing entities (one name to each) is ambiguous
 * too; an ambiguous entity takes part in no merge. The merged entity keeps the id of its id-bearing member (the Douban id); a group of name-only
 * entities keeps the id made from the name the builder chooses for it (source priority), else the first
 * id in code-unit order. Everything is a function of the entities' ids, names and films, iterated in id
 * order: the same sources give the same merges, whatever their order.
 */
import { cmpStr } from '../util/sorted.js';

/** A Person entity as the resolution sees it. */
export interface ResolvePerson {
  id: string;
  /** Every name it was seen under (names and aliases, normalised). */
  names: readonly string[];
  /** Movie ids it is credited on. */
  films: ReadonlySet<string>;
  /** True when `id` comes from a source (a Douban celebrity id, an explicit csv id), not from the name. */
  hasSourceId: boolean;
}

export const RESOLVE_RULES = ['same film', 'only id-bearing person of the name'] as const;
export type ResolveRule = (typeof RESOLVE_RULES)[number];

/** One entity merged into another. */
export interface ResolveMerge {
  from: string;
  to: string;
  rule: ResolveRule;
  /** The shared name (as written in `from`). */
  name: string;
  /** Films `from` shares with `to` (rule 'same film'), sorted. */
  shared: string[];
}

/** A name-only entity left apart: several id-bearing entities carry its name. */
export interface ResolveAmbiguous {
  id: string;
  name: string;
  /** The id-bearing candidates, sorted. */
  candidates: string[];
  reason:
    | 'several id-bearing people of the name'
    | 'shares films with several id-bearing people'
    | 'its names belong to different id-bearing people'
    | 'several films with a source id share its title and people';
}

export interface ResolveResult {
  /** Every merged id → the id it now is (ids not listed are unchanged). */
  target: Map<string, string>;
  merges: ResolveMerge[];
  ambiguous: ResolveAmbiguous[];
}


function sharedFilms(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  const out: string[] = [];
  for (const f of small) if (big.has(f)) out.push(f);
  return out.sort(cmpStr);
}

/**
 * Resolves `people` (see module header). `key` compares names (the builder passes `personKey`);
 * `preferredId(ids)` picks the id a group of name-only entities keeps (undefined: the first in code-unit order).
 */
export function resolvePersons(
  people: readonly ResolvePerson[],
  key: (name: string) => string,
  preferredId: (ids: readonly string[]) => string | undefined = () => undefined,
): ResolveResult {
  const sorted = [...people].sort((a, b) => cmpStr(a.id, b.id));
  const byKey = new Map<string, ResolvePerson[]>();
  const keysOf = new Map<string, string[]>();
  for (const p of sorted) {
    const ks = [...new Set(p.names.map(key).filter((k) => k !== ''))];
    keysOf.set(p.id, ks);
    for (const k of ks) {
      let list = byKey.get(k);
      if (!list) byKey.set(k, (list = []));
      list.push(p);
    }
  }
  const merges: ResolveMerge[] = [];
  const ambiguous: ResolveAmbiguous[] = [];
  const target = new Map<string, string>();
  // rules 1 and 2: each name-only entity against the id-bearing entities of its names
  for (const p of sorted) {
    if (p.hasSourceId) continue;
    const decided = decide(p, keysOf.get(p.id)!, byKey, key);
    if (!decided) continue;
    if ('reason' in decided) ambiguous.push(decided);
    else {
      target.set(p.id, decided.to);
      merges.push(decided);
    }
  }
  // rule 1 between name-only entities (同名, one credited film in common) that did not go to different ids
  const apart = new Set(ambiguous.map((a) => a.id));
  const groups = nameOnlyGroups(sorted.filter((p) => !apart.has(p.id)), keysOf, byKey, target);
  for (const g of groups) {
    const to = g.members.map((m) => target.get(m.id)).find((t) => t !== undefined) ?? preferredId(g.members.map((m) => m.id)) ?? g.members[0].id;
    for (const m of g.members) {
      if (m.id === to || target.get(m.id) === to) continue;
      const withTo = g.links.find((l) => l.from === m.id) ?? g.links.find((l) => l.to === m.id)!;
      target.set(m.id, to);
      merges.push({ from: m.id, to, rule: 'same film', name: withTo.name, shared: withTo.shared });
    }
  }
  merges.sort((a, b) => cmpStr(a.from, b.from));
  return { target, merges, ambiguous };
}

/** Rules 1 and 2 for one name-only entity: a merge, an ambiguity, or nothing (no id-bearing namesake). */
function decide(
  p: ResolvePerson,
  keys: readonly string[],
  byKey: ReadonlyMap<string, ResolvePerson[]>,
  key: (name: string) => string,
): ResolveMerge | ResolveAmbiguous | undefined {
  const picks = new Map<string, ResolveMerge>();
  for (const k of keys) {
    const ids = byKey.get(k)!.filter((q) => q.hasSourceId);
    if (ids.length === 0) continue;
    const name = p.names.find((n) => key(n) === k) ?? p.names[0];
    const sharing = ids.map((q) => ({ q, shared: sharedFilms(p.films, q.films) })).filter((x) => x.shared.length > 0);
    if (sharing.length > 1) return { id: p.id, name, candidates: sharing.map((x) => x.q.id).sort(cmpStr), reason: 'shares films with several id-bearing people' };
    if (sharing.length === 1) {
      picks.set(sharing[0].q.id, { from: p.id, to: sharing[0].q.id, rule: 'same film', name, shared: sharing[0].shared });
      continue;
    }
    if (ids.length > 1) return { id: p.id, name, candidates: ids.map((q) => q.id).sort(cmpStr), reason: 'several id-bearing people of the name' };
    if (!picks.has(ids[0].id)) picks.set(ids[0].id, { from: p.id, to: ids[0].id, rule: 'only id-bearing person of the name', name, shared: [] });
  }
  if (picks.size > 1) return { id: p.id, name: p.names[0], candidates: [...picks.keys()].sort(cmpStr), reason: 'its names belong to different id-bearing people' };
  return picks.values().next().value;
}

interface NameOnlyLink {
  from: string;
  to: string;
  name: string;
  shared: string[];
}

/**
 * Connected groups of name-only entities linked by rule 1 (same name key, a film in common), without
 * groups whose members already go to two different id-bearing entities.
 */
function nameOnlyGroups(
  sorted: readonly ResolvePerson[],
  keysOf: ReadonlyMap<string, string[]>,
  byKey: ReadonlyMap<string, ResolvePerson[]>,
  target: ReadonlyMap<string, string>,
): { members: ResolvePerson[]; links: NameOnlyLink[] }[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const links: NameOnlyLink[] = [];
  const included = new Set(sorted.map((p) => p.id));
  for (const p of sorted) {
    if (p.hasSourceId) continue;
    for (const k of keysOf.get(p.id)!) {
      for (const q of byKey.get(k)!) {
        if (q.hasSourceId || cmpStr(q.id, p.id) <= 0 || !included.has(q.id)) continue;
        const ta = target.get(p.id);
        const tb = target.get(q.id);
        if (ta !== undefined && tb !== undefined && ta !== tb) continue; // would join two source ids
        const shared = sharedFilms(p.films, q.films);
        if (shared.length === 0) continue;
        links.push({ from: q.id, to: p.id, name: q.names[0], shared });
      }
    }
  }
  for (const l of links) {
    if (!parent.has(l.from)) parent.set(l.from, l.from);
    if (!parent.has(l.to)) parent.set(l.to, l.to);
  }
  // union in link order, refusing a union that would bring two different targets together
  const targetOf = new Map<string, string | undefined>();
  for (const id of parent.keys()) targetOf.set(id, target.get(id));
  const kept: NameOnlyLink[] = [];
  for (const l of links) {
    const a = find(l.from);
    const b = find(l.to);
    if (a === b) {
      kept.push(l);
      continue;
    }
    const ta = targetOf.get(a);
    const tb = targetOf.get(b);
    if (ta !== undefined && tb !== undefined && ta !== tb) continue;
    const [root, child] = cmpStr(a, b) <= 0 ? [a, b] : [b, a];
    parent.set(child, root);
    targetOf.set(root, ta ?? tb);
    kept.push(l);
  }
  const byRoot = new Map<string, ResolvePerson[]>();
  const person = new Map(sorted.map((p) => [p.id, p]));
  for (const id of [...parent.keys()].sort(cmpStr)) {
    const r = find(id);
    let m = byRoot.get(r);
    if (!m) byRoot.set(r, (m = []));
    m.push(person.get(id)!);
  }
  return [...byRoot.entries()]
    .sort((a, b) => cmpStr(a[0], b[0]))
    .map(([root, members]) => ({ members, links: kept.filter((l) => find(l.from) === root) }));
}

/** A Movie entity as the film rule sees it. */
export interface ResolveFilm {
  id: string;
  /** Its normalised names and aliases. */
  names: readonly string[];
  /** Person id → the credits on this film ('DIRECTED', 'WROTE', 'ACTED_IN'). */
  people: ReadonlyMap<string, ReadonlySet<string>>;
  hasSourceId: boolean;
}

/** People (other than a director) a title-sharing film must have in common. */
export const FILM_MIN_SHARED_PEOPLE = 2;


/** What two films have in common: people, and directors among them. */
function sharedPeople(a: ResolveFilm, b: ResolveFilm): { people: number; directors: number } {
  let people = 0;
  let directors = 0;
  for (const [p, roles] of a.people) {
    const other = b.people.get(p);
    if (!other) continue;
    people++;
    if (roles.has('DIRECTED') && other.has('DIRECTED')) directors++;
  }
  return { people, directors };
}

/** The film rule (module header): merges of films without a source id into the one film with one they are. */
/** One film merged into another: the title they share and what else (people, directors among them). */
export interface FilmMerge {
  from: string;
  to: string;
  name: string;
  people: number;
  directors: number;
}

export function resolveFilms(films: readonly ResolveFilm[]): { target: Map<string, string>; merges: FilmMerge[]; ambiguous: ResolveAmbiguous[] } {
  const sorted = [...films].sort((a, b) => cmpStr(a.id, b.id));
  const byName = new Map<string, ResolveFilm[]>();
  for (const f of sorted) {
    if (!f.hasSourceId) continue;
    for (const n of new Set(f.names)) {
      let list = byName.get(n);
      if (!list) byName.set(n, (list = []));
      list.push(f);
    }
  }
  const target = new Map<string, string>();
  const merges: FilmMerge[] = [];
  const ambiguous: ResolveAmbiguous[] = [];
  for (const f of sorted) {
    if (f.hasSourceId) continue;
    const candidates = [...new Set(f.names.flatMap((n) => byName.get(n) ?? []))];
    const sharing = candidates
      .map((c) => ({ c, ...sharedPeople(f, c) }))
      .filter((x) => x.directors >= 1 || x.people >= FILM_MIN_SHARED_PEOPLE);
    if (sharing.length === 0) continue;
    if (sharing.length > 1) {
      ambiguous.push({ id: f.id, name: f.names[0], candidates: sharing.map((x) => x.c.id).sort(cmpStr), reason: 'several films with a source id share its title and people' });
      continue;
    }
    const { c, people, directors } = sharing[0];
    const name = f.names.find((n) => c.names.includes(n)) ?? f.names[0];
    target.set(f.id, c.id);
    merges.push({ from: f.id, to: c.id, name, people, directors });
  }
  return { target, merges, ambiguous };
}
