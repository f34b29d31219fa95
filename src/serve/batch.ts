/**
 * The batch files of `filmkw serve --files …`: `tag` outputs (JSON lines, src/batch/format.ts), each
 * optionally paired with the input it was made from (`--input`, joined by record id) and a gold file
 * (`--gold`, joined by id). Only these files can be browsed: the API addresses them by their position
 * on the command line, never by a path. They are read once, at start; a bad line is an input error
 * naming the file, line and field.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { inputError } from '../errors.js';
import { readRecords, inferFormat, DEFAULT_TEXT_FIELD } from '../io/readers.js';
import { readGold } from '../eval/readers.js';
import { evaluate, normalizeKeyword } from '../eval/metrics.js';

export interface BatchKeyword {
  word: string;
  score: number;
  kind?: string;
  entityId?: string;
}

export interface BatchRecord {
  /** Position in the tag output (0-based). */
  index: number;
  id: string | null;
  line: number;
  keywords: BatchKeyword[];
  error?: string;
  text?: string;
  gold?: string[];
}

export interface BatchFile {
  name: string;
  records: BatchRecord[];
  /** Whether texts (from `--input`) and gold keywords (from `--gold`) are attached. */
  hasText: boolean;
  hasGold: boolean;
}

export interface BatchOptions {
  /** Tag outputs. */
  files: readonly string[];
  /** The input the tag outputs were made from (jsonl, csv, tsv, txt). */
  input?: string;
  textField?: string;
  /** Id field of the input; absent: the line number (as `filmkw tag` does). */
  idField?: string;
  /** Gold file (jsonl with `id`, `text`, `tag`). */
  gold?: string;
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Parse one tag output (throws FilmkwError('INPUT') naming file, line and field). */
export function parseTagOutput(content: string, file: string): BatchRecord[] {
  const records: BatchRecord[] = [];
  const lines = content.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n].trim();
    if (raw === '') continue;
    const where = `${file}:${n + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw inputError(`serve: ${where}: not a JSON line (expected the output of filmkw tag)`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw inputError(`serve: ${where}: expected a JSON object`);
    const o = value as Record<string, unknown>;
    const id = own(o, 'id') ? o.id : undefined;
    if (id !== null && typeof id !== 'string' && typeof id !== 'number') throw inputError(`serve: ${where}: field "id" must be a string, a number or null`);
    const record: BatchRecord = { index: records.length, id: id === null ? null : String(id), line: n + 1, keywords: [] };
    if (own(o, 'error')) {
      record.error = String(o.error);
      records.push(record);
      continue;
    }
    if (!own(o, 'keywords') || !Array.isArray(o.keywords)) throw inputError(`serve: ${where}: field "keywords" must be an array`);
    for (const [k, item] of (o.keywords as unknown[]).entries()) {
      const kw = item as Record<string, unknown>;
      if (kw === null || typeof kw !== 'object' || !own(kw, 'word') || typeof kw.word !== 'string' || !own(kw, 'score') || typeof kw.score !== 'number') {
        throw inputError(`serve: ${where}: field "keywords[${k}]" must be {"word": string, "score": number, …}`);
      }
      const out: BatchKeyword = { word: kw.word, score: kw.score };
      if (own(kw, 'kind') && typeof kw.kind === 'string') out.kind = kw.kind;
      if (own(kw, 'entityId') && typeof kw.entityId === 'string') out.entityId = kw.entityId;
      record.keywords.push(out);
    }
    records.push(record);
  }
  return records;
}

/** Read the batch files (see module header). */
export async function loadBatch(options: BatchOptions): Promise<BatchFile[]> {
  let texts: Map<string, string> | null = null;
  if (options.input !== undefined) {
    const format = inferFormat(options.input);
    if (!format || format === 'html') throw inputError(`serve: --input ${options.input}: give a .jsonl, .csv, .tsv or .txt file`);
    texts = new Map();
    for await (const r of readRecords(options.input, { format, textField: options.textField ?? DEFAULT_TEXT_FIELD, idField: options.idField })) {
      if ('text' in r) texts.set(r.id, r.text);
    }
  }
  const gold = options.gold === undefined ? null : new Map(readGold(options.gold).map((g) => [g.id, g]));
  const out: BatchFile[] = [];
  for (const file of options.files) {
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch (err) {
      throw inputError(`serve: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, err);
    }
    const records = parseTagOutput(content, file);
    let textHits = 0;
    for (const r of records) {
      if (r.id === null) continue;
      const text = texts?.get(r.id) ?? gold?.get(r.id)?.text;
      if (text !== undefined) r.text = text;
      if (texts?.has(r.id)) textHits++;
      const g = gold?.get(r.id);
      if (g) r.gold = g.gold;
    }
    if (texts && records.length > 0 && textHits === 0) {
      throw inputError(`serve: no record id of ${file} is in --input ${options.input}; pass the --id-field that filmkw tag was given`);
    }
    out.push({ name: basename(file), records, hasText: records.some((r) => r.text !== undefined), hasGold: records.some((r) => r.gold !== undefined) });
  }
  return out;
}

