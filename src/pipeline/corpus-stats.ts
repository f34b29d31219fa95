/**
 * Corpus statistics (issue 24 item 2): per candidate surface (a graph word or a phrase candidate of the
 * pipeline), over a corpus of texts, the number of documents that have it as a candidate (document
 * frequency) and the number of distinct films whose texts have it (film spread); per film with at least
 * two documents, the documents of that film that have it (what keyness needs). A word of review talk
 * (五星, 烂片, 剧情) is in the texts of many films; a character's name in those of one; a film's own
 * vocabulary is far more frequent in its texts than in all.
 *
 * Built by `filmkw corpus build` (src/batch/corpus.ts counts the documents through the extractor's
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
 *   `W  surface  df  spread  [film[:df],…]`  one line per surface with df ≥ the header's minDf; the
 *                            per-film counts of the films with ≥ 2 texts: the first film index, then
 *                            steps from the previous one, `:df` only when it is above 1
 * Plain text (tracked files stay small: the shipped table is about 1.9 MB); a gzip-compressed table
 * (`--out FILE.gz`) is read as well.
 */
import * as crypto from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { FilmkwError } from '../errors.js';
import { StringTable } from '../kg/packed.js';
import type { DiskCache } from '../lexicon/cache.js';
import { corpusStatsOf, hashHalves, hashSlots, packCorpusTable, unpackCorpusTable, type CorpusStats, type CorpusStatsHeader, type CorpusTable } from './corpus-pack.js';

export type { CorpusStats, CorpusStatsHeader } from './corpus-pack.js';

export const CORPUS_STATS_FORMAT = 'filmkw-corpus-stats';
export const CORPUS_STATS_VERSION = 1;
/** Surfaces found in fewer texts than this are left out of a table (they read as absent: df 0). */
export const DEFAULT_MIN_DF = 3;


/** Node's one-shot digest (Node ≥ 20.12; the same bytes as a Hash object's, without the object). */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** The document identity of the table: 16 hex digits of the text's sha256. */
export function textHash(text: string): string {
  const hex = oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
  return hex.slice(0, 16);
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
  serialize(header: Record<string, unknown> = {}, minDf = DEFAULT_MIN_DF): string {
    const keys = [...this.films.keys()];
    const out: string[] = [JSON.stringify({ format: CORPUS_STATS_FORMAT, version: CORPUS_STATS_VERSION, docs: this.docs.length, films: keys.length, minDf, ...header })];
    keys.forEach((k, j) => out.push(`F\t${k}\t${this.filmDocCount[j]}`));
    for (const d of [...this.docs].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0))) out.push(`D\t${d.hash}\t${d.film}`);
    const surfaces = [...this.words.keys()].filter((s) => this.words.get(s)!.df >= minDf).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const s of surfaces) {
      const w = this.words.get(s)!;
      const per = [...w.films.entries()].filter(([j]) => this.filmDocCount[j] >= 2).sort((a, b) => a[0] - b[0]);
      // per-film counts: film indices as steps from the previous one (the first from 0), `:count` only above 1
      const list = per.map(([j, c], i) => `${i === 0 ? j : j - per[i - 1][0]}${c > 1 ? `:${c}` : ''}`).join(',');
      out.push(`W\t${s}\t${w.df}\t${w.films.size}${per.length > 0 ? `\t${list}` : ''}`);
    }
    return `${out.join('\n')}\n`;
  }
}


/** Parses a table's text (module header); an INPUT error names the file and the line. */
export function parseCorpusStats(text: string, source: string): CorpusStats & { readonly header: CorpusStatsHeader } {
  return corpusStatsOf(corpusTable(text, source), source);
}

/** The arrays of a table's text (corpus-pack.ts), checked line by line. */
export function corpusTable(text: string, source: string): CorpusTable {
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
  const t = new TableBuilder(lines.length, bad);
  for (let i = 1; i < lines.length; i++) t.line(lines[i], i + 1);
  if (t.docCount !== header.docs) bad(1, `the header says ${header.docs} documents, the table lists ${t.docCount}`);
  return t.table(header, crypto.createHash('sha256').update(text).digest('hex'));
}

/** Integers of a table line, checked (a parse of the digits: no regex, no Number() of a substring per field). */
function intAt(s: string, line: number, what: string, min: number, bad: (line: number, why: string) => never): number {
  const fail = () => bad(line, `${what}: expected an integer ≥ ${min}, got ${JSON.stringify(s)}`);
  const neg = s.charCodeAt(0) === 0x2d;
  if (s.length === (neg ? 1 : 0) || s.length > 10) fail();
  let v = 0;
  for (let i = neg ? 1 : 0; i < s.length; i++) {
    const c = s.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) fail();
    v = v * 10 + c;
  }
  if (neg) v = -v;
  if (v < min) fail();
  return v;
}

/** The arrays of a table, filled line by line (per-film counts in one list, offsets per surface). */
class TableBuilder {
  private readonly filmKeys: string[] = [];
  private readonly filmDocs: number[] = [];
  private readonly docs: { hash: string; film: number }[] = [];
  private readonly words: string[] = [];
  private readonly df: Int32Array<ArrayBuffer>;
  private readonly spread: Int32Array<ArrayBuffer>;
  private readonly perOffsets: Int32Array<ArrayBuffer>;
  private perFilm: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private perCount: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private per = 0;

  constructor(
    lines: number,
    private readonly bad: (line: number, why: string) => never,
  ) {
    this.df = new Int32Array(lines);
    this.spread = new Int32Array(lines);
    this.perOffsets = new Int32Array(lines + 1);
  }

