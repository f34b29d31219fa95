/**
 * `filmkw tag INPUT --queue redis://…`: the submitter of a distributed tag run.
 *
 * It reads the input with the tag readers (io/readers.ts), cuts it into chunks of `chunkDocs` records
 * (chunk k = records k·C … k·C+C−1, error records of the reader included), adds each chunk as a BullMQ
 * job `<run>-<k>` carrying the records, the options, the KG (content hash + location) and the code
 * version, keeps at most `window` chunks in the queue, and writes the chunks' output lines in input
 * order as each one completes — exactly the bytes a local `filmkw tag` writes. A written chunk's job is
 * removed from Redis, so Redis holds at most `window` chunks of the run at any time.
 *
 * Output and `--resume` are those of a local run (tag-run.ts sinks, resume.ts checkpoint), plus a
 * sidecar `<out>.queue.json` with the run id and chunk size: a resumed run skips the records already
 * written, finds its chunks by id (done ones are collected, failed ones retried, pending ones waited
 * for) and enqueues only the chunks that are not in the queue.
 *
 * Faults: a chunk a worker held when it died is re-delivered by BullMQ after the stall timeout (the
 * output holds it once, since chunks are written by position); while Redis is unreachable every
 * operation is retried for `timeoutMs`, and a chunk that vanished (Redis restarted without persistence)
 * is enqueued again from the records kept in memory; past the timeout the run stops with a message and
 * can be resumed. A failed or refused chunk stops the run with the worker's reason.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Queue, type Job } from 'bullmq';
import { FilmkwError, usageError } from '../../errors.js';
import { encodingWarning, readRecords, type InputRecord, type ReadStats } from '../../io/readers.js';
import { lockOutput } from '../../util/files.js';
import { flattenIdentity, progressPath, removeProgress, type InputIdentity } from '../resume.js';
import { checkpointer, checkRun, openOutput, resolveTagOptions, summaryLine, unknownFilmCounter, unknownFilmsWarning, type CheckedRun, type Sink, type TagRunOptions, type TagRunSummary } from '../tag-run.js';
import { closeQueue, lastRedisError, redisClient, retrying } from './connection.js';
import { describeKg } from './kg.js';
import { checkChunkResult, MAX_CHUNK_DOCS } from './schema.js';
import { checkRedisUrl, codeVersion, jobId, PROTOCOL_VERSION, QUEUE_NAME, showUrl, type ChunkJob, type ChunkOptions, type ChunkResult } from './protocol.js';

export interface QueueTagOptions extends Omit<TagRunOptions, 'workers' | 'ordered' | 'factory'> {
  /** Redis URL of the queue. */
  queue: string;
  /** Records per chunk. @default 256 */
  chunkDocs?: number;
  /** Chunks of this run in the queue at once (bounds Redis memory). @default 64 */
  window?: number;
  /** How long Redis may stay unreachable before the run stops. @default 60000 */
  timeoutMs?: number;
  /** How often the oldest pending chunk is looked at. @default 100 */
  pollMs?: number;
}

export interface QueueTagSummary extends TagRunSummary {
  run: string;
  chunks: number;
  /** Chunks added to the queue by this run (a resumed run reuses the ones still there). */
  enqueued: number;
  /** Chunks a resumed run found in the queue (done, pending or retried). */
  reused: number;
  /** Chunks enqueued again because they had vanished from Redis. */
  requeued: number;
}

export const DEFAULT_CHUNK_DOCS = 256;
export const DEFAULT_WINDOW = 64;
/** Defaults of {@link QueueTagOptions}' own options (frozen). */
export const QUEUE_TAG_DEFAULTS = Object.freeze({ chunkDocs: DEFAULT_CHUNK_DOCS, window: DEFAULT_WINDOW, timeoutMs: 60_000, pollMs: 100 });
/** Upper bounds of the queue options (issue 26; `--chunk-docs` is bounded by schema.ts MAX_CHUNK_DOCS, which workers accept). */
export const QUEUE_LIMITS = Object.freeze({ window: 10_000, timeoutMs: 24 * 3600 * 1000 });
/** Length of BullMQ's event stream (see runQueueTag). */
export const EVENTS_MAX_LEN = 100;
/** Jobs of an abandoned run are removed by Redis after this many seconds (resume before that). */
export const ABANDONED_JOB_SECONDS = 7 * 24 * 3600;

