/**
 * The merging KG builder: every source reader (src/kg/sources/*.ts) feeds records into one builder,
 * which joins them into canonical KgData and counts what it merged, dropped and skipped.
 *
 * Rules (documented for users in kg/schema.md):
 *   - Films are joined on their Douban subject id (`movie/douban/<id>`); the project csv format gives
 *     ids explicitly. The name of an entity seen in several records is chosen by source priority
 *     (csv, douban-csv, openkg, kgqa, html-list), then by how often it was seen, then by code-unit order; the
 *     other names of a Movie or Person become its aliases; all surface forms are kept.
 *   - People with a Douban celebrity id are `person/douban/<id>`. A credit without an id (OpenKG,
 *     douban-movies-2065) is attached to the id-person of the same name (loosely compared: NFKC,
 *     middle dots unified, spaces ignored, Latin case ignored) credited on the SAME film, when there
 *     is exactly one such person. A source-local person (an OpenKG Person row) that is so attached on
 *     at least one film and never attached to a different id follows that id on all its films.
 *     Everything else becomes the name-based `person/name/<name>`, so two different people who share
 *     a name are never merged when their ids differ (name-only credits of one name are one person, as
 *     in OpenKG itself).
 *   - PLAYED is mined from synopses (src/kg/played.ts) once all credits are known; the actor must be
 *     a person credited on that film.
 *   - Skipped input rows (missing field, unreadable record, conflicting duplicate id, dangling or
 *     ill-typed relation) go to `skipped` (fatal under --strict); things left out by design (OpenKG
 *     countries, PLAYED mentions that could not be resolved) go to `dropped`. Nothing is silent.
 */
import { fmtLoc, type Loc } from './sources/common.js';
import {
  RELATION_ENDS,
  entityId,
  normalizeName,
  type Entity,
  type EntityKind,
  type KgData,
  type Relation,
  type RelationKind,
} from './model.js';
import { minePlayed, unifyDots, actorVariants, type PlayedOptions } from './played.js';
import { resolveFilms, resolvePersons, type ResolveAmbiguous, type ResolveFilm, type ResolvePerson } from './resolve.js';
import { aliasProblem, cleanAliases, stripRegionTags } from './aliases.js';

export type SourceKind = 'csv' | 'douban-csv' | 'openkg' | 'kgqa' | 'html-list';

/** Lower wins when several sources name the same entity differently. */
export const SOURCE_PRIORITY: Readonly<Record<SourceKind, number>> = Object.freeze({ csv: 0, 'douban-csv': 1, openkg: 2, kgqa: 3, 'html-list': 4 });

/** The source a record comes from: its kind and the SOURCE argument as given. */
export interface SourceCtx {
  kind: SourceKind;
  spec: string;
}

export interface ReportGroup {
  reason: string;
  count: number;
  /** First few `file:line` (with a short excerpt where useful). */
  examples: string[];
}

export interface MergeReport {
  sources: { source: string; records: number }[];
  /** Records that joined an entity / relation already given by another source. */
  merged: { entities: number; relations: number };
  /** Records repeating an entity / relation of the same source. */
  duplicates: { entities: number; relations: number };
  people: { withId: number; nameOnly: number; linkedSameFilm: number; linkedViaSourcePerson: number; ambiguousName: number };
  /** `stripped`: mentions whose character name lost a relation prefix (played.ts stripRelationPrefix), with the first examples. */
  played: { synopses: number; mentions: number; relations: number; stripped: number; strippedExamples: { from: string; to: string; at: string }[] };
  /** Relations from an entity to itself (skipped: no relation kind joins a kind to itself). */
  selfRelations: number;
  /**
   * Entity resolution (src/kg/resolve.ts): Person entities merged into another, by rule (`reason` is the
   * rule; examples `from → to (name; shared films)`), the relations that became one by it, and the
   * name-only entities left apart because several id-bearing people carry the name (one group per
   * reason; `count` names, examples `name: id apart from candidates`).
   */
  resolved: { merged: number; relationsJoined: number; rules: ReportGroup[]; ambiguous: ReportGroup[] };
  /**
   * Alias hygiene (src/kg/aliases.ts): aliases changed (brackets split apart joined again, region / note
   * tags removed) and aliases dropped (only a tag, only punctuation, one character, unbalanced brackets, a
   * common word), one group per rule with examples.
   */
  aliases: { changed: ReportGroup[]; dropped: ReportGroup[] };
  /** Bad input rows, skipped (fatal under --strict). */
  skipped: ReportGroup[];
  /** Left out by design or not resolvable (never fatal). */
  dropped: ReportGroup[];
  /**
   * Names changed on the way in: invisible characters removed (zero-width space/joiner, bidi marks,
   * control characters such as backspace or NUL), which NFKC keeps and which would make the name never
   * match a text. One group per kind of name, with examples.
   */
  cleaned: ReportGroup[];
  /**
   * Names longer than {@link LONG_NAME_CHARS} characters (no film, person or role is named so: a broken
   * row or a hostile file). Kept whole in the KG; reported, shown shortened ({@link forReport}).
   */
  long: ReportGroup[];
}

/** A name longer than this, in UTF-16 code units, is reported as absurdly long (issue 26). */
export const LONG_NAME_CHARS = 200;

/**
 * `s` as shown in a report line: whole when it has at most {@link LONG_NAME_CHARS} code units, else its
 * first 120 and last 40 characters around `…[N characters]…` (issue 26: `kg import` printed a
 * 100,000-character name in full, several times).
 */
