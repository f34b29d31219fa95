/**
 * `openkg:<dir>` — the Neo4j-import CSVs of the OpenKG douban-movie-kg (jiangnanboy/movie_kg layout):
 *
 *   Movie.csv   title, url (…/subject/<Douban subject id>/), category:String[] (genres, `;`),
 *               othername:String[] (aliases, `;`), id:ID (a hash)          → Movie, HAS_GENRE, ALIAS
 *   Person.csv  name, id:ID (a hash; no Douban celebrity id)              → Person (name-based id unless
 *               linked to a Douban id-person of the same name on the same film, see src/kg/builder.ts)
 *   director.csv / actor.csv  :START_ID (movie hash), :END_ID (person)    → DIRECTED / ACTED_IN
 *   composer.csv  despite its name these rows are screenwriter (编剧) credits: 903 of the 1,063 rows on
 *               films also in DouBan-KGQA name one of that film's writers exactly, the rest differ by
 *               transliteration (e.g. 尔冬升 wrote and directed 我是路人甲). Read as WROTE by default;
 *               `composer: 'skip'` leaves them out (reported as dropped by design).
 *   Country.csv / district.csv  countries: not part of the film KG; counted and reported as dropped.
 *
 * Columns are found by header name (`title`, `url`, `category:String[]`, …), so column order may vary.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inputError } from '../../errors.js';
import type { CreditRole, KgMergeBuilder, SourceCtx } from '../builder.js';
import { decodeEntities, displayName, readCsv, requirePath, splitList, subjectIdFromUrl, type Loc } from './common.js';

export interface OpenKgOptions {
  /** How composer.csv is read: as WROTE (screenwriter credits, see module header) or skipped. @default 'WROTE' */
  composer: 'WROTE' | 'skip';
}

export const OPENKG_DEFAULTS: Readonly<OpenKgOptions> = Object.freeze({ composer: 'WROTE' });

type Row = { get(col: string): string; loc: Loc; width: number };

async function* rows(dir: string, file: string, required: string[], b: KgMergeBuilder, src: SourceCtx): AsyncGenerator<Row> {
  const display = displayName(dir, file);
  let cols: Map<string, number> | null = null;
  const onBad = (line: number, reason: string) => {
    b.count(src); // an unreadable record is a record read (and skipped)
    b.skip(`${file}: ${reason}`, { file: display, line });
  };
  for await (const rec of readCsv(join(dir, file), display, onBad, { header: true })) {
    if (!cols) {
      cols = new Map(rec.fields.map((f, i) => [f.trim(), i]));
      const missing = required.filter((c) => !cols!.has(c));
      if (missing.length) throw inputError(`kg import: ${display}:${rec.line}: missing column(s) ${missing.map((m) => `"${m}"`).join(', ')} in the header`);
      continue;
    }
    const c = cols;
    const fields = rec.fields;
    yield { get: (col: string) => (fields[c.get(col)!] ?? '').trim(), loc: { file: display, line: rec.line }, width: fields.length === c.size ? 0 : fields.length };
  }
  if (!cols) throw inputError(`kg import: ${display}: empty file (no header)`);
}

export async function readOpenKg(dir: string, b: KgMergeBuilder, src: SourceCtx, opts: Partial<OpenKgOptions> = {}): Promise<void> {
  const o = { ...OPENKG_DEFAULTS, ...opts };
  await requirePath(dir, 'kg import: openkg source', 'dir');
  for (const f of ['Movie.csv', 'Person.csv', 'director.csv', 'actor.csv']) await requirePath(join(dir, f), `kg import: openkg source ${dir}`, 'file');
  const movies = new Map<string, string>();
  for await (const r of rows(dir, 'Movie.csv', ['title', 'url', 'id:ID'], b, src)) {
    b.count(src);
    if (r.width) {
      b.skip('Movie.csv: wrong number of fields', r.loc, `${r.width} fields`);
      continue;
    }
    const hash = r.get('id:ID');
    const title = decodeEntities(r.get('title'));
    const subject = subjectIdFromUrl(r.get('url'));
    if (hash === '') {
      b.skip('Movie.csv: missing field id:ID', r.loc);
      continue;
    }
    if (!subject) {
      b.skip('Movie.csv: no Douban subject id in url', r.loc, r.get('url') || '(empty)');
      continue;
    }
    if (title === '') {
      b.skip('Movie.csv: missing field title', r.loc, subject);
      continue;
    }
    // split as given; the builder joins items split inside brackets and removes region tags (src/kg/aliases.ts)
    const aliases = splitList(decodeEntities(r.get('othername:String[]')), /;/);
    const genres = splitList(r.get('category:String[]'), /;/);
    const id = b.movie({ subjectId: subject, title, aliases, genres }, src, r.loc);
    if (id) {
      if (movies.has(hash) && movies.get(hash) !== id) b.skip('Movie.csv: the same id:ID for two subjects', r.loc, hash);
      else movies.set(hash, id);
    }
  }
  const people = new Map<string, string>();
  const used = new Set<string>();
  for await (const r of rows(dir, 'Person.csv', ['name', 'id:ID'], b, src)) {
    b.count(src);
    const hash = r.get('id:ID');
    const name = decodeEntities(r.get('name'));
    if (hash === '' || name === '') {
      b.skip(`Person.csv: missing field ${hash === '' ? 'id:ID' : 'name'}`, r.loc);
      continue;
    }
    people.set(hash, name);
  }
  const relFiles: [string, CreditRole | null][] = [
    ['director.csv', 'DIRECTED'],
    ['actor.csv', 'ACTED_IN'],
    ['composer.csv', o.composer === 'WROTE' ? 'WROTE' : null],
  ];
  for (const [file, role] of relFiles) {
    if (!existsSync(join(dir, file))) continue;
    for await (const r of rows(dir, file, [':START_ID', ':END_ID'], b, src)) {
      b.count(src);
      if (role === null) {
        b.drop(`${file}: skipped by design (composer: 'skip')`, r.loc);
        continue;
      }
      const m = r.get(':START_ID');
      const p = r.get(':END_ID');
      if (m === '' || p === '') {
        b.skip(`${file}: missing field ${m === '' ? ':START_ID' : ':END_ID'}`, r.loc);
        continue;
      }
      const movieId = movies.get(m);
      if (!movieId) {
        b.skip(`${file}: unknown movie id (dangling)`, r.loc, m);
        continue;
      }
      const name = people.get(p);
      if (name === undefined) {
        b.skip(`${file}: unknown person id (dangling)`, r.loc, p);
        continue;
      }
      used.add(p);
      b.credit(movieId, role, { name, localKey: `openkg:${p}` }, src, r.loc);
    }
  }
  // people without any credit are still people of the KG (name-based ids)
  for (const [hash, name] of people) {
    if (!used.has(hash)) b.entity({ kind: 'Person', name }, src, { file: displayName(dir, 'Person.csv'), line: 0 }, false);
  }
  for (const file of ['Country.csv', 'district.csv']) {
    if (!existsSync(join(dir, file))) continue;
    let n = 0;
    for await (const r of rows(dir, file, [], b, src)) {
      n++;
      if (n === 1) b.drop(`${file}: countries are not part of the film KG (by design)`, r.loc);
      else b.drop(`${file}: countries are not part of the film KG (by design)`);
    }
    b.count(src, n);
  }
}
