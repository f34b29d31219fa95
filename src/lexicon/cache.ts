/**
 * On-disk cache of what `createExtractor` derives from a KG before it can tag (issue 6, cold start):
 * the exported user dictionary, made ready for the segmenter (src/lexicon/dict.ts `exportUserDict`, ~1.2 s
 * for the merged KG, most of it jieba's suggest_freq over the base dictionary, then
 * src/lexicon/user-dict.ts `prepareUserDict`) and the common-word entity names of the title
 * policy (src/lexicon/title-policy.ts, which needs the parsed base dictionary, ~0.3 s); and the mean
 * of nodejieba's IDF table (src/pipeline/idf.ts, which otherwise parses ~260k lines on a cold start).
 *
 * All three are pure functions of (KG content, options, backend's base dictionary, our code), so an
 * entry is keyed by a SHA-256 of:
 * - the KG's content hash (`KgView.contentHash`), the kind of entry and its options (canonical JSON),
 * - the backend and the installed versions of @node-rs/jieba and nodejieba (their base dictionaries),
 * - a fingerprint of the source of the modules that compute the entries (`CODE`: dict, model
 *   normalisation, title policy, segment and its common rules, idf, this module), so a code change
 *   never reads a stale entry.
 *
 * An entry is one file `<kind>-<key>.json` in the cache directory: a first line with the format, the
 * full key and the SHA-256 of the body, then the body (a JSON array of strings). It is written to a
 * temporary file and renamed (atomic: readers see the old entry or the new one, never a torn one), and
 * validated on every read (format, key, body hash, array of strings); an entry that fails validation is
 * recomputed and rewritten. The cache never changes a result: a hit returns exactly what the
 * computation returned when the entry was written (tested).
 *
 * Directory: `FILMKW_CACHE_DIR`, else `<os.tmpdir()>/filmkw-cache-<uid>` (created mode 0700; a directory
 * owned by another user is not used). `FILMKW_CACHE=off` (or `0`) disables the cache. Failures to
 * create, read or write the cache are never errors: the entry is computed as without a cache.
 * Each write keeps the {@link KEEP_PER_KIND} most recently used entries of its kind (a hit refreshes the
 * entry's modification time) and removes the older ones (other KGs, options or versions), entries of
 * kinds no version reads any more, and temporary files a killed writer left over an hour ago, so the
 * directory does not grow without bound.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../util/canonical-json.js';

/** First token of an entry's header line; bump the number when the layout changes. */
export const CACHE_FORMAT = 'filmkw-kg-derived-cache 1';

/** Entries of one kind kept in the directory (the most recently used); older ones are removed on write. */
export const KEEP_PER_KIND = 8;

/** Modules whose source decides the cached values (relative to this module). */
const CODE = ['./dict', '../kg/model', './title-policy', './base', './user-dict', '../pipeline/segment', '../pipeline/idf', './cache'];

let fingerprint: string | null = null;

/** SHA-256 of the deciding modules' source and of the segmenter packages' versions (once per process). */
export function codeFingerprint(): string {
  if (fingerprint !== null) return fingerprint;
  const h = createHash('sha256');
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  for (const m of CODE) {
    h.update(m);
    try {
      h.update(readFileSync(fileURLToPath(new URL(`${m}${ext}`, import.meta.url))));
    } catch {
      h.update(`missing:${Math.random()}`); // unknown code: never reuse an entry
    }
  }
  const require = createRequire(import.meta.url);
  for (const pkg of ['@node-rs/jieba/package.json', 'nodejieba/package.json']) {
    try {
      h.update(`${pkg}@${(require(pkg) as { version: string }).version}`);
    } catch {
      h.update(`${pkg}@unknown`);
    }
  }
  fingerprint = h.digest('hex');
  return fingerprint;
}

/** The cache directory, or null when the cache is off (see module header). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const flag = (env.FILMKW_CACHE ?? '').toLowerCase();
  if (flag === 'off' || flag === '0' || flag === 'false' || flag === 'no') return null;
  if (env.FILMKW_CACHE_DIR) return env.FILMKW_CACHE_DIR;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'u';
  return join(tmpdir(), `filmkw-cache-${uid}`);
}

/** In-process memo: the same entry is read (or computed) once per process. */
const memo = new Map<string, readonly string[]>();

export interface CachedResult {
  values: readonly string[];
  /** Where the values came from. */
  source: 'memory' | 'disk' | 'computed';
}

/** Marks an entry as just used (pruning keeps the most recently used ones); failures are ignored. */
function touch(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    /* read-only cache: the entry is still valid */
  }
}

function usableDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    if (!st.isDirectory()) return false;
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return false;
    return true;
  } catch {
    return false;
  }
}

