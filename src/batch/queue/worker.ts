/**
 * `filmkw worker --queue redis://…`: takes chunk jobs from the queue and tags them with a pool of
 * `workers` threads (src/batch/engine.ts WorkerPool, built once per KG and options and kept while the
 * jobs keep the same ones). Always threads, even for one: the main thread stays free to renew the job
 * locks, so a long chunk is never taken for a dead worker.
 *
 * Each job is untrusted input: its whole payload is validated against the schema of schema.ts first (a
 * malformed job is refused alone, the worker takes the next), KG paths are opened only as regular files
 * of bounded size and KG URLs downloaded within a size bound and a deadline (kg.ts). Then: protocol and code version (codeVersion(): package version + hash of the
 * build) must equal the submitter's, and the KG the worker can load must have the content hash of the
 * job. Otherwise the chunk is refused loudly: the job fails with the reason (UnrecoverableError, never
 * retried by another attempt), the reason is printed, and on a code mismatch the worker stops, since it
 * would refuse every chunk of the run.
 *
 * Faults: a worker killed mid-chunk holds a lock that is no longer renewed; after `stallTimeoutMs` any
 * other worker's stall check puts the job back in the queue and it is tagged again (the submitter writes
 * every chunk once). Redis going away: BullMQ reconnects by itself; a chunk whose result could not be
 * stored is re-delivered after the stall timeout.
 */
import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { FilmkwError } from '../../errors.js';
import { WorkerPool, type TagCallOptions } from '../engine.js';
import { siblingModule, type ExtractorFactorySpec } from '../factory.js';
import { tagOrdered } from '../ordered.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { cacheDirFromEnv } from '../../lexicon/cache.js';
import type { TagExtractorArgs } from '../tag-extractor.js';
import { connection } from './connection.js';
import { Refusal, workerSnapshot } from './kg.js';
import { codeVersion, PROTOCOL_VERSION, QUEUE_NAME, showUrl, type ChunkJob, type ChunkResult } from './protocol.js';
import { parseChunkJob } from './schema.js';

export interface QueueWorkerOptions {
  /** Redis URL. */
  queue: string;
  /** Threads tagging in parallel (the pool size; also how many chunks this process holds at once). @default 1 */
  workers?: number;
  /** A local copy of the KG snapshot, used instead of the location named by the jobs (hash still checked). */
  kg?: string;
  /** Lock duration: how long a chunk of a dead worker stays taken before it is re-delivered. @default 30000 */
  stallTimeoutMs?: number;
  /** Name shown in `filmkw queue status` and in refusals. @default host:pid */
  name?: string;
  /** Directory of the on-disk cache of KG-derived tables; null: none. @default FILMKW_CACHE_DIR's (lexicon/cache.ts) */
  cacheDir?: string | null;
  /** Stops the worker (it finishes the chunks it holds). */
  signal?: AbortSignal;
  /** Tests: the extractor factory instead of the pipeline (its args get `kg` added). */
  factory?: ExtractorFactorySpec;
  /** Log lines (start, refusals, connection trouble). @default process.stderr */
  stderr?: NodeJS.WritableStream;
}

/** Defaults of {@link QueueWorkerOptions} that are fixed values (frozen); name, cacheDir and stderr are computed. */
export const QUEUE_WORKER_DEFAULTS = Object.freeze({ workers: 1, stallTimeoutMs: 30_000 });

export interface QueueWorkerSummary {
  chunks: number;
  documents: number;
  refused: number;
}

interface Engine {
  key: string;
  pool: Promise<WorkerPool>;
}