  get docCount(): number {
    return this.docs.length;
  }

  line(l: string, at: number): void {
    const f = l.split('\t');
    const kind = f[0];
    if (kind === 'W' && (f.length === 4 || f.length === 5) && f[1] !== '') this.word(f, at);
    else if (kind === 'D' && f.length === 3 && /^[0-9a-f]{16}$/u.test(f[1])) {
      const j = intAt(f[2], at, 'document film', -1, this.bad);
      if (j >= this.filmDocs.length) this.bad(at, `film index ${j} is not one of the ${this.filmDocs.length} films`);
      this.docs.push({ hash: f[1], film: j });
    } else if (kind === 'F' && f.length === 3) {
      this.filmKeys.push(f[1]);
      this.filmDocs.push(intAt(f[2], at, 'film documents', 1, this.bad));
    } else this.bad(at, 'expected an F, D or W line (see src/pipeline/corpus-stats.ts)');
  }

  private word(f: string[], at: number): void {
    const k = this.words.length;
    this.words.push(f[1]);
    this.df[k] = intAt(f[2], at, 'df', 1, this.bad);
    this.spread[k] = intAt(f[3], at, 'spread', 0, this.bad);
    if (f.length === 5) {
      let j = 0;
      let first = true;
      for (const pair of f[4].split(',')) {
        const colon = pair.indexOf(':');
        // the first film index, then steps (≥ 1) from the previous one; a count of 1 is left out
        j += intAt(colon < 0 ? pair : pair.slice(0, colon), at, 'film index step', first ? 0 : 1, this.bad);
        first = false;
        if (j >= this.filmDocs.length) this.bad(at, `film index ${j} is not one of the ${this.filmDocs.length} films`);
        const c = colon < 0 ? 1 : intAt(pair.slice(colon + 1), at, 'film df', 2, this.bad);
        if (this.per === this.perFilm.length) {
          this.perFilm = grow(this.perFilm);
          this.perCount = grow(this.perCount);
        }
        this.perFilm[this.per] = j;
        this.perCount[this.per++] = c;
      }
    }
    this.perOffsets[k + 1] = this.per;
  }

  table(header: CorpusStatsHeader, contentHash: string): CorpusTable {
    const n = this.words.length;
    const docs = [...this.docs].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    const halves = docs.map((d) => hashHalves(d.hash));
    return {
      header,
      contentHash,
      words: StringTable.from(this.words),
      slots: hashSlots(this.words),
      df: this.df.slice(0, n),
      spread: this.spread.slice(0, n),
      perOffsets: this.perOffsets.slice(0, n + 1),
      perFilm: this.perFilm.slice(0, this.per),
      perCount: this.perCount.slice(0, this.per),
      filmKeys: StringTable.from(this.filmKeys),
      filmDocs: Int32Array.from(this.filmDocs),
      docHi: Uint32Array.from(halves, (h) => h[0]),
      docLo: Uint32Array.from(halves, (h) => h[1]),
      docFilm: Int32Array.from(docs, (d) => d.film),
    };
  }
}

function grow(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
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

/** Where a table file is read from. */
export interface LoadCorpusStatsOptions {
  /** Keep the packed table in this cache, keyed by the file's size, modification time and path (as the IDF table). */
  cache?: DiskCache | null;
}

/**
 * Reads a table file (gzip or plain text): parsed and packed (corpus-pack.ts), or the packed bytes from
 * the cache. INPUT errors name the file.
 */
export function loadCorpusStats(path: string, opts: LoadCorpusStatsOptions = {}): CorpusStats & { readonly header: CorpusStatsHeader } {
  return corpusStatsFromPacked(loadPackedCorpusStats(path, opts), basename(path));
}

/** A packed table (corpus-pack.ts) as lookups; `source` names it in messages and results. */
export function corpusStatsFromPacked(packed: Uint8Array, source: string): CorpusStats & { readonly header: CorpusStatsHeader } {
  return corpusStatsOf(unpackCorpusTable(packed, source), source);
}

/** The packed bytes of a table's text (what a worker thread is handed). */
export function packCorpusStats(text: string, source: string): Uint8Array {
  return packCorpusTable(corpusTable(text, source));
}

/** A table file's packed bytes ({@link loadCorpusStats}). */
export function loadPackedCorpusStats(path: string, opts: LoadCorpusStatsOptions = {}): Uint8Array {
  const failed = (err: unknown) => new FilmkwError('INPUT', `${path}: cannot read the corpus statistics (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  const pack = (): Uint8Array => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (err) {
      throw failed(err);
    }
    return packCorpusTable(corpusTable(corpusStatsText(bytes, path), path));
  };
  if (!opts.cache) return pack();
  let stamp: { path: string; size: number; mtimeMs: number };
  try {
    const st = statSync(path);
    stamp = { path: resolve(path), size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
  } catch (err) {
    throw failed(err);
  }
  return opts.cache.bytes('corpus-stats', 'none', stamp, pack, [import.meta.url, new URL('./corpus-pack.js', import.meta.url).href]).value;
}

/** Path of the table shipped with the package (models/corpus-stats.tsv; how it was built: models/README.md). */
export function bundledCorpusStatsPath(): string {
  return fileURLToPath(new URL('../../models/corpus-stats.tsv', import.meta.url));
}

let bundled: CorpusStats | null = null;

/** The table shipped with the package, read once per process (thread), through the cache when one is given. */
export function loadBundledCorpusStats(opts: LoadCorpusStatsOptions = {}): CorpusStats {
  bundled ??= loadCorpusStats(bundledCorpusStatsPath(), opts);
  return bundled;
}