export function forReport(s: string): string {
  if (s.length <= LONG_NAME_CHARS) return s;
  const cps = [...s];
  if (cps.length <= LONG_NAME_CHARS) return s;
  return `${cps.slice(0, 120).join('')}…[${cps.length} characters]…${cps.slice(-40).join('')}`;
}

/**
 * Invisible characters removed from names: C0/C1 controls (NUL, backspace…; tab and line breaks are
 * white space and collapse instead), soft hyphen, zero-width space/non-joiner/joiner, LRM/RLM/ALM, bidi
 * embeddings, overrides and isolates, word joiner and invisible operators, BOM / zero-width no-break space.
 */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/gu;

/** A name without {@link INVISIBLE} characters, and how many were removed. */
export function stripInvisible(raw: string): { text: string; removed: number } {
  let removed = 0;
  const text = raw.replace(INVISIBLE, () => {
    removed++;
    return '';
  });
  return { text, removed };
}

export interface BuilderOptions {
  /** Mine PLAYED from synopses. @default true */
  minePlayed: boolean;
  /** Options of the PLAYED miner (src/kg/played.ts). @default {} */
  played: Partial<PlayedOptions>;
  /** Examples kept per skip / drop reason. @default 5 */
  examples: number;
  /**
   * Whether a name is a common word (an alias that is one is dropped, src/kg/aliases.ts); `filmkw kg
   * import` passes the title policy's test (src/lexicon/title-policy.ts `commonWordTest`). null = no such check.
   * @default null
   */
  commonWord: ((name: string) => boolean) | null;
}

export const BUILDER_DEFAULTS: Readonly<BuilderOptions> = Object.freeze({ minePlayed: true, played: Object.freeze({}), examples: 5, commonWord: null });

export interface PersonRef {
  /** Douban celebrity id, when the source has one. */
  celebrityId?: string;
  /** The name as written. */
  name: string;
  /** A source-local identity (e.g. `openkg:<hash>`), used to carry a same-film link to other films. */
  localKey?: string;
}

export type CreditRole = 'DIRECTED' | 'WROTE' | 'ACTED_IN';

interface Acc {
  id: string;
  kind: EntityKind;
  movieId?: string;
  names: Map<string, { prio: number; count: number }>;
  surfaces: Set<string>;
  aliases: Set<string>;
  sources: Set<string>;
  /** The ids merged into this entity, its own included (entity resolution, step 1a). */
  sourceIds?: Set<string>;
}

/** Adds a name seen `count` times at source priority `prio` to a names map. */
function addName(names: Map<string, { prio: number; count: number }>, n: string, prio: number, count: number): void {
  const v = names.get(n);
  if (v) {
    v.count += count;
    v.prio = Math.min(v.prio, prio);
  } else names.set(n, { prio, count });
}

/** The name an entity shows: the best source priority, then the most seen, then the first in code-unit order. */
function chooseName(names: ReadonlyMap<string, { prio: number; count: number }>): string {
  let best = '';
  let bp = Infinity;
  let bc = -1;
  for (const [n, v] of names) {
    if (v.prio < bp || (v.prio === bp && (v.count > bc || (v.count === bc && n < best)))) {
      best = n;
      bp = v.prio;
      bc = v.count;
    }
  }
  return best;
}

interface RelRec {
  kind: RelationKind;
  from: string;
  to: string;
  movieId?: string;
  loc: Loc;
  spec: string;
}

interface Credit {
  movieId: string;
  role: CreditRole;
  cid?: string;
  norm: string;
  raw: string;
  localKey?: string;
  prio: number;
  src: SourceCtx;
  loc: Loc;
}

/**
 * What separates the parts of a name and is ignored when names are compared, after `unifyDots` (which turns
 * •, ‧, ・, ･, ∙, ⋅ into `·`, and by NFKC ．, ﹒, ․ into "." and ｡ into 。): spaces, the middle dot, a full stop
 * used as one (J.R.R.托尔金 and J·R·R·托尔金 are one name in the sources), the ideographic full stop, the word
 * separator ⸱, the sinological dot ꞏ and hyphens.
 */
const NAME_SEPARATORS = /[\s·.。\u2E31\uA78F\-\u2010\u2011]/gu;

/** Loose key to compare person names across sources: NFKC, dots and hyphens between parts ignored, no spaces, Latin lower-cased. */
export function personKey(name: string): string {
  return unifyDots(name).replace(NAME_SEPARATORS, '').toLowerCase();
}

class Groups {
  private readonly map = new Map<string, ReportGroup>();
  constructor(private readonly max: number) {}
  add(reason: string, example?: string): void {
    let g = this.map.get(reason);
    if (!g) this.map.set(reason, (g = { reason, count: 0, examples: [] }));
    g.count++;
    if (example !== undefined && g.examples.length < this.max) g.examples.push(forReport(example));
  }
  list(): ReportGroup[] {
    return [...this.map.values()].sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
  }
  get total(): number {
    let n = 0;
    for (const g of this.map.values()) n += g.count;
    return n;
  }
}

const RELATION_LABELS: Record<string, RelationKind> = {
  DIRECTED: 'DIRECTED',
  WROTE: 'WROTE',
  ACTED_IN: 'ACTED_IN',
  HAS_GENRE: 'HAS_GENRE',
  ALIAS: 'ALIAS',
  PLAYED: 'PLAYED',
  导演: 'DIRECTED',
  编剧: 'WROTE',
  主演: 'ACTED_IN',
  类型: 'HAS_GENRE',
  别名: 'ALIAS',
  饰演: 'PLAYED',
};

/** Relation kind from its English or Chinese label, or undefined. */
export function relationKindOf(label: string): RelationKind | undefined {
  return RELATION_LABELS[label.trim()];
}