/** Query of `GET /api/batch/:file`. */
export interface BatchQuery {
  offset: number;
  limit: number;
  /** Keep records with a keyword containing this text (after normalisation). */
  keyword?: string;
  /** Keep records with a keyword annotated with one of these entity ids. */
  entities?: ReadonlySet<string>;
}

/**
 * A page of records of one batch file, the most frequent keywords of the filtered records, and, when the
 * file has gold keywords, P/R/F1 of the whole file and of the filtered records (`scores`).
 */
export function queryBatch(file: BatchFile, q: BatchQuery, topN = 30) {
  const needle = q.keyword ? normalizeKeyword(q.keyword) : '';
  const kept = file.records.filter(
    (r) => (!needle || r.keywords.some((k) => normalizeKeyword(k.word).includes(needle))) && (!q.entities || r.keywords.some((k) => k.entityId !== undefined && q.entities!.has(k.entityId))),
  );
  const freq = new Map<string, { word: string; count: number; kind?: string; entityId?: string }>();
  for (const r of kept) {
    for (const k of r.keywords) {
      const f = freq.get(k.word);
      if (f) f.count++;
      else freq.set(k.word, { word: k.word, count: 1, ...(k.kind ? { kind: k.kind } : {}), ...(k.entityId ? { entityId: k.entityId } : {}) });
    }
  }
  const top = [...freq.values()].sort((a, b) => b.count - a.count || (a.word < b.word ? -1 : 1)).slice(0, topN);
  const page = kept.slice(q.offset, q.offset + q.limit).map((r) => {
    if (!r.gold) return r;
    const gold = new Set(r.gold.map(normalizeKeyword));
    return { ...r, hits: r.keywords.filter((k) => gold.has(normalizeKeyword(k.word))).map((k) => k.word) };
  });
  const scores = file.hasGold ? { file: fileScores(file), matched: goldScores(kept) } : undefined;
  return { name: file.name, total: file.records.length, matched: kept.length, offset: q.offset, records: page, top, ...(scores ? { scores } : {}) };
}

/** P, R and F1 of a set of records against their gold keywords (`filmkw eval`'s protocol, src/eval/metrics.ts). */
export interface GoldScores {
  /** Records with gold keywords (error records count, with no keywords). */
  docs: number;
  /** The cut-off: the most keywords a record of the set has (the tag run's top K). */
  k: number;
  macro: { p: number; r: number; f1: number };
  micro: { p: number; r: number; f1: number };
}

const round4 = (x: { p: number; r: number; f1: number }) => ({ p: Math.round(x.p * 1e4) / 1e4, r: Math.round(x.r * 1e4) / 1e4, f1: Math.round(x.f1 * 1e4) / 1e4 });

/** The scores of the records that have gold keywords, at K = the most keywords one of them has; undefined when none has gold. */
export function goldScores(records: readonly BatchRecord[]): GoldScores | undefined {
  const judged = records.filter((r) => r.gold !== undefined).map((r) => ({ id: r.id ?? String(r.line), gold: r.gold!, predicted: r.keywords.map((k) => k.word) }));
  if (judged.length === 0) return undefined;
  const k = Math.max(1, ...judged.map((j) => j.predicted.length));
  const e = evaluate(judged, { ks: [k] });
  return { docs: judged.length, k, macro: round4(e.macro[String(k)]), micro: round4(e.micro[String(k)]) };
}

const fileScoreCache = new WeakMap<BatchFile, GoldScores | undefined>();
/** {@link goldScores} of a whole file, computed once (the files do not change while the viewer runs). */
function fileScores(file: BatchFile): GoldScores | undefined {
  if (!fileScoreCache.has(file)) fileScoreCache.set(file, goldScores(file.records));
  return fileScoreCache.get(file);
}
