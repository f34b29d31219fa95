/**
 * The context a text comes with (issue 24 item 1): the film it is about and its title. A review or a
 * synopsis record usually names its film (a Douban subject id, `doubanId` / `doubanSubjectId`, or a
 * film name), and a review often has a title; the extractor takes both per call
 * (`extract(text, { film, title })`, `filmkw tag --film-field --title-field`).
 *
 * The film is resolved against the KG once per distinct value ({@link SubjectResolver}): a Douban id
 * (digits, an entity id `movie/douban/<id>` or a Douban subject URL) as the film `movie/douban/<id>` first
 * (any other KG film id, `movie/name/…`, as that film); then a film whose
 * name is the value; then a film with that alias. Among several films of one name the one with the most
 * KG relations wins (then the lower index), so the choice is deterministic. A value that resolves to no
 * film leaves the text without a subject (the features then read as for a text without context); the
 * caller reports it (tag: once per run).
 *
 * What the re-ranker reads of the subject ({@link DocumentSubject}): its names (name and aliases,
 * normalised), its KG neighbours (director, writers, cast, characters, genres: one hop) and the
 * neighbours of those (two hops), as sorted arrays.
 */
import { normalizeName, type KgView } from '../kg/model.js';

/** The film a document is about, as the re-ranker reads it. */
export interface DocumentSubject {
  /** The film's entity index. */
  readonly film: number;
  /** Its name and aliases, normalised (kg/model.ts normalizeName). */
  readonly names: ReadonlySet<string>;
  /** Entities one hop from it (sorted ascending: its KG neighbours). */
  readonly hop1: Int32Array;
  /** Entities two hops from it and not one (sorted ascending; at most {@link MAX_HOP2} looked at). */
  readonly hop2: Int32Array;
}

/** What the extractor is told about one document (library `extract(text, { film, title })`). */
export interface DocumentContextInput {
  /** The film the text is about: a Douban subject id or a film name (absent: unknown). */
  readonly film?: string | null;
  /** The text's title (a review's headline), absent when it has none. */
  readonly title?: string | null;
}

/** The two-hop set stops growing past this many entities (a film whose cast played in thousands of films). */
export const MAX_HOP2 = 20_000;

const DOUBAN_ID = /^(?:movie\/douban\/|https?:\/\/movie\.douban\.com\/subject\/)?(\d{1,12})(?:\/\S*)?$/u;

/** The entity index of a KG id, through the store's id index when it has one (else a scan). */
function entityByIdOf(kg: KgView, id: string): number {
  if (kg.entityIndex) return kg.entityIndex(id);
  for (let i = 0; i < kg.entityCount; i++) if (kg.idOf(i) === id) return i;
  return -1;
}

/** The film among `found` with the most KG relations (ties: the lower index), or -1. */
function bestFilm(kg: KgView, found: readonly number[]): number {
  let best = -1;
  let degree = -1;
  for (const e of found) {
    if (kg.kindOf(e) !== 'Movie') continue;
    const d = kg.neighbours(e).length;
    if (d > degree) {
      best = e;
      degree = d;
    }
  }
  return best;
}

/** The film a value names (module header), or -1. */
export function resolveFilm(kg: KgView, film: string): number {
  const value = film.trim();
  if (value === '') return -1;
  const id = DOUBAN_ID.exec(value);
  if (id) {
    const e = entityByIdOf(kg, `movie/douban/${id[1]}`);
    if (e >= 0 && kg.kindOf(e) === 'Movie') return e;
  } else if (value.startsWith('movie/')) {
    // a KG film id without a Douban id (movie/name/…), as the viewer's film picker gives it
    const e = entityByIdOf(kg, value);
    if (e >= 0 && kg.kindOf(e) === 'Movie') return e;
  }
  const named = bestFilm(kg, kg.lookupName(value));
  return named >= 0 ? named : bestFilm(kg, kg.lookup(value));
}

/** The subject of a resolved film: its names, one-hop and two-hop neighbours. */
export function subjectOf(kg: KgView, film: number): DocumentSubject {
  const names = new Set<string>([normalizeName(kg.nameOf(film)), ...kg.aliasesOf(film).map(normalizeName)]);
  const hop1 = kg.neighbours(film);
  const near = new Set<number>(hop1);
  near.add(film);
  const two = new Set<number>();
  for (const a of hop1) {
    for (const b of kg.neighbours(a)) {
      if (!near.has(b)) two.add(b);
      if (two.size >= MAX_HOP2) break;
    }
    if (two.size >= MAX_HOP2) break;
  }
  return { film, names, hop1, hop2: Int32Array.from(two).sort() };
}

/**
 * Resolves film values to subjects, each distinct value once (pure KG lookups, so the memo changes no
 * output). At most `limit` values are kept; past that the memo is emptied.
 */
export class SubjectResolver {
  private readonly memo = new Map<string, DocumentSubject | null>();
  constructor(
    private readonly kg: KgView,
    private readonly limit = 65_536,
  ) {}

  /** The subject of a film value, or null when the KG has no such film. */
  resolve(film: string): DocumentSubject | null {
    let s = this.memo.get(film);
    if (s !== undefined) return s;
    const e = resolveFilm(this.kg, film);
    s = e >= 0 ? subjectOf(this.kg, e) : null;
    if (this.memo.size >= this.limit) this.memo.clear();
    this.memo.set(film, s);
    return s;
  }
}