/** The people credited on one film, by loose name: actors, and everyone. */
interface FilmPeople {
  actors: Map<string, Set<string>>;
  all: Map<string, Set<string>>;
}

export class KgMergeBuilder {
  readonly opts: BuilderOptions;
  private readonly ents = new Map<string, Acc>();
  private readonly rels = new Map<string, RelRec>();
  private readonly credits: Credit[] = [];
  private readonly synopses: { movieId: string; text: string; loc: Loc }[] = [];
  private readonly personInfo = new Map<string, { name: string; surfaces: string[]; prio: number; spec: string }>();
  private readonly records = new Map<string, number>();
  /** Per source: records (or parts of records) taken into the KG, see {@link usedOf}. */
  private readonly used = new Map<string, number>();
  private readonly skippedG: Groups;
  private readonly droppedG: Groups;
  private readonly cleanedG: Groups;
  private readonly longG: Groups;
  private readonly resolvedG: Groups;
  private readonly ambiguousG: Groups;
  private readonly aliasChangedG: Groups;
  private readonly aliasDroppedG: Groups;
  private readonly report = {
    merged: { entities: 0, relations: 0 },
    duplicates: { entities: 0, relations: 0 },
    people: { withId: 0, nameOnly: 0, linkedSameFilm: 0, linkedViaSourcePerson: 0, ambiguousName: 0 },
    played: { synopses: 0, mentions: 0, relations: 0, stripped: 0, strippedExamples: [] as { from: string; to: string; at: string }[] },
    selfRelations: 0,
    relationsJoined: 0,
  };
  private built = false;
  /** Optional part-of-speech tagger for the PLAYED cleanup (set by the import before `build`). */
  tagger: PlayedOptions['tagger'] = null;

  constructor(opts: Partial<BuilderOptions> = {}) {
    this.opts = { ...BUILDER_DEFAULTS, ...opts };
    this.skippedG = new Groups(this.opts.examples);
    this.droppedG = new Groups(this.opts.examples);
    this.cleanedG = new Groups(this.opts.examples);
    this.longG = new Groups(this.opts.examples);
    this.resolvedG = new Groups(this.opts.examples);
    this.ambiguousG = new Groups(this.opts.examples);
    this.aliasChangedG = new Groups(this.opts.examples);
    this.aliasDroppedG = new Groups(this.opts.examples);
  }

  /**
   * `raw` without invisible characters; a change is counted in the report (`cleaned`), and so is a name
   * longer than {@link LONG_NAME_CHARS} (`long`).
   */
  private clean(raw: string, what: string, loc: Loc | undefined): string {
    const { text, removed } = stripInvisible(raw);
    if (text.length > LONG_NAME_CHARS) this.longG.add(`${what}: longer than ${LONG_NAME_CHARS} characters (kept whole)`, loc ? `${fmtLoc(loc)}: ${text}` : text);
    if (removed > 0) {
      const shown = [...raw].map((c) => (stripInvisible(c).removed ? `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>` : c)).join('');
      this.cleanedG.add(`${what}: invisible characters removed`, loc ? `${fmtLoc(loc)}: ${shown}` : shown);
    }
    return text;
  }

  /** Counts one input record of a source (for the summary). */
  count(src: SourceCtx, n = 1): void {
    this.records.set(src.spec, (this.records.get(src.spec) ?? 0) + n);
  }

  /** Records counted for a source so far. */
  recordsOf(spec: string): number {
    return this.records.get(spec) ?? 0;
  }

  /**
   * How many entities, relations, credits and person facts of a source were taken so far (0: nothing
   * of the source was readable). Unlike comparing records with skipped rows, this does not depend on how
   * many reasons one record was skipped for, nor on whether unreadable records were counted.
   */
  usedOf(spec: string): number {
    return this.used.get(spec) ?? 0;
  }

  private use(src: SourceCtx): void {
    this.used.set(src.spec, (this.used.get(src.spec) ?? 0) + 1);
  }

  /** A bad input row: skipped and reported (fatal under --strict). */
  skip(reason: string, loc: Loc, excerpt?: string): void {
    this.skippedG.add(reason, excerpt ? `${fmtLoc(loc)}: ${excerpt}` : fmtLoc(loc));
  }

  /** Something left out by design or not resolvable: reported, never fatal. */
  drop(reason: string, loc?: Loc, excerpt?: string): void {
    this.droppedG.add(reason, loc ? (excerpt ? `${fmtLoc(loc)}: ${excerpt}` : fmtLoc(loc)) : excerpt);
  }

  /** True when some synopsis waits for PLAYED mining. */
  get hasSynopses(): boolean {
    return this.synopses.length > 0;
  }

  get skippedCount(): number {
    return this.skippedG.total;
  }

