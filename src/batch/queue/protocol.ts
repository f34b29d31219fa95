/**
 * What a submitter (`filmkw tag --queue`) and the workers (`filmkw worker`) agree on: the queue name, the
 * Redis URL, the job of one chunk, the identity of the code, the KG location, and the job ids.
 *
 * A chunk is a run of consecutive input records (documents and the reader's error records, so that a
 * worker can write every output line of the chunk), numbered from 0 in input order; its job id is
 * `<runId>-<chunk>`, so a resumed run finds its chunks again and adding a chunk twice is a no-op.
 * A worker returns the chunk's output lines, formatted by src/batch/format.ts exactly as a local run
 * writes them, so the submitter only concatenates.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from '../../errors.js';
import type { InputRecord } from '../../io/readers.js';
import type { SegmenterBackend } from '../../lexicon/base.js';

/** Version of the job format below; a worker refuses jobs of another version. */
export const PROTOCOL_VERSION = 1;
/** Name of the BullMQ queue (one per Redis database). */
export const QUEUE_NAME = 'filmkw-tag';

/** Where workers load the KG from (its content hash travels next to it). */
export type KgLocation =
  | { kind: 'demo' }
  | { kind: 'snapshot'; path: string }
  | { kind: 'url'; url: string }
  | { kind: 'neo4j' };

/** Everything that decides the output of a document, besides its text. */
export interface ChunkOptions {
  preset?: string;
  overrides?: Record<string, unknown>;
  backend?: SegmenterBackend;
  topK?: number;
  explain: boolean;
  /** `none`: tag without corpus statistics; absent: the extractor's default (the table shipped with the build). */
  corpusStats?: 'none';
}

/** The data of one chunk job. */
export interface ChunkJob {
  protocol: number;
  /** {@link codeVersion} of the submitter: a worker with another one refuses the job. */
  code: string;
  run: string;
  chunk: number;
  kg: { hash: string; location: KgLocation };
  options: ChunkOptions;
  records: InputRecord[];
}

/** What a worker returns: the chunk's output lines (each ending in "\n"), and who tagged it. */
export interface ChunkResult {
  lines: string;
  worker: string;
  /** The film values of the chunk's records that the KG did not know, one per such record (the submitter reports them once). */
  unknownFilms?: string[];
}

export const jobId = (run: string, chunk: number) => `${run}-${chunk}`;

/** Check a `redis://` / `rediss://` URL (`redis://[user:password@]host:port[/db]`); returns it as given. */
export function checkRedisUrl(raw: string, what = 'tag: --queue'): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw usageError(`${what} must be a Redis URL such as redis://127.0.0.1:6379/0, got ${JSON.stringify(raw)}`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw usageError(`${what} must start with redis:// or rediss://, got ${JSON.stringify(raw)}`);
  if (u.hostname === '') throw usageError(`${what}: no host in ${JSON.stringify(raw)}`);
  const db = u.pathname.replace(/^\//u, '');
  if (db !== '' && !/^\d+$/u.test(db)) throw usageError(`${what}: the database must be a number (redis://host:port/0), got ${JSON.stringify(db)}`);
  return raw;
}

/** The URL without its password, for messages. */
export function showUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return raw;
  }
}

let cachedCode: string | undefined;

/**
 * Identity of the running code: the package version and a hash of every module of the build it runs
 * from (dist/*.js, or src/*.ts under tsx). Two processes tag a document identically when it is equal.
 */
export function codeVersion(): string {
  if (cachedCode) return cachedCode;
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  const h = createHash('sha256');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if ((e.name.endsWith('.js') || e.name.endsWith('.ts')) && !e.name.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(root);
  for (const f of files.sort()) h.update(f.slice(root.length)).update('\0').update(readFileSync(f)).update('\0');
  cachedCode = `${pkg.version}+${h.digest('hex').slice(0, 16)}`;
  return cachedCode;
}

/** The texts of a chunk's documents, and where each goes. */
export function chunkTexts(records: readonly InputRecord[]): string[] {
  const texts: string[] = [];
  for (const r of records) if ('text' in r) texts.push(r.text);
  return texts;
}