const QUEUE_SIDECAR = 'filmkw-tag-queue';
export const queueSidecarPath = (out: string) => `${out}.queue.json`;

interface QueueSidecar {
  format: typeof QUEUE_SIDECAR;
  run: string;
  chunkDocs: number;
  queue: string;
}

function readSidecar(out: string): QueueSidecar | null {
  const path = queueSidecarPath(out);
  if (!existsSync(path)) return null;
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as QueueSidecar;
    if (s?.format === QUEUE_SIDECAR && typeof s.run === 'string' && /^[0-9a-f]{12}$/u.test(s.run) && Number.isInteger(s.chunkDocs) && s.chunkDocs > 0) return s;
  } catch {
    // fall through
  }
  throw usageError(`tag: --resume: ${path} is not a filmkw queue run file; delete it and run without --resume`);
}

function writeSidecar(out: string, s: QueueSidecar): void {
  const path = queueSidecarPath(out);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(s, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pending {
  chunk: number;
  id: string;
  records: InputRecord[];
  data: ChunkJob;
  /** A malformed result was refused once and the chunk enqueued again. */
  redone?: boolean;
}


/** Run a distributed `filmkw tag` (see module header). */
export async function runQueueTag(o: QueueTagOptions): Promise<QueueTagSummary> {
  const stderr = o.stderr ?? process.stderr;
  const url = checkRedisUrl(o.queue);
  const C = o.chunkDocs ?? QUEUE_TAG_DEFAULTS.chunkDocs;
  const window = o.window ?? QUEUE_TAG_DEFAULTS.window;
  const timeoutMs = o.timeoutMs ?? QUEUE_TAG_DEFAULTS.timeoutMs;
  const pollMs = o.pollMs ?? QUEUE_TAG_DEFAULTS.pollMs;
  for (const [k, v, max] of [
    ['--chunk-docs', C, MAX_CHUNK_DOCS],
    ['--queue-window', window, QUEUE_LIMITS.window],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > max) throw usageError(`tag: ${k} must be an integer from 1 to ${max}, got ${v}`);
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1000 || timeoutMs > QUEUE_LIMITS.timeoutMs) {
    throw usageError(`tag: --queue-timeout must be a whole number of seconds from 1 to ${QUEUE_LIMITS.timeoutMs / 1000} (how long Redis may stay unreachable), got ${timeoutMs / 1000}`);
  }
  const checked = checkRun(o);
  const { stdin, maxRecordBytes } = checked;
  // One run per output: a second run on the same --out (and its checkpoint) fails naming the first.
  const unlock = o.out ? lockOutput('tag', o.out) : () => undefined;
  try {
    return await submitLocked(o, checked, { url, C, window, timeoutMs, pollMs, stdin, maxRecordBytes, stderr });
  } finally {
    unlock();
  }
}

async function submitLocked(
  o: QueueTagOptions,
  checked: CheckedRun,
  { url, C, window, timeoutMs, pollMs, stdin, maxRecordBytes, stderr }: { url: string; C: number; window: number; timeoutMs: number; pollMs: number; stdin: boolean; maxRecordBytes: number; stderr: NodeJS.WritableStream & { isTTY?: boolean } },
): Promise<QueueTagSummary> {
  const started = Date.now();
  const resolved = resolveTagOptions(o);
  const explain = o.explain === true;
  const kg = await describeKg({ kg: o.kg, neo4j: o.neo4j, onProgress: (m) => stderr.write(`${m}\n`) });
  if (o.corpusStats !== undefined && o.corpusStats !== 'none') throw usageError('tag: --queue takes --corpus-stats none or no --corpus-stats (the workers use the table shipped with their build); for a table of your own, tag without --queue');
  const options: ChunkOptions = { preset: o.preset, overrides: o.overrides, backend: o.backend, topK: o.topK, explain, ...(o.corpusStats === 'none' ? { corpusStats: 'none' as const } : {}) };
  const code = codeVersion();

  const client = redisClient(url);
  // BullMQ's event stream would keep the last 10,000 events, each completion with its result: nobody reads
  // it here (the submitter polls), so keep it short and Redis memory bounded by the window
  const queue = new Queue(QUEUE_NAME, { connection: client as never, streams: { events: { maxLen: EVENTS_MAX_LEN } } });
  queue.on('error', () => {}); // surfaces through the commands (retrying)
  const redis = <T>(what: string, op: () => Promise<T>) =>
    retrying(url, timeoutMs, `tag: ${what}`, op, (err) => stderr.write(`tag: Redis at ${showUrl(url)}: ${lastRedisError(client) ?? err.message}; retrying for up to ${Math.round(timeoutMs / 1000)} s\n`), () => lastRedisError(client));

  let sink: Sink | null = null;
  let bar: NodeJS.Timeout | null = null;
  try {
    await retrying(url, Math.min(timeoutMs, 10_000), 'tag: --queue', () => queue.getJobCounts('waiting'), undefined, () => lastRedisError(client));

    // Output, checkpoint and the run id.
    let chunkDocs = C;
    let run = randomBytes(6).toString('hex');
    let resumed = 0;
    let resuming = false;
    let input: InputIdentity | null = null;
    const identity = (chunk: number) =>
      flattenIdentity({
        format: o.format,
        textField: o.textField ?? null,
        idField: o.idField ?? null,
        filmField: o.filmField ?? null,
        titleField: o.titleField ?? null,
        corpusStats: o.corpusStats ?? 'default',
        encoding: o.encoding ?? null,
        maxRecordBytes,
        topK: o.topK ?? null,
        explain,
        backend: o.backend ?? null,
        kgContentHash: kg.hash,
        pipeline: resolved as unknown as Record<string, unknown>,
        queue: { chunkDocs: chunk },
      });
    const side = o.out && o.resume ? readSidecar(o.out) : null;
    if (side) chunkDocs = side.chunkDocs;
    const flat = identity(chunkDocs);
    ({ sink, input, resumed } = await openOutput(o, checked, flat));
    if (o.out && side && existsSync(progressPath(o.out))) {
      run = side.run;
      resuming = true;
    }
    if (o.out && !stdin) writeSidecar(o.out, { format: QUEUE_SIDECAR, run, chunkDocs, queue: showUrl(url) });
    const out = o.out;
    let recordsDone = resumed;
    const checkpoint = checkpointer(out, input, flat, sink!, () => recordsDone);
    if (out && input) await checkpoint();
    const setupSeconds = (Date.now() - started) / 1000;
    if (resumed > 0) stderr.write(`tag: resuming ${out} after ${resumed} records (${sink!.bytes} bytes), queue run ${run}\n`);

    // Read, enqueue, collect.
    const t0 = Date.now();
    const stats: ReadStats = { invalidUtf8: 0 };
    const it = readRecords(o.input, { format: o.format, textField: o.textField, idField: o.idField, filmField: o.filmField, titleField: o.titleField, encoding: o.encoding, maxRecordBytes, stats, onNote: (m) => stderr.write(`${m}\n`) })[Symbol.asyncIterator]();
    const unknownFilms = unknownFilmCounter();
    const startChunk = Math.floor(resumed / chunkDocs);
    let skipLines = resumed - startChunk * chunkDocs;
    for (let i = 0; i < startChunk * chunkDocs; i++) {
      if ((await it.next()).done) throw usageError(`tag: --resume: the input has ${i} records but the checkpoint says ${resumed} were done; run without --resume to start over`);
    }
    let inputDone = false;
    let nextChunk = startChunk;
    const inflight: Pending[] = [];
    const s = { records: 0, documents: 0, errors: 0, enqueued: 0, reused: 0, requeued: 0, failed: 0 };
    const jobOpts = (id: string) => ({ jobId: id, removeOnComplete: { age: ABANDONED_JOB_SECONDS }, removeOnFail: { age: ABANDONED_JOB_SECONDS } });

    const add = async (p: Pending) => {
      await redis(`adding chunk ${p.chunk}`, () => queue.add('chunk', p.data, jobOpts(p.id)));
    };
    const enqueue = async (): Promise<boolean> => {
      const records: InputRecord[] = [];
      while (records.length < chunkDocs) {
        const r = await it.next();
        if (r.done) {
          inputDone = true;
          break;
        }
        records.push(r.value);
      }
      if (records.length === 0) return false;
      const chunk = nextChunk++;
      const p: Pending = { chunk, id: jobId(run, chunk), records, data: { protocol: PROTOCOL_VERSION, code, run, chunk, kg: { hash: kg.hash, location: kg.location }, options, records } };
      const existing = resuming ? await redis(`looking up chunk ${chunk}`, () => queue.getJob(p.id)) : undefined;
      if (existing) {
        s.reused++;
        if ((await redis(`looking up chunk ${chunk}`, () => existing.getState())) === 'failed') await redis(`retrying chunk ${chunk}`, () => existing.retry('failed'));
      } else {
        await add(p);
        s.enqueued++;
      }
      inflight.push(p);
      return true;
    };
    // The output lines of the oldest chunk, once it is done.
    const collect = async (p: Pending): Promise<ChunkResult> => {
      for (;;) {
        const state = await redis(`reading chunk ${p.chunk}`, () => queue.getJobState(p.id));
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') {
          await sleep(pollMs);
          continue;
        }
        const job: Job | undefined = await redis(`reading chunk ${p.chunk}`, () => queue.getJob(p.id));
        if (!job) {
          // Redis lost the run's jobs (restarted without persistence?): enqueue every lost chunk again
          const lost: Pending[] = [];
          for (const q of inflight) if ((await redis(`reading chunk ${q.chunk}`, () => queue.getJobState(q.id))) === 'unknown') lost.push(q);
          stderr.write(`tag: ${lost.length} chunk${lost.length === 1 ? ' is' : 's are'} no longer in Redis (restarted without its data?); enqueued again\n`);
          for (const q of lost) await add(q);
          s.requeued += lost.length;
          continue;
        }
        if (job.finishedOn) {
          const r = job.returnvalue as ChunkResult | null;
          if (r && typeof r === 'object' && !job.failedReason) {
            // untrusted too: one JSON line per record, the ids and order as sent (schema.ts), or nothing is written
            const bad = checkChunkResult(r, p.records);
            if (bad === null) return r;
            const by = typeof r.worker === 'string' ? ` from worker ${r.worker.slice(0, 200)}` : '';
            if (!p.redone) {
              p.redone = true;
              stderr.write(`tag: chunk ${p.chunk}: the result${by} is malformed (${bad}); the chunk is tagged again\n`);
              await redis(`removing chunk ${p.chunk}`, () => queue.remove(p.id));
              await add(p);
              continue;
            }
            throw new FilmkwError('QUEUE', `tag: chunk ${p.chunk} (input lines ${p.records[0].line}–${p.records[p.records.length - 1].line}): the result${by} is malformed again (${bad}); nothing of it was written; check the workers and run the same command with --resume`);
          }
          s.failed++;
          const lines = p.records.map((x) => x.line);
          throw new FilmkwError(
            'QUEUE',
            `tag: chunk ${p.chunk} (input lines ${Math.min(...lines)}–${Math.max(...lines)}) failed on the queue: ${job.failedReason || 'no result'}; fix the cause and run the same command with --resume`,
          );
        }
        await sleep(pollMs);
      }
    };
    const removals = new Set<Promise<unknown>>();
    let lastCheckpoint = Date.now();
    const checkpointMs = o.checkpointMs ?? 1000;
    let finished = false;
    if (o.progress && stderr.isTTY) {
      const show = () =>
        void queue
          .getJobCounts('waiting', 'active', 'failed')
          .then((c) => {
            if (finished) return;
            const secs = (Date.now() - t0) / 1000;
            stderr.write(`\r\x1b[Kqueue ${run}: chunks ${c.waiting} queued · ${c.active} active · ${nextChunk - startChunk - inflight.length} done · ${c.failed} failed | ${resumed + s.records} records · ${(secs > 0 ? s.documents / secs : 0).toFixed(1)} docs/s`);
          })
          .catch(() => {});
      show();
      bar = setInterval(show, 500);
    }
    try {
      for (;;) {
        while (!inputDone && inflight.length < window) if (!(await enqueue())) break;
        const head = inflight[0];
        if (!head) break;
        const result = await collect(head);
        let text = result.lines;
        inflight.shift();
        let n = head.records.length;
        // a resumed chunk's skipped lines may count a film twice: the warning is about the run, not a tally
        for (const film of Array.isArray(result.unknownFilms) ? result.unknownFilms : []) if (typeof film === 'string') unknownFilms.add(film);
        if (skipLines > 0) {
          // a resumed run: the first lines of this chunk are already in the output
          let cut = 0;
          for (let i = 0; i < skipLines; i++) cut = text.indexOf('\n', cut) + 1;
          text = text.slice(cut);
          n -= skipLines;
          skipLines = 0;
        }
        await sink!.write(text);
        recordsDone += n;
        s.records += n;
        let errs = 0;
        for (let i = text.indexOf('"error":'); i >= 0; i = text.indexOf('"error":', i + 1)) errs++;
        s.errors += errs;
        s.documents += n - errs;
        const removal: Promise<unknown> = redis(`removing chunk ${head.chunk}`, () => queue.remove(head.id))
          .catch(() => {}) // a leftover expires with the run's jobs (ABANDONED_JOB_SECONDS)
          .finally(() => removals.delete(removal));
        removals.add(removal);
        if (Date.now() - lastCheckpoint >= checkpointMs) {
          await checkpoint();
          lastCheckpoint = Date.now();
        }
      }
    } catch (err) {
      try {
        await checkpoint();
      } catch {
        // the original error matters more
      }
      if (err instanceof FilmkwError && out && err.code === 'QUEUE') throw new FilmkwError('QUEUE', `${err.message}; ${recordsDone} records are in ${out} (--resume continues)`);
      throw err;
    }
    await Promise.all(removals);
    finished = true;
    if (bar) {
      clearInterval(bar);
      bar = null;
      stderr.write('\r\x1b[K');
    }
    if (out) {
      await sink!.sync();
      await sink!.close();
      removeProgress(out);
      rmSync(queueSidecarPath(out), { force: true });
    }
    const warning = encodingWarning(stats);
    if (warning) stderr.write(`${warning}\n`);
    const unknown = unknownFilms.result();
    if (unknown) stderr.write(`${unknownFilmsWarning(unknown)}\n`);
    const seconds = (Date.now() - t0) / 1000;
    return {
      records: s.records,
      documents: s.documents,
      errors: s.errors,
      resumed,
      invalidUtf8: stats.invalidUtf8,
      encoding: stats.encoding ?? 'utf-8',
      workers: 0,
      preset: resolved.preset,
      kg: kg.source,
      setupSeconds,
      seconds,
      docsPerSecond: seconds > 0 ? s.documents / seconds : 0,
      ...(unknown ? { unknownFilms: unknown } : {}),
      run,
      chunks: nextChunk - startChunk,
      enqueued: s.enqueued,
      reused: s.reused,
      requeued: s.requeued,
    };
  } finally {
    if (bar) clearInterval(bar);
    await closeQueue(queue, client);
  }
}

/** The summary line of a queue run (stderr): the local one, with the queue run instead of the worker count. */
export function queueSummaryLine(s: QueueTagSummary, out: string | undefined): string {
  const chunks = `${s.chunks} chunks (${s.enqueued} enqueued${s.reused ? `, ${s.reused} found in the queue` : ''}${s.requeued ? `, ${s.requeued} enqueued again` : ''})`;
  return summaryLine(s, out, `queue run ${s.run}: ${chunks}`);
}
