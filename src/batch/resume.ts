/**
 * Checkpoints of `filmkw tag --out FILE` and `--resume`.
 *
 * A sidecar `<out>.progress.json` records, after each flushed batch of complete output lines:
 * the identity of the input (absolute path, size, mtime and the sha256 of its content: an input edited in
 * place with the same size and a restored mtime is refused too), the identity of the run's options (everything
 * that changes the output: format, fields, pipeline options, KG content hash, top K, explain...), the
 * number of input records done, and the byte length of the output file after the last complete line.
 * Order of a checkpoint: write the lines → fsync the output → write the sidecar to a temp file → fsync
 * → rename over the old sidecar. So the sidecar never claims more than what is durably in the output,
 * whatever the moment the process is killed.
 *
 * On `--resume`: the sidecar is read and checked against the current input and options (a change is
 * refused with a message saying what changed), the output is truncated to the recorded length (dropping
 * a partial last line), and the first `records` input records are skipped. The finished run removes the
 * sidecar.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { FilmkwError, usageError } from '../errors.js';
import { canonicalJson } from '../util/canonical-json.js';
import { HTML_PAGE, walkFiles } from '../util/files.js';

export const PROGRESS_FORMAT = 'filmkw-tag-progress';
export const PROGRESS_VERSION = 2;

/** Identity of the input file. */
export interface InputIdentity {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha256 of the content (hex). */
  sha256: string;
}

/** Contents of `<out>.progress.json`. */
export interface ProgressFile {
  format: typeof PROGRESS_FORMAT;
  version: number;
  input: InputIdentity;
  /** sha256 of the canonical run identity (options). */
  optionsHash: string;
  /** The run identity itself, flattened to `key: canonical JSON`, to say what changed. */
  options: Record<string, string>;
  /** Input records whose output lines are in the first `outBytes` bytes. */
  records: number;
  outBytes: number;
  updatedAt: string;
}

export const progressPath = (out: string) => `${out}.progress.json`;

/** Identity of an input file: path, size, mtime and content hash (one sequential read of the file). */
export async function inputIdentity(path: string): Promise<InputIdentity> {
  const st = statSync(path);
  if (st.isDirectory()) return folderIdentity(path);
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return { path: resolve(path), size: st.size, mtimeMs: Math.trunc(st.mtimeMs), sha256: h.digest('hex') };
}

/**
 * Identity of a folder of pages (`--format html`): the pages the reader lists (walkFiles, `*.html`/`*.htm`),
 * their summed size, the latest modification time, and the sha256 of each page's relative path and content
 * in reading order (a page added, removed, renamed or edited changes it).
 */
async function folderIdentity(dir: string): Promise<InputIdentity> {
  const h = createHash('sha256');
  let size = 0;
  let mtimeMs = Math.trunc(statSync(dir).mtimeMs);
  const pages = walkFiles(dir, { filter: (name) => HTML_PAGE.test(name) }).sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  for (const p of pages) {
    h.update(`${p.rel}\0${p.problem ?? ''}\0`);
    if (p.problem) continue;
    const st = statSync(p.path);
    size += st.size;
    mtimeMs = Math.max(mtimeMs, Math.trunc(st.mtimeMs));
    for await (const chunk of createReadStream(p.path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  }
  return { path: resolve(dir), size, mtimeMs, sha256: h.digest('hex') };
}

/** Flatten nested objects to dotted keys (arrays are leaves), values as canonical JSON. */
export function flattenIdentity(v: Record<string, unknown>, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const k of Object.keys(v).sort()) {
    const x = v[k];
    if (x === undefined) continue;
    const key = prefix ? `${prefix}.${k}` : k;
    if (x !== null && typeof x === 'object' && !Array.isArray(x)) flattenIdentity(x as Record<string, unknown>, key, out);
    else out[key] = canonicalJson(x);
  }
  return out;
}

export function optionsHash(flat: Record<string, string>): string {
  return createHash('sha256').update(canonicalJson(flat)).digest('hex');
}

/** Write the sidecar atomically and durably. */
export function writeProgress(out: string, p: ProgressFile): void {
  const path = progressPath(out);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(p, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function removeProgress(out: string): void {
  rmSync(progressPath(out), { force: true });
  rmSync(`${progressPath(out)}.tmp`, { force: true });
}

/** Read the sidecar; null if absent. Throws FilmkwError('INPUT') if unreadable. */
export function readProgress(out: string): ProgressFile | null {
  const path = progressPath(out);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new FilmkwError('INPUT', `tag: cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  let p: ProgressFile;
  try {
    p = JSON.parse(text) as ProgressFile;
  } catch (err) {
    throw new FilmkwError('INPUT', `tag: ${path} is not a valid progress file (${(err as Error).message}); delete it and run without --resume`);
  }
  if (p?.format !== PROGRESS_FORMAT || p.version !== PROGRESS_VERSION || !Number.isInteger(p.records) || !Number.isInteger(p.outBytes)) {
    throw new FilmkwError('INPUT', `tag: ${path} is not a filmkw tag progress file (version ${PROGRESS_VERSION}); delete it and run without --resume`);
  }
  return p;
}

/**
 * Check a saved checkpoint against the current run; throws a usage error saying what changed.
 * Returns the checkpoint to continue from.
 */
export function checkResume(out: string, saved: ProgressFile, input: InputIdentity, options: Record<string, string>): { records: number; outBytes: number } {
  const changes: string[] = [];
  if (saved.input.path !== input.path) changes.push(`input path ${saved.input.path} → ${input.path}`);
  if (saved.input.size !== input.size) changes.push(`input size ${saved.input.size} → ${input.size} bytes`);
  if (saved.input.mtimeMs !== input.mtimeMs) changes.push(`input modified ${new Date(saved.input.mtimeMs).toISOString()} → ${new Date(input.mtimeMs).toISOString()}`);
  if (changes.length === 0 && saved.input.sha256 !== input.sha256) changes.push(`input content differs (sha256 ${String(saved.input.sha256).slice(0, 12)}… → ${input.sha256.slice(0, 12)}…) although size and modification time are the same`);
  if (changes.length > 0) throw usageError(`tag: --resume: the input changed since the interrupted run (${changes.join('; ')}); run without --resume to start over`);
  if (optionsHash(options) !== saved.optionsHash) {
    const keys = [...new Set([...Object.keys(saved.options ?? {}), ...Object.keys(options)])].sort();
    const diff = keys.filter((k) => saved.options?.[k] !== options[k]).map((k) => `${k}: ${saved.options?.[k] ?? '(none)'} → ${options[k] ?? '(none)'}`);
    throw usageError(`tag: --resume: the options differ from the interrupted run (${diff.slice(0, 8).join('; ') || 'options hash differs'}); use the same options, or run without --resume to start over`);
  }
  let size: number;
  try {
    size = statSync(out).size;
  } catch {
    throw usageError(`tag: --resume: ${out} is missing but ${progressPath(out)} says ${saved.records} records were done; run without --resume to start over`);
  }
  if (size < saved.outBytes) {
    throw usageError(`tag: --resume: ${out} has ${size} bytes, fewer than the ${saved.outBytes} of the last checkpoint (was it modified?); run without --resume to start over`);
  }
  return { records: saved.records, outBytes: saved.outBytes };
}
