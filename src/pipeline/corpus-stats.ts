/**
 * Corpus statistics (issue 24 item 2): per candidate surface (a graph word or a phrase candidate of the
 * pipeline), over a corpus of texts, the number of documents that have it as a candidate (document
 * frequency) and the number of distinct films whose texts have it (film spread); per film with at least
 * two documents, the documents of that film that have it (what keyness needs). A word of review talk
 * (五星, 烂片, 剧情) is in the texts of many films; a character's name in those of one; a film's own
 * vocabulary is far more frequent in its texts than in all.
 *
 * Built by `filmkw corpus build` (src/eval/corpus.ts counts the documents through the extractor's
 * candidate stage, {@link CorpusCounter} here keeps the counts) and written as text ({@link
 * serializeCorpusStats}, gzip-compressed by the command); read by {@link parseCorpusStats}. The
 * documents are identified by a hash of their text (sha256, 64 bits kept): a document that is itself
 * in the table is left out of its own statistics (leave one out), so a text tagged with a table built
 * over its own corpus (`tag --corpus-stats self`, or the shipped table when the text is one of its
 * sources) reads the same figures as a text the table never saw. Identical texts are counted once.
 *
 * File format (UTF-8 lines, tab-separated; gzip on disk):
 *   line 1  a JSON header {"format":"filmkw-corpus-stats","version":1,"docs":N,"films":F,…}
 *   `F  key  docs`            one line per film, in index order (key: a KG film id, or `name:` + the name)
 *   `D  hash  film`           one line per document (16 hex digits; film index, -1 without a film)
 *   `W  surface  df  spread  [film:df,…]`   one line per surface with df ≥ the header's minDf
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { FilmkwError } from '../errors.js';

export const CORPUS_STATS_FORMAT = 'filmkw-corpus-stats';
export const CORPUS_STATS_VERSION = 1;

/** The statistics of one corpus (see module header). Indices: surfaces k, films j. */
export interface CorpusStats {
  /** Where it came from (a file name, or `self`; never a machine path). */
  readonly source: string;
  /** sha256 hex of the table's text (recorded in a model trained with it). */
  readonly contentHash: string;
  /** Documents counted, and films with at least one document. */
  readonly docs: number;
  readonly films: number;
  /** The surface's index, -1 when its df is below the table's minimum. */
  word(surface: string): number;
  df(k: number): number;
  spread(k: number): number;
  /** A film's index by key ({@link filmKey}), -1 when the corpus has no document of it. */
  filmIndex(key: string): number;
  filmDocs(j: number): number;
  /** Documents of film j that have surface k (0 when not kept: films of one document). */
  filmDf(k: number, j: number): number;
  /** The film index of a document of the table by its text hash ({@link textHash}), -1 without a film, -2 when not in the table. */
  docFilm(hash: string): number;
}

/** The document identity of the table: 16 hex digits of the text's sha256. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The key of a film: its KG entity id when the KG has it, else `name:` + the value as given (trimmed). */
export function filmKey(entityId: string | null, value: string): string {
  return entityId ?? `name:${value.trim()}`;
}

/** Accumulates the documents of a corpus (each a set of distinct surfaces and an optional film key). */
export class CorpusCounter {
  private readonly seen = new Set<string>();
  private readonly films = new Map<string, number>();
  private readonly filmDocCount: number[] = [];
  private readonly docs: { hash: string; film: number }[] = [];
  private readonly words = new Map<string, { df: number; films: Map<number, number> }>();
  /** Documents skipped because the same text was counted already. */
  duplicates = 0;

  /** Count one document; false (and nothing counted) when its text was counted already. */
  add(text: string, surfaces: Iterable<string>, film: string | null): boolean {
    const hash = textHash(text);
    if (this.seen.has(hash)) {
      this.duplicates++;
      return false;
    }
    this.seen.add(hash);
    let j = -1;
    if (film !== null) {
      j = this.films.get(film) ?? -1;
      if (j < 0) {
        j = this.filmDocCount.length;
        this.films.set(film, j);
        this.filmDocCount.push(0);
      }
      this.filmDocCount[j]++;
    }
    this.docs.push({ hash, film: j });
    for (const s of new Set(surfaces)) {
      let w = this.words.get(s);
      if (!w) this.words.set(s, (w = { df: 0, films: new Map() }));
      w.df++;
      if (j >= 0) w.films.set(j, (w.films.get(j) ?? 0) + 1);
    }
    return true;
  }

  get documents(): number {
    return this.docs.length;
  }

  /**
   * The table as text (module header): surfaces with df ≥ `minDf`, in code-unit order; per-film counts
   * for films with ≥ 2 documents; documents by hash. Same counts give the same text.
   */
  serialize(header: Record<string, unknown> = {}, minDf = 2): string {
    const keys = [...this.films.keys()];
    const out: string[] = [JSON.stringify({ format: CORPUS_STATS_FORMAT, version: CORPUS_STATS_VERSION, docs: this.docs.length, films: keys.length, minDf, ...header })];
    keys.forEach((k, j) => out.push(`F\t${k}\t${this.filmDocCount[j]}`));
    for (const d of [...this.docs].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0))) out.push(`D\t${d.hash}\t${d.film}`);
    const surfaces = [...this.words.keys()].filter((s) => this.words.get(s)!.df >= minDf).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const s of surfaces) {
      const w = this.words.get(s)!;
      const per = [...w.films.entries()].filter(([j]) => this.filmDocCount[j] >= 2).sort((a, b) => a[0] - b[0]);
      out.push(`W\t${s}\t${w.df}\t${w.films.size}${per.length > 0 ? `\t${per.map(([j, c]) => `${j}:${c}`).join(',')}` : ''}`);
    }
    return `${out.join('\n')}\n`;
  }
}

