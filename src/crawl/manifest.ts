/**
 * The replay manifest: a TSV file with the header `url<TAB>file<TAB>label` (an optional fourth column
 * `content_type`), one saved page per line. `file` is relative to the manifest's folder, or one of the
 * special forms
 *   redirect:<url>          answer 301 with that Location (relative URLs allowed)
 *   status:<code>           answer with that status (e.g. 404, 500) and a short body
 *   slow:<ms>:<file>        serve <file> after waiting <ms> milliseconds
 * `label` is free text for the user (the test web writes `real` or `generated`); the server never sends it.
 * A manifest a user brings may describe any archive of saved pages.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { inputError } from '../errors.js';
import { normalizeUrl, replayKey } from './url.js';

export type ReplayBody =
  | { kind: 'file'; path: string; delayMs: number }
  | { kind: 'redirect'; location: string }
  | { kind: 'status'; status: number };

export interface ManifestEntry {
  url: string;
  key: string;
  body: ReplayBody;
  label: string;
  contentType?: string;
  /** `manifest:line`, for messages. */
  where: string;
}

const HEADER = ['url', 'file', 'label'];

function parseBody(file: string, base: string, where: string): ReplayBody {
  let m = /^redirect:(.+)$/su.exec(file);
  if (m) return { kind: 'redirect', location: m[1] };
  m = /^status:(\d{3})$/u.exec(file);
  if (m) {
    const status = Number(m[1]);
    if (status < 100 || status > 599) throw inputError(`replay: ${where}: field file: status ${status} is not an HTTP status`);
    return { kind: 'status', status };
  }
  if (/^status:/u.test(file)) throw inputError(`replay: ${where}: field file: expected status:<3-digit code>, got ${JSON.stringify(file)}`);
  let delayMs = 0;
  m = /^slow:(\d+):(.+)$/su.exec(file);
  if (m) {
    delayMs = Number(m[1]);
    file = m[2];
  } else if (/^slow:/u.test(file)) throw inputError(`replay: ${where}: field file: expected slow:<ms>:<file>, got ${JSON.stringify(file)}`);
  return { kind: 'file', path: isAbsolute(file) ? file : resolve(base, file), delayMs };
}

/** Reads one manifest; a bad line is an INPUT error naming file:line and field. */
export function readManifest(path: string): ManifestEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw inputError(`replay: ${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`, err);
  }
  const lines = text.split(/\r?\n/u);
  const head = (lines[0] ?? '').replace(/^\uFEFF/u, '').split('\t');
  if (HEADER.some((h, i) => head[i] !== h)) {
    throw inputError(`replay: ${path}:1: expected the header "url<TAB>file<TAB>label[<TAB>content_type]", got ${JSON.stringify(lines[0]?.slice(0, 80) ?? '')}`);
  }
  const base = dirname(path);
  const out: ManifestEntry[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '' || line.startsWith('#')) continue;
    const where = `${path}:${i + 1}`;
    const f = line.split('\t');
    if (f.length < 3) throw inputError(`replay: ${where}: expected 3 or 4 tab-separated fields (url, file, label[, content_type]), got ${f.length}`);
    const n = normalizeUrl(f[0]);
    if ('error' in n) throw inputError(`replay: ${where}: field url: ${n.error}`);
    if (f[1].trim() === '') throw inputError(`replay: ${where}: field file is empty`);
    out.push({ url: n.url, key: replayKey(n.url), body: parseBody(f[1], base, where), label: f[2], ...(f[3] ? { contentType: f[3] } : {}), where });
  }
  return out;
}