  /**
   * Adds (or merges) an entity record. `name` is the surface form; `aliases` are raw alternative names.
   * Returns the entity id, or undefined when the record was skipped.
   */
  entity(
    rec: { id?: string; kind: EntityKind; name: string; aliases?: readonly string[]; surfaces?: readonly string[]; movieId?: string },
    src: SourceCtx,
    loc: Loc,
    counted = true,
  ): string | undefined {
    const name = this.clean(rec.name, `${rec.kind} name`, loc);
    const surface = name.trim();
    const norm = normalizeName(name);
    if (norm === '') {
      this.skip(`${rec.kind}: missing name`, loc);
      return undefined;
    }
    if (rec.kind === 'Character' && !rec.movieId) {
      this.skip('Character: missing movie', loc, norm);
      return undefined;
    }
    const id = rec.id && rec.id.trim() !== '' ? rec.id.trim() : entityId(rec.kind, norm, rec.movieId);
    const prio = SOURCE_PRIORITY[src.kind];
    let acc = this.ents.get(id);
    if (acc) {
      if (acc.kind !== rec.kind) {
        this.skip(`conflicting duplicate id (kind ${acc.kind} vs ${rec.kind})`, loc, id);
        return undefined;
      }
      if ((acc.movieId ?? '') !== (rec.movieId ?? '')) {
        this.skip('conflicting duplicate id (different movie)', loc, id);
        return undefined;
      }
      if (acc.sources.has(src.spec)) {
        if (src.kind === 'csv' && !acc.names.has(norm)) {
          this.skip('conflicting duplicate id (different name in the same source)', loc, `${id}: ${norm}`);
          return undefined;
        }
        if (counted) this.report.duplicates.entities++;
      } else if (counted && acc.sources.size > 0) this.report.merged.entities++;
    } else {
      acc = { id, kind: rec.kind, names: new Map(), surfaces: new Set(), aliases: new Set(), sources: new Set() };
      if (rec.movieId) acc.movieId = rec.movieId;
      this.ents.set(id, acc);
    }
    acc.sources.add(src.spec);
    this.use(src);
    const n = acc.names.get(norm);
    if (n) {
      n.count++;
      n.prio = Math.min(n.prio, prio);
    } else acc.names.set(norm, { prio, count: 1 });
    if (surface !== '') acc.surfaces.add(surface);
    for (const raw of rec.surfaces ?? []) {
      const s = stripInvisible(raw).text.trim();
      if (s !== '') acc.surfaces.add(s);
    }
    if (rec.aliases?.length) for (const a of this.cleanAliases(rec.aliases, rec.kind, norm, loc)) acc.aliases.add(a);
    return id;
  }

  /** The aliases of one record after alias hygiene (src/kg/aliases.ts), every change and drop reported. */
  private cleanAliases(raw: readonly string[], kind: EntityKind, name: string, loc: Loc): string[] {
    const c = cleanAliases(
      raw.map((a) => this.clean(a, `${kind} alias`, loc)),
      normalizeName,
      this.opts.commonWord,
    );
    const at = fmtLoc(loc);
    for (const r of c.rejoined) this.aliasChangedG.add('split inside brackets, joined again', `${at}: ${r.from.join(' + ')} → ${r.to}`);
    for (const t of c.tagged) this.aliasChangedG.add('region or note tag removed', `${at}: ${t.from} → ${t.to}`);
    for (const d of c.dropped) this.aliasDroppedG.add(d.reason, `${at}: ${name} → ${d.alias}`);
    return c.kept.filter((a) => a !== '');
  }

  /** Adds a relation record by ids (checked in `build`: ends must be entities of the right kinds). */
  relation(r: { kind: RelationKind; from: string; to: string; movieId?: string }, src: SourceCtx, loc: Loc): void {
    const to = r.kind === 'ALIAS' ? this.aliasTarget(r.to, loc) : r.to;
    if (to === undefined) return;
    const movieId = r.kind === 'PLAYED' ? r.movieId : undefined;
    const key = `${r.kind}\u0000${r.from}\u0000${to}\u0000${movieId ?? ''}`;
    this.use(src);
    const prev = this.rels.get(key);
    if (prev) {
      if (prev.spec === src.spec) this.report.duplicates.relations++;
      else this.report.merged.relations++;
      return;
    }
    const rec: RelRec = { kind: r.kind, from: r.from, to, loc, spec: src.spec };
    if (movieId) rec.movieId = movieId;
    this.rels.set(key, rec);
  }

  /** An ALIAS relation's name: cleaned, normalised, without a region / note tag (reported); undefined when only a tag. */
  private aliasTarget(raw: string, loc: Loc): string | undefined {
    const norm = normalizeName(this.clean(raw, 'alias', loc));
    const bare = stripRegionTags(norm);
    if (bare === norm) return norm;
    if (bare === '') {
      this.aliasDroppedG.add('only a region tag', `${fmtLoc(loc)}: ${norm} (ALIAS relation)`);
      return undefined;
    }
    this.aliasChangedG.add('region or note tag removed', `${fmtLoc(loc)}: ${norm} → ${bare}`);
    return bare;
  }

    /** A Douban film: the Movie entity, its genres (HAS_GENRE) and aliases. Returns the movie id. */
  movie(
    rec: { subjectId: string; title: string; aliases?: readonly string[]; surfaces?: readonly string[]; genres?: readonly string[] },
    src: SourceCtx,
    loc: Loc,
  ): string | undefined {
    const id = this.entity({ id: `movie/douban/${rec.subjectId}`, kind: 'Movie', name: rec.title, aliases: rec.aliases, surfaces: rec.surfaces }, src, loc);
    if (id === undefined) return undefined;
    for (const g of rec.genres ?? []) {
      const gid = this.entity({ kind: 'Genre', name: g }, src, loc, false);
      if (gid) this.relation({ kind: 'HAS_GENRE', from: id, to: gid }, src, loc);
    }
    return id;
  }

  /** A credit (director, writer, actor) of a person on a film; people are resolved in `build`. */
  credit(movieId: string, role: CreditRole, personRef: PersonRef, src: SourceCtx, loc: Loc): void {
    const person = { ...personRef, name: this.clean(personRef.name, `${role} person name`, loc) };
    const norm = normalizeName(person.name);
    if (norm === '') {
      this.skip(`${role}: missing person name`, loc);
      return;
    }
    const c: Credit = { movieId, role, norm, raw: person.name.trim(), prio: SOURCE_PRIORITY[src.kind], src, loc };
    if (person.celebrityId) c.cid = person.celebrityId;
    if (person.localKey) c.localKey = person.localKey;
    this.credits.push(c);
    this.use(src);
  }

