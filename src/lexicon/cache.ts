/**
 * On-disk cache of what `createExtractor` derives before it can tag (issue 6, cold start): the exported
 * user dictionary, made ready for the segmenter (src/lexicon/dict.ts `exportUserDict`, about a second for
 * the merged KG (bench/README.md "Figures behind code comments"), most of it jieba's suggest_freq over the
 * base dictionary, then src/lexicon/user-dict.ts
 * `prepareUserDict`), the common-word entity names of the title policy (src/lexicon/title-policy.ts,
 * which needs the parsed base dictionary), and nodejieba's IDF table packed into arrays
 * (src/pipeline/idf.ts, which otherwise parses ~260k lines).
 *
 * A cache is an object passed in ({@link DiskCache}), never process-wide state: the CLI opens the one the
 * environment names ({@link diskCacheFromEnv}: `FILMKW_CACHE_DIR`, else `<os.tmpdir()>/filmkw-cache-<uid>`;
 * `FILMKW_CACHE=off` or `0` for none), a library caller has none unless it passes one.
 *
 * Every entry is a pure function of (KG content, options, backend's base dictionary, our code), so it is
 * keyed by a SHA-256 of:
 * - the KG's content hash (`KgView.contentHash`), the kind of entry and its options (canonical JSON),
 * - the installed versions of @node-rs/jieba and nodejieba (their base dictionaries and IDF table),
 * - a fingerprint of the source of the modules that compute the entry (the caller names them: the
 *   lexicon's own, {@link LEXICON_CODE}, by default), so a code change never reads a stale entry.
 *
 * An entry is one file `<kind>-<key>.json` (a JSON array of strings) or `<kind>-<key>.bin` (bytes) in the
 * cache directory: a first line with the format, the full key and the SHA-256 of the body, padded so
 * that the body starts at a multiple of 8 bytes, then the body. It is written to a temporary file and
 * renamed (atomic: readers see the old entry or the new one, never a torn one), and validated on every
 * read (format, key, body hash, and for strings an array of strings); an entry that fails validation is
 * recomputed and rewritten. The cache never changes a result: a hit returns exactly what the computation
 * returned when the entry was written (tested).
 *
 * The directory is created mode 0700; a directory owned by another user is not used. Failures to
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

/** Modules whose source decides the lexicon's cached values (their URLs, for {@link DiskCache.strings}). */
export const LEXICON_CODE: readonly string[] = Object.freeze(
  ['./dict.js', './base.js', './user-dict.js', './title-policy.js', './cache.js', '../kg/model.js'].map((m) => new URL(m, import.meta.url).href),
);

/**
 * SHA-256 of the source of the modules at `urls` (a `.js` URL is read as the `.ts` file beside it when
 * running from src/) and of the segmenter packages' versions.
 */
