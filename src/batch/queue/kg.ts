/**
 * The KG of a queue run: the submitter describes it (content hash + a location every worker can read),
 * each worker turns the description into a snapshot file for its thread pool and checks the hash.
 *
 * Locations: a snapshot file (`--kg FILE`: the same absolute path on every machine, e.g. a shared file
 * system, or a local copy given to the worker with `filmkw worker --kg FILE`), an http(s) URL
 * (`--kg https://…/kg.fkg`, downloaded once per worker and cached by content hash), Neo4j (`--neo4j`,
 * each worker reads it with its own NEO4J_* settings), or the bundled demo KG. A CSV directory is
 * refused: workers on other machines cannot load it the same way.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FilmkwError, inputError, usageError } from '../../errors.js';
import { MAX_SNAPSHOT_BYTES, readSnapshotHeader, SNAPSHOT_MAGIC } from '../../kg/snapshot.js';
import { loadTagKg, prepareWorkerKg } from '../kg-source.js';
import type { KgLocation } from './protocol.js';

const isUrl = (s: string) => /^https?:\/\//iu.test(s);

/** TLS errors of a server whose certificate chain does not lead to a trusted CA (OpenSSL codes, as Node reports them). */
const UNTRUSTED_ISSUER = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']);

/**
 * Why a fetch failed, in one line. Node's fetch says only "fetch failed"; the reason (refused connection,
 * DNS, TLS) is its `cause`. An untrusted certificate gets the way to trust a private CA: Node reads
 * NODE_EXTRA_CA_CERTS (a PEM file of extra CA certificates) at process start, and its fetch uses it.
 */
function fetchFailure(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  const code = typeof cause === 'object' && cause !== null && typeof (cause as { code?: unknown }).code === 'string' ? (cause as { code: string }).code : undefined;
  const message = cause instanceof Error ? cause.message : (err as Error).message;
  const text = code && !message.includes(code) ? `${message} (${code})` : message;
  if (code && UNTRUSTED_ISSUER.has(code)) {
    const extra = process.env.NODE_EXTRA_CA_CERTS;
    return `${text}: the server's certificate is not signed by a trusted CA; ${extra ? `NODE_EXTRA_CA_CERTS=${extra} does not cover it` : 'for a private CA, start filmkw with NODE_EXTRA_CA_CERTS=/path/to/ca.pem'}`;
  }
  return text;
}

/**
 * Bounds of a KG download (submitter and workers alike): the snapshot bound of src/kg/snapshot.ts, a
 * deadline for the whole transfer, and the snapshot's magic bytes checked on the first bytes received, so
 * a URL that serves anything else (a 3 GB file, an HTML page) is dropped at once instead of after the whole
 * body. The deadline can be changed with FILMKW_KG_DOWNLOAD_TIMEOUT_MS.
 */
export const KG_DOWNLOAD = Object.freeze({ maxBytes: MAX_SNAPSHOT_BYTES, timeoutMs: 600_000 });

function downloadTimeoutMs(): number {
  const raw = process.env.FILMKW_KG_DOWNLOAD_TIMEOUT_MS;
  if (raw === undefined || raw === '') return KG_DOWNLOAD.timeoutMs;
  const n = Number(raw);
  if (!/^\d+$/u.test(raw) || n < 1) throw usageError(`FILMKW_KG_DOWNLOAD_TIMEOUT_MS must be a positive integer (milliseconds), got ${JSON.stringify(raw)}`);
  return n;
}

/** The body of `res`, checked as it streams: magic bytes first, then the size bound. */
async function* checkedBody(res: Response, url: string): AsyncGenerator<Buffer> {
  let seen = 0;
  let head = Buffer.alloc(0);
  for await (const part of Readable.fromWeb(res.body as import('node:stream/web').ReadableStream)) {
    const chunk = part as Buffer;
    seen += chunk.length;
    if (seen > KG_DOWNLOAD.maxBytes) throw inputError(`KG ${url}: download stopped: more than ${KG_DOWNLOAD.maxBytes} bytes, the bound of a snapshot`);
    if (head.length < SNAPSHOT_MAGIC.length) {
      head = Buffer.concat([head, chunk]);
      if (head.length >= SNAPSHOT_MAGIC.length && head.toString('latin1', 0, SNAPSHOT_MAGIC.length) !== SNAPSHOT_MAGIC) {
        throw inputError(`KG ${url}: not a filmkw KG snapshot (it starts with ${JSON.stringify(head.toString('latin1', 0, 8))}, not ${SNAPSHOT_MAGIC}); download stopped`);
      }
    }
    yield chunk;
  }
}

/** Download a snapshot to `file` (via a temporary name, so a partial download is never used), within {@link KG_DOWNLOAD}. */
async function download(url: string, file: string): Promise<void> {
  const timeoutMs = downloadTimeoutMs();
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = () => inputError(`KG ${url}: download stopped: not complete after ${timeoutMs} ms (FILMKW_KG_DOWNLOAD_TIMEOUT_MS)`);
  let res: Response;
  try {
    res = await fetch(url, { signal, redirect: 'follow' });
  } catch (err) {
    if (signal.aborted) throw timedOut();
    throw inputError(`KG ${url}: download failed: ${fetchFailure(err)}`, err);
  }
  if (!res.ok || !res.body) throw inputError(`KG ${url}: download failed: HTTP ${res.status}`);
  const length = Number(res.headers.get('content-length') ?? NaN);
  if (length > KG_DOWNLOAD.maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw inputError(`KG ${url}: ${length} bytes, over the ${KG_DOWNLOAD.maxBytes}-byte bound of a snapshot; not downloaded`);
  }
  const tmp = `${file}.${process.pid}.part`;
  try {
    await pipeline(checkedBody(res, url), createWriteStream(tmp));
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    if (signal.aborted) throw timedOut();
    if (err instanceof FilmkwError) throw err;
    throw inputError(`KG ${url}: download failed: ${(err as Error).message}`, err);
  }
}