  /** Extra facts about a Douban celebrity (the KGQA person file): a name and surface forms. */
  celebrity(cid: string, name: string, surfaces: readonly string[], src: SourceCtx): void {
    const prev = this.personInfo.get(cid);
    const prio = SOURCE_PRIORITY[src.kind];
    this.use(src);
    if (!prev || prio < prev.prio) this.personInfo.set(cid, { name, surfaces: [...surfaces, ...(prev?.surfaces ?? [])], prio, spec: src.spec });
    else prev.surfaces.push(...surfaces);
  }

  /** A synopsis to mine PLAYED from (after all credits are in). */
  synopsis(movieId: string, text: string, loc: Loc): void {
    if (text.trim() !== '') this.synopses.push({ movieId, text, loc });
  }

  private resolvePeople(): Map<Credit, string> {
    const out = new Map<Credit, string>();
    // id-persons credited per film, by loose name
    const idNames = new Map<string, Map<string, Set<string>>>();
    for (const c of this.credits) {
      if (!c.cid) continue;
      let m = idNames.get(c.movieId);
      if (!m) idNames.set(c.movieId, (m = new Map()));
      const k = personKey(c.norm);
      let s = m.get(k);
      if (!s) m.set(k, (s = new Set()));
      s.add(c.cid);
    }
    const localLinks = new Map<string, { ids: Set<string>; ambiguous: boolean }>();
    const pending: Credit[] = [];
    for (const c of this.credits) {
      if (c.cid) {
        out.set(c, `person/douban/${c.cid}`);
        continue;
      }
      const cands = idNames.get(c.movieId)?.get(personKey(c.norm));
      let ll: { ids: Set<string>; ambiguous: boolean } | undefined;
      if (c.localKey) {
        ll = localLinks.get(c.localKey);
        if (!ll) localLinks.set(c.localKey, (ll = { ids: new Set(), ambiguous: false }));
      }
      if (cands && cands.size === 1) {
        const cid = [...cands][0];
        out.set(c, `person/douban/${cid}`);
        this.report.people.linkedSameFilm++;
        ll?.ids.add(cid);
      } else {
        if (cands && cands.size > 1) {
          this.report.people.ambiguousName++;
          if (ll) ll.ambiguous = true;
          this.drop('person: several Douban people of this name on the film, kept name-only', c.loc, c.norm);
        }
        pending.push(c);
      }
    }
    for (const c of pending) {
      const ll = c.localKey ? localLinks.get(c.localKey) : undefined;
      if (ll && !ll.ambiguous && ll.ids.size === 1) {
        out.set(c, `person/douban/${[...ll.ids][0]}`);
        this.report.people.linkedViaSourcePerson++;
      } else out.set(c, entityId('Person', c.norm));
    }
    return out;
  }

  /** Joins everything into canonical KgData (call once): the numbered steps below, in order. */
  build(): { data: KgData; report: MergeReport } {
    if (this.built) throw new Error('kg builder: build() called twice');
    this.built = true;
    const onFilm = this.creditPeople(); // 1
    this.resolveEntities(onFilm); // 1a
    this.addSurfaceKeys(onFilm);
    if (this.opts.minePlayed) this.minePlayedRoles(onFilm); // 2
    const { entities, byId } = this.finalEntities(); // 3
    const { relations, seenAlias } = this.checkedRelations(byId); // 4
    const { keep, finalRels } = this.withoutOrphanCharacters(entities, relations, byId, seenAlias); // 5
    this.report.played.relations = finalRels.filter((r) => r.kind === 'PLAYED').length;
    const { relationsJoined, ...counts } = this.report;
    const report: MergeReport = {
      sources: [...this.records].map(([source, records]) => ({ source, records })),
      ...counts,
      resolved: { merged: this.resolvedG.total, relationsJoined, rules: this.resolvedG.list(), ambiguous: this.ambiguousG.list() },
      aliases: { changed: this.aliasChangedG.list(), dropped: this.aliasDroppedG.list() },
      skipped: this.skippedG.list(),
      dropped: this.droppedG.list(),
      cleaned: this.cleanedG.list(),
      long: this.longG.list(),
    };
    return { data: { entities: keep, relations: finalRels }, report };
  }

  /** Step 1: people and credits (entities and credit relations; who is on which film, by loose name). */
  private creditPeople(): Map<string, FilmPeople> {
    const resolved = this.resolvePeople();
    const onFilm = new Map<string, FilmPeople>();
    for (const c of this.credits) {
      const pid = resolved.get(c)!;
      this.entity({ id: pid, kind: 'Person', name: c.raw }, c.src, c.loc, false);
      this.relation({ kind: c.role, from: pid, to: c.movieId }, c.src, c.loc);
      let f = onFilm.get(c.movieId);
      if (!f) onFilm.set(c.movieId, (f = { actors: new Map(), all: new Map() }));
      const k = personKey(c.norm);
      for (const m of c.role === 'ACTED_IN' ? [f.actors, f.all] : [f.all]) {
        let s = m.get(k);
        if (!s) m.set(k, (s = new Set()));
        s.add(pid);
      }
    }
    for (const [cid, info] of this.personInfo) {
      const pid = `person/douban/${cid}`;
      const acc = this.ents.get(pid);
      if (acc) {
        const n = normalizeName(info.name);
        if (n !== '' && !acc.names.has(n)) acc.names.set(n, { prio: info.prio, count: 0 });
        for (const s of info.surfaces) acc.surfaces.add(s);
      } else {
        this.entity({ id: pid, kind: 'Person', name: info.name, surfaces: info.surfaces }, { kind: 'kgqa', spec: info.spec }, { file: info.spec, line: 0 }, false);
      }
    }
    return onFilm;
  }