function codeFingerprint(urls: readonly string[]): string {
  const h = createHash('sha256');
  const ts = import.meta.url.endsWith('.ts');
  for (const u of urls) {
    const url = ts ? u.replace(/\.js$/u, '.ts') : u;
    h.update(url.slice(url.lastIndexOf('/') + 1));
    try {
      h.update(readFileSync(fileURLToPath(url)));
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
  return h.digest('hex');
}

/**
 * The command line's cache directory: `FILMKW_CACHE_DIR`, else `<os.tmpdir()>/filmkw-cache-<uid>`; null
 * when `FILMKW_CACHE` is off (see module header). Library code never reads the environment: a caller
 * that wants the cache opens one ({@link DiskCache}) and passes it in.
 */
export function cacheDirFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  const flag = (env.FILMKW_CACHE ?? '').toLowerCase();
  if (flag === 'off' || flag === '0' || flag === 'false' || flag === 'no') return null;
  if (env.FILMKW_CACHE_DIR) return env.FILMKW_CACHE_DIR;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'u';
  return join(tmpdir(), `filmkw-cache-${uid}`);
}

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

/** Read and validate an entry; its body, or null if absent or invalid. */
function readEntry(path: string, key: string): Buffer | null {
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
  const body = bytes.subarray(nl + 1);
  if (createHash('sha256').update(body).digest('hex') !== header.sha256) return null;
  return body;
}

/** A strings entry's body: a JSON array of strings, else null. */
function stringsOf(body: Buffer): string[] | null {
  let values: unknown;
  try {
    values = JSON.parse(body.toString('utf8'));
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
 * Keeps the {@link KEEP_PER_KIND} most recently used entries `<kind>-<32 hex>.json|.bin` (a hit refreshes an
 * entry's modification time) and removes the others, the entries of {@link LEGACY_KINDS} and stale
 * temporary files. Best effort: another process may be pruning too.
 */
function pruneDir(dir: string, kind: string): void {
  const entry = /^([a-z][a-z0-9-]*)-[0-9a-f]{32}\.(?:json|bin)$/u;
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
function writeEntry(path: string, key: string, body: Uint8Array): void {
  const header = JSON.stringify({ format: CACHE_FORMAT, key, sha256: createHash('sha256').update(body).digest('hex') });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    // the header line is padded so that the body starts at a multiple of 8 bytes: a packed body read back
    // in a buffer of its own is then used in place by typed-array views (nothing copied)
    const line = Buffer.from(`${header}\n`);
    const pad = (8 - (line.length % 8)) % 8;
    writeFileSync(tmp, Buffer.concat([Buffer.from(header + ' '.repeat(pad) + '\n'), body]), { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      /* nothing to clean */
    }
  }
}

export interface CachedBytes {
  value: Uint8Array;
  source: CachedResult['source'];
}

/**
 * One cache directory (see module header). Values read or computed through an instance are also kept in
 * its memory, so one instance reads an entry from disk once.
 */
export class DiskCache {
  private readonly memo = new Map<string, readonly string[] | Uint8Array>();
  private readonly fingerprints = new Map<string, string>();

  constructor(readonly dir: string) {}

  /**
   * The cached value of `compute()` for (kind, hash, options): from memory, else from disk, else computed
   * and stored. `compute` must be a pure function of the key's parts and of the source of the modules
   * in `code` (URLs; default the lexicon's, {@link LEXICON_CODE}).
   */
  strings(kind: string, hash: string, options: unknown, compute: () => readonly string[], code: readonly string[] = LEXICON_CODE): CachedResult {
    const r = this.entry(kind, 'json', hash, options, code, () => Buffer.from(JSON.stringify(compute())), stringsOf);
    return { values: r.value, source: r.source };
  }

  /** Like {@link strings} for a binary value (e.g. a packed table). */
  bytes(kind: string, hash: string, options: unknown, compute: () => Uint8Array, code: readonly string[]): CachedBytes {
    return this.entry(kind, 'bin', hash, options, code, compute, (b) => b);
  }

  private entry<T extends readonly string[] | Uint8Array>(
    kind: string,
    ext: 'json' | 'bin',
    hash: string,
    options: unknown,
    code: readonly string[],
    compute: () => Uint8Array,
    decode: (body: Buffer) => T | null,
  ): { value: T; source: CachedResult['source'] } {
    if (!/^[a-z][a-z0-9-]*$/u.test(kind)) throw new Error(`cache: bad entry kind ${JSON.stringify(kind)}`);
    const codeKey = code.join('\n');
    let fingerprint = this.fingerprints.get(codeKey);
    if (fingerprint === undefined) this.fingerprints.set(codeKey, (fingerprint = codeFingerprint(code)));
    const key = canonicalJson({ kind, kg: hash, options, code: fingerprint });
    const hit = this.memo.get(key);
    if (hit) return { value: hit as T, source: 'memory' };
    const path = join(this.dir, `${kind}-${createHash('sha256').update(key).digest('hex').slice(0, 32)}.${ext}`);
    const usable = usableDir(this.dir);
    let value: T | null = null;
    let source: CachedResult['source'] = 'computed';
    if (usable) {
      const body = readEntry(path, key);
      value = body && decode(body);
      if (value) {
        source = 'disk';
        touch(path);
      }
    }
    if (value === null) {
      const body = compute();
      value = decode(Buffer.from(body.buffer, body.byteOffset, body.byteLength))!;
      if (usable) {
        writeEntry(path, key, body);
        pruneDir(this.dir, kind);
      }
    }
    this.memo.set(key, value);
    return { value, source };
  }
}

/** The command line's cache ({@link cacheDirFromEnv}), or null when it is off. */
export function diskCacheFromEnv(env: NodeJS.ProcessEnv = process.env): DiskCache | null {
  const dir = cacheDirFromEnv(env);
  return dir === null ? null : new DiskCache(dir);
}

/** `cache.strings(…)`, or `compute()` when there is no cache. */
export function cachedStrings(cache: DiskCache | null, kind: string, hash: string, options: unknown, compute: () => readonly string[]): readonly string[] {
  return cache ? cache.strings(kind, hash, options, compute).values : compute();
}