/** The table's header (line 1). */
export interface CorpusStatsHeader {
  readonly format: string;
  readonly version: number;
  readonly docs: number;
  readonly films: number;
  readonly minDf: number;
  readonly [key: string]: unknown;
}

/** Parses a table's text (module header); an INPUT error names the file and the line. */
export function parseCorpusStats(text: string, source: string): CorpusStats & { readonly header: CorpusStatsHeader } {
  const bad = (line: number, why: string): never => {
    throw new FilmkwError('INPUT', `${source}:${line}: corpus statistics: ${why}`);
  };
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let header: CorpusStatsHeader;
  try {
    header = JSON.parse(lines[0] ?? '') as CorpusStatsHeader;
  } catch {
    return bad(1, `the first line is not the JSON header of a ${CORPUS_STATS_FORMAT} table (build one with filmkw corpus build)`);
  }
  if (!header || header.format !== CORPUS_STATS_FORMAT || header.version !== CORPUS_STATS_VERSION) bad(1, `not a ${CORPUS_STATS_FORMAT} table of version ${CORPUS_STATS_VERSION}`);
  if (!Number.isInteger(header.docs) || header.docs < 0 || !Number.isInteger(header.films) || header.films < 0) bad(1, 'the header needs integer "docs" and "films"');
  const filmKeys = new Map<string, number>();
  const filmDocs: number[] = [];
  const docs = new Map<string, number>();
  const wordIndex = new Map<string, number>();
  const df: number[] = [];
  const spread: number[] = [];
  const perFilm: Map<number, number>[] = [];
  const int = (v: string | undefined, line: number, what: string, min = 0): number => {
    const x = Number(v);
    if (v === undefined || v === '' || !Number.isInteger(x) || x < min) bad(line, `${what}: expected an integer ≥ ${min}, got ${JSON.stringify(v)}`);
    return x;
  };
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i].split('\t');
    const at = i + 1;
    if (f[0] === 'F' && f.length === 3) {
      filmKeys.set(f[1], filmDocs.length);
      filmDocs.push(int(f[2], at, 'film documents', 1));
    } else if (f[0] === 'D' && f.length === 3 && /^[0-9a-f]{16}$/u.test(f[1])) {
      const j = int(f[2], at, 'document film', -1);
      if (j >= filmDocs.length) bad(at, `film index ${j} is not one of the ${filmDocs.length} films`);
      docs.set(f[1], j);
    } else if (f[0] === 'W' && (f.length === 4 || f.length === 5) && f[1] !== '') {
      wordIndex.set(f[1], df.length);
      df.push(int(f[2], at, 'df', 1));
      spread.push(int(f[3], at, 'spread'));
      const m = new Map<number, number>();
      for (const pair of f.length === 5 ? f[4].split(',') : []) {
        const [j, c] = pair.split(':');
        const jj = int(j, at, 'film index');
        if (jj >= filmDocs.length) bad(at, `film index ${jj} is not one of the ${filmDocs.length} films`);
        m.set(jj, int(c, at, 'film df', 1));
      }
      perFilm.push(m);
    } else bad(at, 'expected an F, D or W line (see src/pipeline/corpus-stats.ts)');
  }
  if (docs.size !== header.docs) bad(1, `the header says ${header.docs} documents, the table lists ${docs.size}`);
  const contentHash = createHash('sha256').update(text).digest('hex');
  return Object.freeze({
    source,
    contentHash,
    header,
    docs: header.docs,
    films: filmDocs.length,
    word: (s: string) => wordIndex.get(s) ?? -1,
    df: (k: number) => df[k],
    spread: (k: number) => spread[k],
    filmIndex: (key: string) => filmKeys.get(key) ?? -1,
    filmDocs: (j: number) => filmDocs[j],
    filmDf: (k: number, j: number) => perFilm[k].get(j) ?? 0,
    docFilm: (hash: string) => docs.get(hash) ?? -2,
  });
}

/** The table's text from a file's bytes: gunzipped when they start with gzip's magic, else UTF-8. */
export function corpusStatsText(bytes: Uint8Array, source: string): string {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return gunzipSync(bytes).toString('utf8');
    } catch (err) {
      throw new FilmkwError('INPUT', `${source}: corpus statistics: not a readable gzip file (${(err as Error).message})`, { cause: err });
    }
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Reads a table file (gzip or plain text); INPUT errors name the file. */
export function loadCorpusStats(path: string): CorpusStats & { readonly header: CorpusStatsHeader } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new FilmkwError('INPUT', `${path}: cannot read the corpus statistics (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  return parseCorpusStats(corpusStatsText(bytes, path), basename(path));
}

/** Path of the table shipped with the package (models/corpus-stats.gz; how it was built: models/README.md). */
export function bundledCorpusStatsPath(): string {
  return fileURLToPath(new URL('../../models/corpus-stats.gz', import.meta.url));
}

let bundled: CorpusStats | null = null;

/** The table shipped with the package, read once per process (thread). */
export function loadBundledCorpusStats(): CorpusStats {
  bundled ??= loadCorpusStats(bundledCorpusStatsPath());
  return bundled;
}
