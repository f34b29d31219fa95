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
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FilmkwError, inputError, usageError } from '../../errors.js';
import { readSnapshotHeader } from '../../kg/snapshot.js';
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

/** Download a snapshot to `file` (via a temporary name, so a partial download is never used). */
async function download(url: string, file: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (err) {
    throw inputError(`KG ${url}: download failed: ${fetchFailure(err)}`, err);
  }
  if (!res.ok || !res.body) throw inputError(`KG ${url}: download failed: HTTP ${res.status}`);
  const tmp = `${file}.${process.pid}.part`;
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(tmp));
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw inputError(`KG ${url}: download failed: ${(err as Error).message}`, err);
  }
}

const cacheDir = () => join(process.env.FILMKW_CACHE_DIR ?? join(tmpdir(), `filmkw-cache-${process.getuid?.() ?? 'u'}`), 'queue-kg');

/** The submitter's side: the KG's content hash and where the workers find it. */
export async function describeKg(opts: { kg?: string; neo4j?: boolean; onProgress?: (m: string) => void }): Promise<{ hash: string; location: KgLocation; source: string }> {
  if (opts.kg !== undefined && opts.neo4j) throw usageError('tag: give --kg or --neo4j, not both');
  if (opts.kg !== undefined && isUrl(opts.kg)) {
    mkdirSync(cacheDir(), { recursive: true });
    const file = join(cacheDir(), `submit-${process.pid}.fkg`);
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
      await check(location.path, location.path);
      return { snapshot: location.path, cleanup() {} };
    case 'url': {
      mkdirSync(cacheDir(), { recursive: true });
      const file = join(cacheDir(), `${hash}.fkg`);
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