/** `name` inside the download cache; throws if it would resolve outside it (never delete or write elsewhere). */
function inCache(name: string): string {
  const dir = resolve(cacheDir());
  const file = resolve(dir, name);
  if (dirname(file) !== dir) throw new Refusal(`refusing the cache file name ${JSON.stringify(name)} (outside the cache)`);
  return file;
}

const cacheDir = () => join(process.env.FILMKW_CACHE_DIR ?? join(tmpdir(), `filmkw-cache-${process.getuid?.() ?? 'u'}`), 'queue-kg');

/** The submitter's side: the KG's content hash and where the workers find it. */
export async function describeKg(opts: { kg?: string; neo4j?: boolean; onProgress?: (m: string) => void }): Promise<{ hash: string; location: KgLocation; source: string }> {
  if (opts.kg !== undefined && opts.neo4j) throw usageError('tag: give --kg or --neo4j, not both');
  if (opts.kg !== undefined && isUrl(opts.kg)) {
    mkdirSync(cacheDir(), { recursive: true });
    const file = inCache(`submit-${process.pid}.fkg`);
    try {
      await download(opts.kg, file);
      return { hash: (await readSnapshotHeader(file)).contentHash, location: { kind: 'url', url: opts.kg }, source: opts.kg };
    } catch (err) {
      if (err instanceof FilmkwError) throw new FilmkwError(err.code, `tag: ${err.message}`);
      throw err;
    } finally {
      rmSync(file, { force: true });
    }
  }
  if (opts.kg !== undefined) {
    if (!existsSync(opts.kg)) throw inputError(`tag: KG not found: ${opts.kg}`);
    if (!statSync(opts.kg).isFile()) {
      throw usageError(`tag: --queue needs the KG as a snapshot file or URL the workers can read (kg import --out FILE), not the directory ${opts.kg}`);
    }
    const path = resolve(opts.kg);
    return { hash: (await readSnapshotHeader(path)).contentHash, location: { kind: 'snapshot', path }, source: opts.kg };
  }
  const kg = await loadTagKg({ neo4j: opts.neo4j, onProgress: opts.onProgress });
  return { hash: kg.store.contentHash, location: opts.neo4j ? { kind: 'neo4j' } : { kind: 'demo' }, source: kg.source };
}

/** A refusal: the worker cannot tag this chunk the way the submitter expects. */
export class Refusal extends Error {}

/**
 * The worker's side: a snapshot file with the expected content, or a {@link Refusal} saying why not.
 * `localKg` (filmkw worker --kg FILE) replaces the location named by the job.
 */
export async function workerSnapshot(hash: string, location: KgLocation, localKg?: string): Promise<{ snapshot: string; cleanup(): void }> {
  const check = async (path: string, what: string) => {
    let got: string;
    try {
      got = (await readSnapshotHeader(path)).contentHash;
    } catch (err) {
      throw new Refusal(`cannot read the KG ${what}: ${(err as Error).message}`);
    }
    if (got !== hash) throw new Refusal(`the KG ${what} has content hash ${got}, the run was submitted with ${hash}`);
  };
  if (localKg !== undefined) {
    await check(localKg, `given with --kg (${localKg})`);
    return { snapshot: localKg, cleanup() {} };
  }
  switch (location.kind) {
    case 'snapshot':
      if (!existsSync(location.path)) throw new Refusal(`the run's KG snapshot ${location.path} is not on this machine (give the worker --kg FILE with a copy)`);
      // readSnapshotHeader opens it without blocking and refuses anything but a regular file of bounded size
      await check(location.path, location.path);
      return { snapshot: location.path, cleanup() {} };
    case 'url': {
      if (!/^[0-9a-f]{64}$/u.test(hash)) throw new Refusal(`malformed KG content hash ${JSON.stringify(hash.slice(0, 80))}`);
      mkdirSync(cacheDir(), { recursive: true });
      const file = inCache(`${hash}.fkg`);
      if (!existsSync(file)) {
        try {
          await download(location.url, file);
        } catch (err) {
          throw new Refusal((err as Error).message);
        }
      }
      try {
        await check(file, `downloaded from ${location.url}`);
      } catch (err) {
        rmSync(file, { force: true });
        throw err;
      }
      return { snapshot: file, cleanup() {} };
    }
    case 'demo':
    case 'neo4j': {
      let kg;
      try {
        kg = await prepareWorkerKg({ neo4j: location.kind === 'neo4j' });
      } catch (err) {
        throw new Refusal(err instanceof FilmkwError ? err.message : `loading the KG failed: ${(err as Error).message}`);
      }
      if (kg.contentHash !== hash) {
        kg.cleanup();
        throw new Refusal(`the ${location.kind === 'demo' ? 'bundled demo' : 'Neo4j'} KG here has content hash ${kg.contentHash}, the run was submitted with ${hash}`);
      }
      return { snapshot: kg.snapshot, cleanup: kg.cleanup };
    }
    default:
      throw new Refusal(`unknown KG location ${JSON.stringify(location)}`);
  }
}