/** Run a queue worker until `signal` aborts it (or a code-version refusal stops it). */
export async function runQueueWorker(o: QueueWorkerOptions): Promise<QueueWorkerSummary> {
  const stderr = o.stderr ?? process.stderr;
  const threads = o.workers ?? QUEUE_WORKER_DEFAULTS.workers;
  const name = o.name ?? `${hostname()}:${process.pid}`;
  const code = codeVersion();
  const stall = o.stallTimeoutMs ?? QUEUE_WORKER_DEFAULTS.stallTimeoutMs;
  const log = (m: string) => stderr.write(`filmkw worker ${name}: ${m}\n`);
  const summary: QueueWorkerSummary = { chunks: 0, documents: 0, refused: 0 };
  let engine: Engine | null = null;
  let fatal: FilmkwError | null = null;

  const poolFor = (job: ChunkJob): Promise<WorkerPool> => {
    const call: TagCallOptions = { topK: job.options.topK, explain: job.options.explain };
    const key = canonicalJson({ kg: job.kg.hash, options: job.options });
    if (engine !== null && engine.key === key) return engine.pool;
    const old = engine;
    const pool = (async () => {
      if (old) await (await old.pool.catch(() => null))?.close();
      const kg = await workerSnapshot(job.kg.hash, job.kg.location, o.kg);
      try {
        const args: TagExtractorArgs = { preset: job.options.preset, overrides: job.options.overrides, backend: job.options.backend, cacheDir: o.cacheDir === undefined ? cacheDirFromEnv() : o.cacheDir, kg: { snapshot: kg.snapshot }, ...(job.options.corpusStats === 'none' ? { corpusStats: null } : {}) };
        const factory: ExtractorFactorySpec = o.factory
          ? { ...o.factory, args: { ...(o.factory.args as object), kg: args.kg } }
          : { module: siblingModule('../tag-extractor', import.meta.url), export: 'createTagExtractor', args };
        const p = await WorkerPool.create(threads, factory, call);
        const bad = o.factory ? undefined : p.info.find((w) => w.kgHash !== job.kg.hash);
        if (bad) {
          await p.close();
          throw new Refusal(`a thread loaded a KG with content hash ${bad.kgHash}, the run was submitted with ${job.kg.hash}`);
        }
        log(`ready for run ${job.run}: ${threads} thread${threads === 1 ? '' : 's'}, preset ${p.info[0].preset}, KG ${job.kg.hash.slice(0, 12)}`);
        return p;
      } finally {
        kg.cleanup();
      }
    })();
    engine = { key, pool };
    pool.catch(() => {
      if (engine?.pool === pool) engine = null; // the next job tries again
    });
    return pool;
  };

  const refuse = (job: Job, why: string): never => {
    summary.refused++;
    log(`REFUSED chunk ${job.id}: ${why}`);
    throw new UnrecoverableError(`refused by worker ${name}: ${why}`);
  };

  const process_ = async (job: Job): Promise<ChunkResult> => {
    const raw = job.data as { protocol?: unknown } | null;
    if (raw?.protocol !== PROTOCOL_VERSION) refuse(job, `job format ${JSON.stringify(raw?.protocol ?? null).slice(0, 40)}, this worker speaks ${PROTOCOL_VERSION}`);
    // untrusted: the whole payload is checked before any field is used (schema.ts); a bad job fails alone
    const parsed = parseChunkJob(raw);
    if ('reason' in parsed) refuse(job, parsed.reason);
    const d = (parsed as { job: ChunkJob }).job;
    if (d.code !== code) {
      fatal ??= new FilmkwError('QUEUE', `worker ${name}: stopped: the run was submitted by filmkw ${d.code} and this worker runs ${code}; run the same build on every machine`);
      setImmediate(() => void stop());
      refuse(job, `code version ${code} differs from the submitter's ${d.code}`);
    }
    if (job.attemptsStarted > 1) log(`chunk ${job.id} re-delivered (attempt ${job.attemptsStarted}, stalled ${job.stalledCounter} times)`);
    let pool: WorkerPool;
    try {
      pool = await poolFor(d);
    } catch (err) {
      if (err instanceof Refusal || err instanceof FilmkwError) refuse(job, err.message);
      throw err;
    }
    async function* records() {
      yield* d.records;
    }
    let lines = '';
    let docs = 0;
    const unknownFilms: string[] = [];
    for await (const l of tagOrdered(records(), pool)) {
      lines += l.text;
      if (!l.error) docs++;
      if (l.unknownFilm !== undefined) unknownFilms.push(l.unknownFilm);
    }
    summary.chunks++;
    summary.documents += docs;
    return unknownFilms.length > 0 ? { lines, worker: name, unknownFilms } : { lines, worker: name };
  };

  const worker = new Worker(QUEUE_NAME, process_, {
    connection: connection(o.queue, true) as never,
    concurrency: Math.max(2, threads),
    lockDuration: stall,
    stalledInterval: Math.max(250, Math.floor(stall / 2)),
    maxStalledCount: 5,
    name,
    autorun: false,
  });
  let lastError = '';
  worker.on('error', (err) => {
    if (err.message !== lastError) log(`Redis: ${err.message} (retrying)`);
    lastError = err.message;
  });
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= worker.close().then(async () => (await engine?.pool.catch(() => null))?.close()));
  o.signal?.addEventListener('abort', () => void stop(), { once: true });
  log(`waiting for chunks on ${showUrl(o.queue)} (queue ${QUEUE_NAME}, ${threads} thread${threads === 1 ? '' : 's'}, stall timeout ${stall} ms, code ${code})`);
  if (!o.signal?.aborted) await worker.run();
  await stop();
  if (fatal) throw fatal;
  return summary;
}
