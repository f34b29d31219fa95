/**
 * Every job taken from Redis is untrusted input (issue 26): anyone who can write to the queue's Redis
 * database can plant one. A worker validates the whole payload against {@link chunkJobSchema} (zod)
 * before it reads a single field, and refuses a job that does not match with the path of the first bad
 * field; the job fails alone and the worker goes on with the next. The same goes the other way: the
 * submitter checks every chunk result ({@link checkChunkLines}) before it writes anything.
 *
 * What a job may hold (README "Many machines"): the KG's content hash (64 lower-case hex digits, the
 * SHA-256 of src/kg/store.ts), a KG location that is the bundled demo KG, Neo4j, an absolute path of a
 * snapshot file, or an http(s) URL; options of the tag pipeline (validated again by resolveOptions,
 * which refuses prototype keys); and 1 to {@link MAX_CHUNK_DOCS} records, each a document
 * `{line, id, text}` or a reader's error record `{line, id?, error}`.
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { SEGMENTER_BACKENDS } from '../../lexicon/base.js';
import type { InputRecord } from '../../io/readers.js';
import { PROTOCOL_VERSION, type ChunkJob, type ChunkOptions } from './protocol.js';

/** Most records in one chunk (the submitter's `--chunk-docs` bound). */
export const MAX_CHUNK_DOCS = 10_000;
/** Longest record id, characters. */
export const MAX_ID_CHARS = 65_536;
/** Longest text of one record, characters (the readers' largest `--max-record-bytes`). */
export const MAX_TEXT_CHARS = 1 << 30;

const scalar = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);
const optionValue = z.union([scalar, z.array(scalar).max(1000), z.record(z.string().max(200), z.union([scalar, z.array(scalar).max(1000)]))]);

const location = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('demo') }),
  z.strictObject({ kind: z.literal('neo4j') }),
  z.strictObject({
    kind: z.literal('snapshot'),
    path: z
      .string()
      .min(1)
      .max(4096)
      .refine((p) => isAbsolute(p) && !p.includes('\0'), 'must be an absolute path'),
  }),
  z.strictObject({
    kind: z.literal('url'),
    url: z
      .string()
      .max(2048)
      .refine((u) => URL.canParse(u) && /^https?:$/u.test(new URL(u).protocol), 'must be an http(s) URL'),
  }),
]);

const record = z.union([
  z.strictObject({ line: z.int().min(1), id: z.string().max(MAX_ID_CHARS), text: z.string().max(MAX_TEXT_CHARS), film: z.string().max(MAX_ID_CHARS).optional(), title: z.string().max(MAX_ID_CHARS).optional() }),
  z.strictObject({ line: z.int().min(1), id: z.string().max(MAX_ID_CHARS).optional(), error: z.string().max(100_000) }),
]);

/** The schema of a chunk job (protocol.ts `ChunkJob`). */
export const chunkJobSchema = z.strictObject({
  protocol: z.literal(PROTOCOL_VERSION),
  code: z.string().regex(/^[\w.+-]{1,200}$/u),
  run: z.string().regex(/^[0-9a-f]{12}$/u),
  chunk: z.int().min(0).max(1e9),
  kg: z.strictObject({ hash: z.string().regex(/^[0-9a-f]{64}$/u, 'must be 64 lower-case hex digits'), location }),
  options: z.strictObject({
    preset: z.string().max(200).optional(),
    overrides: z.record(z.string().max(200), optionValue).refine((o) => Object.keys(o).length <= 1000, 'too many overrides').optional(),
    backend: z.enum(SEGMENTER_BACKENDS).optional(),
    topK: z.int().min(1).max(1000).optional(),
    explain: z.boolean(),
    corpusStats: z.literal('none').optional(),
  }),
  records: z.array(record).min(1).max(MAX_CHUNK_DOCS),
});

/**
 * The schema and protocol.ts's `ChunkJob` describe the same data: what the schema accepts is a
 * `ChunkJob`, and both name the same fields (of the job, its options and its records), so a field added
 * to one and not the other fails the type check here, not a run.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Keys<T> = T extends unknown ? keyof T : never;
type Parsed = z.infer<typeof chunkJobSchema>;
const schemaMatchesProtocol: [Parsed extends ChunkJob ? true : false, Same<keyof Parsed, keyof ChunkJob>, Same<keyof Parsed['options'], keyof ChunkOptions>, Same<Keys<Parsed['records'][number]>, Keys<InputRecord>>] = [true, true, true, true];
void schemaMatchesProtocol;

/** The job, or why it does not match the schema (the first problem, with its field path). */
export function parseChunkJob(data: unknown): { job: ChunkJob } | { reason: string } {
  const r = chunkJobSchema.safeParse(data);
  if (r.success) return { job: r.data as ChunkJob };
  const issue = r.error.issues[0];
  const path = issue.path.length > 0 ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./u, '') : '(the job)';
  return { reason: `malformed job: ${path}: ${issue.message}` };
}

/**
 * Why the output lines of a chunk are not what a worker must return for `records` (one JSON line per
 * record, in order, each with the record's id, a document with `keywords`, an error record with its
 * line and error), or null when they are. The submitter writes nothing of a chunk that fails this.
 */
export function checkChunkResult(result: { lines?: unknown; unknownFilms?: unknown }, records: readonly InputRecord[]): string | null {
  const films = result.unknownFilms;
  if (films !== undefined && !(Array.isArray(films) && films.length <= records.length && films.every((f) => typeof f === 'string' && f.length <= MAX_ID_CHARS))) {
    return '"unknownFilms" is not a list of at most one film per record';
  }
  return checkChunkLines(result.lines, records);
}

/** {@link checkChunkResult}'s check of the output lines. */
export function checkChunkLines(lines: unknown, records: readonly InputRecord[]): string | null {
  if (typeof lines !== 'string') return 'the result has no output lines';
  if (records.length === 0) return lines === '' ? null : 'output for an empty chunk';
  if (!lines.endsWith('\n')) return 'the output does not end with a newline';
  const list = lines.slice(0, -1).split('\n');
  if (list.length !== records.length) return `${list.length} output lines for ${records.length} records`;
  for (let k = 0; k < list.length; k++) {
    const why = checkLine(list[k], records[k]);
    if (why) return `output line ${k + 1} (input line ${records[k].line}): ${why}`;
  }
  return null;
}

function checkLine(text: string, rec: InputRecord): string | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).join(',');
  if (o.id !== (rec.id ?? null)) return `id ${JSON.stringify(o.id)} instead of ${JSON.stringify(rec.id ?? null)}`;
  if (keys === 'id,keywords') {
    if (!('text' in rec)) return 'keywords for an input error record';
    if (!Array.isArray(o.keywords) || !o.keywords.every((k) => k !== null && typeof k === 'object' && typeof (k as { word?: unknown }).word === 'string' && typeof (k as { score?: unknown }).score === 'number')) {
      return '"keywords" is not a list of {word, score}';
    }
    return null;
  }
  if (keys === 'id,line,error') {
    if (o.line !== rec.line) return `line ${JSON.stringify(o.line)} instead of ${rec.line}`;
    if (typeof o.error !== 'string') return '"error" is not a string';
    if ('error' in rec && o.error !== rec.error) return 'the error of an input error record was changed';
    return null;
  }
  return `unexpected fields (${keys})`;
}