  /**
   * Step 1a: entity resolution (src/kg/resolve.ts): name-only Person entities merged into the person they
   * are, films without a source id into the Douban film they are (with their characters), then people
   * once more (a film merge can give a person a film in common with one namesake only). The merged
   * accumulators, the relations and the film lists follow.
   */
  private resolveEntities(onFilm: Map<string, FilmPeople>): void {
    const first = this.resolvePeopleStep(onFilm);
    const last = this.resolveFilmsStep(onFilm) > 0 ? this.resolvePeopleStep(onFilm) : first;
    for (const a of last) this.ambiguousG.add(`${a.id.startsWith('movie/') ? 'film' : 'person'} left apart: ${a.reason}`, `${a.name}: ${a.id} apart from ${a.candidates.join(', ')}`);
  }

  /** The person rules once; returns the entities left apart as ambiguous. */
  private resolvePeopleStep(onFilm: Map<string, FilmPeople>): ResolveAmbiguous[] {
    const films = new Map<string, Set<string>>();
    for (const r of this.rels.values()) {
      const movie = r.kind === 'PLAYED' ? r.movieId : r.kind === 'DIRECTED' || r.kind === 'WROTE' || r.kind === 'ACTED_IN' ? r.to : undefined;
      if (movie === undefined) continue;
      let s = films.get(r.from);
      if (!s) films.set(r.from, (s = new Set()));
      s.add(movie);
    }
    const people: ResolvePerson[] = [];
    for (const acc of this.ents.values()) {
      if (acc.kind !== 'Person') continue;
      people.push({ id: acc.id, names: [...acc.names.keys(), ...acc.aliases], films: films.get(acc.id) ?? new Set(), hasSourceId: !acc.id.startsWith('person/name/') });
    }
    const preferred = (ids: readonly string[]) => {
      const names = new Map<string, { prio: number; count: number }>();
      for (const id of ids) for (const [n, v] of this.ents.get(id)!.names) addName(names, n, v.prio, v.count);
      const best = entityId('Person', chooseName(names));
      return ids.includes(best) ? best : undefined;
    };
    const { target, merges, ambiguous } = resolvePersons(people, personKey, preferred);
    const title = (id: string) => this.ents.get(id) && chooseName(this.ents.get(id)!.names);
    for (const m of merges) {
      const shared = m.shared.length ? `; shared film${m.shared.length > 1 ? 's' : ''} ${m.shared.slice(0, 3).map(title).join(', ')}${m.shared.length > 3 ? ' …' : ''}` : '';
      this.resolvedG.add(m.rule, `${m.from} → ${m.to} (${m.name}${shared})`);
    }
    for (const [from, to] of target) this.mergeInto(from, to);
    this.applyTargets(target, onFilm);
    return ambiguous;
  }

  /** The film rule; films merged move their characters along. Returns the number of films merged. */
  private resolveFilmsStep(onFilm: Map<string, FilmPeople>): number {
    const people = new Map<string, Map<string, Set<string>>>();
    for (const r of this.rels.values()) {
      if (r.kind !== 'DIRECTED' && r.kind !== 'WROTE' && r.kind !== 'ACTED_IN') continue;
      let m = people.get(r.to);
      if (!m) people.set(r.to, (m = new Map()));
      let roles = m.get(r.from);
      if (!roles) m.set(r.from, (roles = new Set()));
      roles.add(r.kind);
    }
    const films: ResolveFilm[] = [];
    for (const acc of this.ents.values()) {
      if (acc.kind !== 'Movie') continue;
      films.push({ id: acc.id, names: [...acc.names.keys(), ...acc.aliases], people: people.get(acc.id) ?? new Map(), hasSourceId: !acc.id.startsWith('movie/name/') });
    }
    const { target, merges, ambiguous } = resolveFilms(films);
    for (const m of merges) this.resolvedG.add('film: same title and people in common', `${m.from} → ${m.to} (${m.name}; ${m.people} people, ${m.directors} director${m.directors === 1 ? '' : 's'} in common)`);
    for (const a of ambiguous) this.ambiguousG.add(`film left apart: ${a.reason}`, `${a.name}: ${a.id} apart from ${a.candidates.join(', ')}`);
    if (target.size === 0) return 0;
    for (const [from, to] of [...target]) {
      this.mergeInto(from, to);
      // its characters belong to the kept film: character/<from>/<name> becomes character/<to>/<name>
      for (const acc of [...this.ents.values()]) {
        if (acc.kind !== 'Character' || acc.movieId !== from) continue;
        const prefix = `character/${from}/`;
        const id = acc.id.startsWith(prefix) ? `character/${to}/${acc.id.slice(prefix.length)}` : acc.id;
        acc.movieId = to;
        if (id === acc.id) continue;
        const old = acc.id;
        target.set(old, id);
        if (this.ents.has(id)) this.mergeInto(acc.id, id);
        else {
          this.ents.delete(acc.id);
          acc.sourceIds = new Set([...(acc.sourceIds ?? [acc.id]), id]);
          acc.id = id;
          this.ents.set(id, acc);
        }
        this.resolvedG.add('character: moved with its film', `${old} → ${id}`);
      }
    }
    this.applyTargets(target, onFilm);
    return merges.length;
  }

