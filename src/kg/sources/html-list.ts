/**
 * `html-list:<file|dir>` — saved Douban list / result pages (Top250 and the like, *.html / *.htm,
 * recursive, sorted). The records are found by the structural record extractor (src/html/structural.ts,
 * seed 002 without rendering, so an import is deterministic and needs no browser) and read with the
 * Douban list fields (src/html/douban-fields.ts): subject id, title, other titles, genres, directors,
 * actors. Films join the other sources on their Douban subject id (`movie/douban/<id>`); people have no
 * celebrity id on list pages, so they are name-only credits linked by the builder's same-film rule.
 *
 * Skipped (bad input, with `page:line` of the record): pages that do not decode or are not HTML,
 * records without a title. Dropped (by design): records without a `/subject/<id>/` link (not films),
 * pages without any record group. Names: the Chinese part of "弗兰克·德拉邦特 Frank Darabont" (as for
 * KGQA credits); other titles lose region notes such as "(港)".
 */
import { FilmkwError } from '../../errors.js';
import type { KgMergeBuilder, SourceCtx, CreditRole } from '../builder.js';
import { decodeHtml } from '../../html/decode.js';
import { readPage } from '../../html/read.js';
import { listPages } from '../../html/records.js';
import { doubanListRecord } from '../../html/douban-fields.js';
import { findRecordsStructural, parseHtml } from '../../html/structural.js';
import { requirePath, stripRegionSuffix, type Loc } from './common.js';
import { splitPersonName } from './kgqa.js';

/** 1-based line of a character offset. */
function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export async function readHtmlList(path: string, b: KgMergeBuilder, src: SourceCtx): Promise<void> {
  await requirePath(path, 'kg import: html-list source', 'any');
  const pages = await listPages(path);
  for (const page of pages) {
    if (page.problem) {
      b.count(src);
      b.skip('html-list: unreadable directory entry', { file: page.display, line: 1 }, page.problem);
      continue;
    }
    let html: string;
    try {
      html = decodeHtml(await readPage(page.path, page.display, 'html'), { path: page.display }).html;
    } catch (err) {
      if (!(err instanceof FilmkwError) && !(err as NodeJS.ErrnoException).code) throw err;
      b.count(src);
      b.skip('html-list: unreadable page', { file: page.display, line: 1 }, (err as Error).message.replace(/^html: [^:]*: /, ''));
      continue;
    }
    const { records } = findRecordsStructural(parseHtml(html));
    if (records.length === 0) {
      b.drop('html-list: page without record blocks', { file: page.display, line: 1 });
      continue;
    }
    for (const el of records) {
      const loc: Loc = { file: page.display, line: lineAt(html, el.startIndex ?? 0) };
      b.count(src);
      const r = doubanListRecord(el);
      if (!r || !r.subjectId) {
        b.drop('html-list: record without a Douban /subject/ link (not a film)', loc);
        continue;
      }
      if (!r.title) {
        b.skip('html-list: record without a title', loc, r.subjectId);
        continue;
      }
      const aliases = r.otherTitles.map(stripRegionSuffix).filter((t) => t !== '' && t !== r.title);
      const movieId = b.movie({ subjectId: r.subjectId, title: r.title, aliases, genres: r.genres }, src, loc);
      if (!movieId) continue;
      const roles: [string[], CreditRole][] = [
        [r.directors, 'DIRECTED'],
        [r.actors, 'ACTED_IN'],
      ];
      for (const [names, role] of roles) for (const name of names) b.credit(movieId, role, { name: splitPersonName(name) }, src, loc);
    }
  }
}