/** Read and validate an entry; null if absent or invalid. */
function readEntry(path: string, key: string): string[] | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  const nl = bytes.indexOf(0x0a);
  if (nl < 0) return null;
  let header: { format?: unknown; key?: unknown; sha256?: unknown };
  try {
    header = JSON.parse(bytes.toString('utf8', 0, nl)) as typeof header;
  } catch {
    return null;
  }
  if (header.format !== CACHE_FORMAT || header.key !== key || typeof header.sha256 !== 'string') return null;
  // the digest is over the body's UTF-8 bytes, as written: hashed as read, decoded once
  if (createHash('sha256').update(bytes.subarray(nl + 1)).digest('hex') !== header.sha256) return null;
  let values: unknown;
  try {
    values = JSON.parse(bytes.toString('utf8', nl + 1));
  } catch {
    return null;
  }
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) return null;
  return values as string[];
}

/** Entry kinds earlier versions wrote and nothing reads any more (removed by the next write). */
const LEGACY_KINDS = ['userdict'];
/** A temporary file of a write, `<entry>.<pid>.<random>.tmp`, is left only by a killed writer; removed when this old. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Keeps the {@link KEEP_PER_KIND} most recently used entries `<kind>-<32 hex>.json` (a hit refreshes an
 * entry's modification time) and removes the others, the entries of {@link LEGACY_KINDS} and stale
 * temporary files. Best effort: another process may be pruning too.
 */
function pruneDir(dir: string, kind: string): void {
  const entry = /^([a-z][a-z0-9-]*)-[0-9a-f]{32}\.json$/u;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // an unreadable directory: nothing to prune
  }
  const mtime = (n: string): number | null => {
    try {
      return statSync(join(dir, n)).mtimeMs;
    } catch {
      return null; // removed meanwhile
    }
  };
  const remove = (n: string) => {
    try {
      unlinkSync(join(dir, n));
    } catch {
      /* already gone */
    }
  };
  const mine: { n: string; t: number }[] = [];
  const now = Date.now();
  for (const n of names) {
    const m = entry.exec(n);
    if (m && m[1] === kind) {
      const t = mtime(n);
      if (t !== null) mine.push({ n, t });
    } else if (m && LEGACY_KINDS.includes(m[1])) remove(n);
    else if (n.endsWith('.tmp') && entry.test(n.replace(/\.\d+\.[0-9a-z]+\.tmp$/u, ''))) {
      const t = mtime(n);
      if (t !== null && now - t > STALE_TEMP_MS) remove(n);
    }
  }
  mine.sort((a, b) => b.t - a.t || (a.n < b.n ? -1 : 1));
  for (const e of mine.slice(KEEP_PER_KIND)) remove(e.n);
}

/** Write an entry atomically (temporary file + rename); failures are ignored. */
function writeEntry(path: string, key: string, values: readonly string[]): void {
  const body = JSON.stringify(values);
  const header = JSON.stringify({ format: CACHE_FORMAT, key, sha256: createHash('sha256').update(body).digest('hex') });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(tmp, `${header}\n${body}`, { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      /* nothing to clean */
    }
  }
}

/**
 * The cached value of `compute()` for (kind, kgHash, options), computing and storing it on a miss.
 * `compute` must be a pure function of the key's parts and the code named in the module header.
 */
export function cachedStrings(kind: string, kgHash: string, options: unknown, compute: () => readonly string[], env: NodeJS.ProcessEnv = process.env): CachedResult {
  if (!/^[a-z][a-z0-9-]*$/u.test(kind)) throw new Error(`dict-cache: bad entry kind ${JSON.stringify(kind)}`);
  const key = canonicalJson({ kind, kg: kgHash, options, code: codeFingerprint() });
  const id = createHash('sha256').update(key).digest('hex').slice(0, 32);
  const dir = cacheDir(env);
  const memoKey = `${dir ?? ''}\u0000${key}`;
  const hit = memo.get(memoKey);
  if (hit) return { values: hit, source: 'memory' };
  let values: readonly string[] | null = null;
  let source: CachedResult['source'] = 'computed';
  const path = dir !== null ? join(dir, `${kind}-${id}.json`) : null;
  if (path !== null && dir !== null && usableDir(dir)) {
    values = readEntry(path, key);
    if (values) {
      source = 'disk';
      touch(path);
    }
  }
  if (values === null) {
    values = compute();
    if (path !== null && dir !== null && usableDir(dir)) {
      writeEntry(path, key, values);
      pruneDir(dir, kind);
    }
  }
  memo.set(memoKey, values);
  return { values, source };
}

/** Forget the in-process memo (tests). */
export function clearMemo(): void {
  memo.clear();
}