  /** Relations, film lists and synopses follow merged ids (`target`: old id → kept id). */
  private applyTargets(target: ReadonlyMap<string, string>, onFilm: Map<string, FilmPeople>): void {
    if (target.size === 0) return;
    // only the relations that touch a merged id are re-keyed (a few thousand of 100k)
    for (const [key, r] of [...this.rels]) {
      const from = target.get(r.from);
      const to = r.kind === 'ALIAS' ? undefined : target.get(r.to);
      const movie = r.movieId === undefined ? undefined : target.get(r.movieId);
      if (from === undefined && to === undefined && movie === undefined) continue;
      this.rels.delete(key);
      const moved: RelRec = { ...r, from: from ?? r.from, to: to ?? r.to };
      if (movie !== undefined) moved.movieId = movie;
      const next = `${moved.kind}\u0000${moved.from}\u0000${moved.to}\u0000${moved.movieId ?? ''}`;
      if (this.rels.has(next)) this.report.relationsJoined++;
      else this.rels.set(next, moved);
    }
    const touched = (ids: Set<string>) => {
      for (const id of ids) if (target.has(id)) return true;
      return false;
    };
    for (const [movie, f] of [...onFilm]) {
      for (const m of [f.actors, f.all]) {
        for (const [k, ids] of m) {
          if (!touched(ids)) continue;
          m.set(k, new Set([...ids].map((id) => target.get(id) ?? id)));
        }
      }
      const to = target.get(movie);
      if (to === undefined) continue;
      onFilm.delete(movie);
      const into = onFilm.get(to);
      if (!into) onFilm.set(to, f);
      else for (const key of ['actors', 'all'] as const) for (const [k, ids] of f[key]) into[key].set(k, new Set([...(into[key].get(k) ?? []), ...ids]));
    }
    for (const syn of this.synopses) syn.movieId = target.get(syn.movieId) ?? syn.movieId;
  }

  /** Moves entity `from`'s names, surfaces, aliases, sources and ids into `to` (accumulators of one kind). */
  private mergeInto(from: string, to: string): void {
    const a = this.ents.get(from)!;
    const b = this.ents.get(to)!;
    for (const [n, v] of a.names) addName(b.names, n, v.prio, v.count);
    for (const x of a.surfaces) b.surfaces.add(x);
    for (const x of a.aliases) b.aliases.add(x);
    for (const x of a.sources) b.sources.add(x);
    b.sourceIds ??= new Set([b.id]);
    for (const x of a.sourceIds ?? [a.id]) b.sourceIds.add(x);
    this.ents.delete(from);
  }

  /** Step 1b: surface forms of credited people as extra keys (蒂姆·罗宾斯 Tim Robbins → its Latin part). */
  private addSurfaceKeys(onFilm: Map<string, FilmPeople>): void {
    for (const f of onFilm.values()) {
      for (const m of [f.actors, f.all]) {
        const extra: [string, string][] = [];
        for (const ids of m.values()) {
          for (const pid of ids) {
            for (const s of this.ents.get(pid)?.surfaces ?? []) for (const v of actorVariants(s)) extra.push([personKey(v), pid]);
          }
        }
        for (const [k, pid] of extra) {
          let s = m.get(k);
          if (!s) m.set(k, (s = new Set()));
          s.add(pid);
        }
      }
    }
  }

  /** Step 2: PLAYED (饰演) relations mined from the synopses, the actor resolved among the film's people. */
  private minePlayedRoles(onFilm: Map<string, FilmPeople>): void {
    const popts: Partial<PlayedOptions> = { ...this.opts.played };
    if (this.tagger && popts.tagger === undefined) popts.tagger = this.tagger;
    const seen = new Set<string>();
    for (const syn of this.synopses) {
      const dedupe = `${syn.movieId}\u0000${syn.text}`;
      if (seen.has(dedupe)) continue;
      seen.add(dedupe);
      this.report.played.synopses++;
      const film = onFilm.get(syn.movieId);
      const resolve = (variants: string[]): string | undefined => {
        if (!film) return undefined;
        for (const v of variants) {
          const k = personKey(v);
          const ids = film.actors.get(k) ?? film.all.get(k);
          if (!ids) continue;
          if (ids.size === 1) return [...ids][0];
          const withId = [...ids].filter((x) => x.startsWith('person/douban/'));
          if (withId.length === 1) return withId[0];
          return undefined;
        }
        return undefined;
      };
      const { mentions, rejected } = minePlayed(syn.text, resolve, popts);
      for (const r of rejected) this.drop(`played: ${r.reason}`, syn.loc, r.text);
      const src: SourceCtx = { kind: 'kgqa', spec: `${syn.loc.file}#played` };
      for (const m of mentions) {
        this.report.played.mentions++;
        if (m.stripped) {
          this.report.played.stripped++;
          if (this.report.played.strippedExamples.length < this.opts.examples) {
            this.report.played.strippedExamples.push({ from: forReport(m.stripped + m.character), to: forReport(m.character), at: `${syn.loc.file}:${syn.loc.line}` });
          }
        }
        const cid = this.entity({ kind: 'Character', name: m.character, movieId: syn.movieId }, src, syn.loc, false);
        if (cid) this.relation({ kind: 'PLAYED', from: m.person, to: cid, movieId: syn.movieId }, src, syn.loc);
      }
    }
  }

