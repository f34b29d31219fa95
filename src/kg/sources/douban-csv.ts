/**
 * `douban-csv:<file|dir>` — the douban-movies-2065 scrape (douban_all_movies.csv: UTF-8 with BOM,
 * CRLF): movie_id, title, directors / actors / screenwriters (comma lists of names, no celebrity
 * ids), genres (comma list), summary ("角色（演员 饰）" role mentions). A directory is read as all its
 * *.csv files (sorted). Columns are found by header name; movie_id and title are required.
 */
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { inputError } from '../../errors.js';
import type { CreditRole, KgMergeBuilder, SourceCtx } from '../builder.js';
import { decodeEntities, readCsv, requirePath, splitList, subjectIdFromUrl } from './common.js';

const LIST = /\s*[,，]\s*/u;

export async function readDoubanCsv(path: string, b: KgMergeBuilder, src: SourceCtx): Promise<void> {
  const kind = await requirePath(path, 'kg import: douban-csv source', 'any');
  const files =
    kind === 'file'
      ? [{ file: path, display: basename(path) }]
      : (await readdir(path))
          .filter((n) => /\.csv$/i.test(n))
          .sort()
          .map((n) => ({ file: join(path, n), display: `${basename(path)}/${n}` }));
  for (const { file, display } of files) {
    let cols: Map<string, number> | null = null;
    const onBad = (line: number, reason: string) => {
      b.count(src); // an unreadable record is a record read (and skipped)
      b.skip(`douban-csv: ${reason}`, { file: display, line });
    };
    for await (const rec of readCsv(file, display, onBad, { header: true })) {
      const loc = { file: display, line: rec.line };
      if (!cols) {
        cols = new Map(rec.fields.map((f, i) => [f.trim(), i]));
        const missing = ['movie_id', 'title'].filter((c) => !cols!.has(c));
        if (missing.length) throw inputError(`kg import: ${display}:${rec.line}: missing column(s) ${missing.map((m) => `"${m}"`).join(', ')} in the header`);
        continue;
      }
      b.count(src);
      const c = cols;
      if (rec.fields.length !== c.size) {
        b.skip('douban-csv: wrong number of fields', loc, `${rec.fields.length} fields, expected ${c.size}`);
        continue;
      }
      const get = (col: string): string => (c.has(col) ? (rec.fields[c.get(col)!] ?? '').trim() : '');
      const subject = /^\d+$/.test(get('movie_id')) ? get('movie_id') : subjectIdFromUrl(get('link'));
      if (!subject) {
        b.skip(get('movie_id') === '' ? 'douban-csv: missing field movie_id' : 'douban-csv: movie_id is not a Douban subject id', loc, get('movie_id'));
        continue;
      }
      const title = decodeEntities(get('title'));
      if (title === '') {
        b.skip('douban-csv: missing field title', loc, subject);
        continue;
      }
      const movieId = b.movie({ subjectId: subject, title, genres: splitList(get('genres'), LIST) }, src, loc);
      if (!movieId) continue;
      const roles: [string, CreditRole][] = [
        ['directors', 'DIRECTED'],
        ['screenwriters', 'WROTE'],
        ['actors', 'ACTED_IN'],
      ];
      for (const [col, role] of roles) {
        for (const name of splitList(decodeEntities(get(col)), LIST)) b.credit(movieId, role, { name }, src, loc);
      }
      const summary = get('summary');
      if (summary !== '') b.synopsis(movieId, summary, loc);
    }
    if (!cols) throw inputError(`kg import: ${display}: empty file (no header)`);
  }
}
