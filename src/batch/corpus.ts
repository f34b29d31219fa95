/**
 * Counting a corpus for the re-ranker's corpus statistics (issue 24 item 2; src/pipeline/corpus-stats.ts
 * holds the table): `filmkw corpus build` and `filmkw tag --corpus-stats self`.
 *
 * Every document of the sources (read like `tag` reads its input, io/readers.ts) is reduced to its
 * distinct candidate surfaces by the extractor's candidate stage (`Extractor.candidateSurfaces`: the
 * same segmentation, KG matching and compound candidates as tagging, no ranking) and counted with its
 * film. A film value (a Douban id, a Douban subject URL, a film name) is keyed by the KG film it
 * resolves to, else by the value itself. Documents to exclude (the annotated texts, whose statistics
 * must not leak into training or evaluation) are dropped by id (a source's record id with its id
 * prefix, e.g. `syn-` + a Douban id, against the excluded records' ids) and by text (whitespace
 * removed); identical texts are counted once. The report says how many of each were dropped.
 */
import { usageError } from '../errors.js';
import { readRecords, type InputFormat } from '../io/readers.js';
import type { Extractor } from '../pipeline/api.js';
import { CorpusCounter, filmKey } from '../pipeline/corpus-stats.js';

/** One input of a corpus (the options `tag` reads it with, and its film). */
export interface CorpusSource {
  /** A file, or '-' for stdin. */
  readonly path: string;
  readonly format: InputFormat;
  readonly textField?: string;
  readonly idField?: string;
  readonly encoding?: string;
  /** Field / column of each record's film. */
  readonly filmField?: string;
  /** The film of every record of this source (a source about one film); a record's film field wins. */
  readonly film?: string;
  /** Put before a record's id when it is compared with the excluded ids (`syn-` for synopsis sources). */
  readonly idPrefix?: string;
}

/** The documents to leave out: their ids and their texts (whitespace removed). */
export interface CorpusExclusion {
  readonly ids: ReadonlySet<string>;
  readonly texts: ReadonlySet<string>;
  /** Records read from the exclusion files. */
  readonly records: number;
}

/** What one source gave. */
export interface CorpusSourceReport {
  readonly path: string;
  /** Records read (documents and error records). */
  records: number;
  /** Documents counted. */
  counted: number;
  errors: number;
  /** Documents whose text is blank (nothing to count). */
  blank: number;
  excludedById: number;
  excludedByText: number;
  duplicates: number;
  /** Counted documents without a film. */
  withoutFilm: number;
}

/** The text as the exclusion compares it: every white-space character removed. */
export const exclusionText = (text: string): string => text.replace(/\s+/gu, '');

/** The ids and texts of the records of `files` (jsonl with `id` and `text`, or any format `tag` reads with its defaults). */
export async function readExclusion(files: readonly { path: string; format: InputFormat }[]): Promise<CorpusExclusion> {
  const ids = new Set<string>();
  const texts = new Set<string>();
  let records = 0;
  for (const f of files) {
    for await (const r of readRecords(f.path, { format: f.format })) {
      if (!('text' in r)) continue;
      records++;
      if (r.id !== String(r.line)) ids.add(r.id);
      texts.add(exclusionText(r.text));
    }
  }
  return { ids, texts, records };
}

/** Counts the sources into `counter` (module header); one report per source. */
export async function countCorpus(
  sources: readonly CorpusSource[],
  extractor: Extractor,
  counter: CorpusCounter,
  exclusion: CorpusExclusion | null = null,
  onDocument?: () => void,
): Promise<CorpusSourceReport[]> {
  const reports: CorpusSourceReport[] = [];
  const keys = new Map<string, string>();
  const keyOf = (film: string): string => {
    let k = keys.get(film);
    if (k === undefined) {
      k = filmKey(extractor.resolveFilm(film)?.id ?? null, film);
      if (keys.size < 1_000_000) keys.set(film, k);
    }
    return k;
  };
  for (const src of sources) {
    if (src.filmField !== undefined && src.format === 'txt') throw usageError(`corpus: ${src.path}: a film field does not apply to --format txt; give the film of the whole file (film=VALUE)`);
    const report: CorpusSourceReport = { path: src.path, records: 0, counted: 0, errors: 0, blank: 0, excludedById: 0, excludedByText: 0, duplicates: 0, withoutFilm: 0 };
    const records = readRecords(src.path, { format: src.format, textField: src.textField, idField: src.idField, encoding: src.encoding, filmField: src.filmField });
    for await (const r of records) {
      report.records++;
      if (!('text' in r)) {
        report.errors++;
        continue;
      }
      if (r.text.trim() === '') {
        report.blank++;
        continue;
      }
      if (exclusion && exclusion.ids.has(`${src.idPrefix ?? ''}${r.id}`)) {
        report.excludedById++;
        continue;
      }
      if (exclusion && exclusion.texts.has(exclusionText(r.text))) {
        report.excludedByText++;
        continue;
      }
      const film = r.film ?? src.film;
      if (!counter.add(r.text, extractor.candidateSurfaces(r.text), film === undefined ? null : keyOf(film))) {
        report.duplicates++;
        continue;
      }
      report.counted++;
      if (film === undefined) report.withoutFilm++;
      onDocument?.();
    }
    reports.push(report);
  }
  return reports;
}