  /** Step 3: entities: names by priority, other names as aliases; explicit ALIAS relations join a movie's aliases. */
  private finalEntities(): { entities: Entity[]; byId: Map<string, Entity> } {
    const entities: Entity[] = [];
    for (const acc of this.ents.values()) {
      const best = chooseName(acc.names);
      const aliases = new Set(acc.aliases);
      if (acc.kind === 'Movie' || acc.kind === 'Person') {
        for (const n of acc.names.keys()) {
          const problem = n === best ? null : aliasProblem(n, this.opts.commonWord);
          if (problem) this.aliasDroppedG.add(problem, `${acc.id}: ${best} → ${n} (another source's name)`);
          else aliases.add(n);
        }
      }
      aliases.delete(best);
      aliases.delete('');
      const e: Entity = { id: acc.id, kind: acc.kind, name: best, surfaces: [...acc.surfaces].sort(), aliases: [...aliases].sort() };
      if (acc.movieId) e.movieId = acc.movieId;
      if (acc.sourceIds) e.sourceIds = [...acc.sourceIds].sort();
      entities.push(e);
      if (acc.kind === 'Person') {
        if (acc.id.startsWith('person/douban/')) this.report.people.withId++;
        else this.report.people.nameOnly++;
      }
    }
    const byId = new Map(entities.map((e) => [e.id, e]));
    // ALIAS relations given explicitly join the movie's aliases (after the same hygiene)
    for (const [key, r] of this.rels) {
      if (r.kind !== 'ALIAS') continue;
      const problem = r.to === '' ? null : aliasProblem(r.to, this.opts.commonWord);
      if (problem) {
        this.aliasDroppedG.add(problem, `${fmtLoc(r.loc)}: ${byId.get(r.from)?.name ?? r.from} → ${r.to} (ALIAS relation)`);
        this.rels.delete(key);
        continue;
      }
      const m = byId.get(r.from);
      if (m && m.kind === 'Movie' && r.to !== '' && r.to !== m.name && !m.aliases.includes(r.to)) {
        m.aliases.push(r.to);
        m.aliases.sort();
      }
    }
    return { entities, byId };
  }

  /** Step 4: relations checked against the entities (ends exist and have the right kinds; PLAYED's movie). */
  private checkedRelations(byId: Map<string, Entity>): { relations: Relation[]; seenAlias: Set<string> } {
    const relations: Relation[] = [];
    const seenAlias = new Set<string>();
    for (const r of this.rels.values()) {
      const ends = RELATION_ENDS[r.kind];
      const from = byId.get(r.from);
      const where = `${r.kind} ${r.from} → ${r.to}`;
      if (r.kind !== 'ALIAS' && r.from === r.to) {
        // no relation kind joins an entity kind to itself (RELATION_ENDS), so this is always bad input
        this.report.selfRelations++;
        this.skip(`${r.kind}: self-relation (an entity related to itself)`, r.loc, where);
        continue;
      }
      if (!from) {
        this.skip(`${r.kind}: unknown 'from' entity (dangling)`, r.loc, where);
        continue;
      }
      if (from.kind !== ends.from) {
        this.skip(`${r.kind}: 'from' is a ${from.kind}, expected ${ends.from}`, r.loc, where);
        continue;
      }
      if (r.kind === 'ALIAS') {
        if (r.to === '' || r.to === from.name) {
          this.skip('ALIAS: empty or equal to the movie name', r.loc, where);
          continue;
        }
        seenAlias.add(`${r.from}\u0000${r.to}`);
        relations.push({ kind: 'ALIAS', from: r.from, to: r.to });
        continue;
      }
      const to = byId.get(r.to);
      if (!to) {
        this.skip(`${r.kind}: unknown 'to' entity (dangling)`, r.loc, where);
        continue;
      }
      if (to.kind !== ends.to) {
        this.skip(`${r.kind}: 'to' is a ${to.kind}, expected ${ends.to}`, r.loc, where);
        continue;
      }
      const rel: Relation = { kind: r.kind, from: r.from, to: r.to };
      if (r.kind === 'PLAYED') {
        const mv = r.movieId ? byId.get(r.movieId) : undefined;
        if (!r.movieId) {
          this.skip('PLAYED: missing movie', r.loc, where);
          continue;
        }
        if (!mv || mv.kind !== 'Movie') {
          this.skip('PLAYED: movie is not a Movie entity (dangling)', r.loc, `${where} in ${r.movieId}`);
          continue;
        }
        if (to.movieId !== r.movieId) {
          this.skip("PLAYED: movie differs from the character's movie", r.loc, `${where} in ${r.movieId}`);
          continue;
        }
        rel.movieId = r.movieId;
      }
      relations.push(rel);
    }
    return { relations, seenAlias };
  }

  /** Step 5: characters must belong to a movie entity; ALIAS relations mirror every movie's aliases. */
  private withoutOrphanCharacters(
    entities: Entity[],
    relations: Relation[],
    byId: Map<string, Entity>,
    seenAlias: Set<string>,
  ): { keep: Entity[]; finalRels: Relation[] } {
    const keep: Entity[] = [];
    for (const e of entities) {
      if (e.kind === 'Character' && (!e.movieId || byId.get(e.movieId)?.kind !== 'Movie')) {
        this.skip('Character: its movie is not a Movie entity (dangling)', { file: '(build)', line: 0 }, e.id);
        continue;
      }
      keep.push(e);
    }
    const keptIds = new Set(keep.map((e) => e.id));
    const droppedChars = keep.length !== entities.length ? new Set(entities.filter((e) => !keptIds.has(e.id)).map((e) => e.id)) : null;
    const finalRels = droppedChars ? relations.filter((r) => !droppedChars.has(r.from) && !droppedChars.has(r.to)) : relations;
    // ALIAS relations mirror every movie's aliases
    for (const e of keep) {
      if (e.kind !== 'Movie') continue;
      for (const a of e.aliases) {
        if (!seenAlias.has(`${e.id}\u0000${a}`)) finalRels.push({ kind: 'ALIAS', from: e.id, to: a });
      }
    }
    return { keep, finalRels };
  }
}
