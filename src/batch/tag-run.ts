/**
 * One `filmkw tag` run: read records (io/readers.ts) → tag them in order on an engine (inline or a
 * worker pool) → write JSON lines to a file or stdout, with checkpoints for `--resume` (resume.ts),
 * a progress bar on a TTY, and a summary.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { open, type FileHandle } from 'node:fs/promises';
import { assertNotAnInput, lockOutput } from '../util/files.js';
import { FilmkwError, inputError, usageError, writeFailureReason } from '../errors.js';
import { encodingWarning, readRecords, type InputFormat, type InputRecord, type ReadStats } from '../io/readers.js';
import { DEFAULT_MAX_RECORD_BYTES } from '../io/lines.js';
import { resolveOptions } from '../pipeline/options.js';
import type { SegmenterBackend } from '../lexicon/base.js';
import { InlineEngine, WorkerPool, type TagCallOptions, type TagEngine } from './engine.js';
import { loadFactory, siblingModule, type ExtractorFactorySpec } from './factory.js';
import { tagOrdered, type OrderedOptions } from './ordered.js';
import { pipeInput } from './pipe.js';
import { loadTagKg, prepareWorkerKg } from './kg-source.js';
import { tagExtractorWithKg, type TagExtractorArgs } from './tag-extractor.js';
import { countCorpus } from './corpus.js';
import { CorpusCounter, corpusStatsFromPacked, loadPackedCorpusStats, packCorpusStats } from '../pipeline/corpus-stats.js';
import { DiskCache } from '../lexicon/cache.js';
import {
  checkResume,
  flattenIdentity,
  inputIdentity,
  optionsHash,
  PROGRESS_FORMAT,
  PROGRESS_VERSION,
  readProgress,
  removeProgress,
  writeProgress,
  type InputIdentity,
} from './resume.js';

/** Options of {@link runTag} (the CLI flags, parsed). */
export interface TagRunOptions {
  /** Input path, or '-' for stdin. */
  input: string;
  format: InputFormat;
  textField?: string;
  /** Input encoding (iconv-lite name); absent: UTF-8, or UTF-16 by its BOM. */
  encoding?: string;
  idField?: string;
  /** Field path / column of each record's film (a Douban id or a film name: the document context). */
  filmField?: string;
  /** Field path / column of each record's title. */
  titleField?: string;
  /**
   * Corpus statistics of the re-ranker's corpus features: a table file (`filmkw corpus build`), `self`
   * (counted over this input in a first pass: the input is read twice), or `none`; absent: the
   * extractor's default (the shipped table when the model reads it).
   */
  corpusStats?: string;
  /** Largest line (and CSV record) in bytes; longer ones become error records. @default DEFAULT_MAX_RECORD_BYTES (16777216) */
  maxRecordBytes?: number;
  /** Output file; absent: stdout. */
  out?: string;
  resume?: boolean;
  /** @default 1 */
  workers?: number;
  /**
   * Heap cap of each worker thread, MB: a document that needs more on its own becomes an error record
   * (engine.ts WorkerPool). Given, tagging runs in worker threads even with one worker.
   */
  workerHeapMb?: number;
  /** Keywords per document; absent: the preset's default. */
  topK?: number;
  explain?: boolean;
  preset?: string;
  overrides?: Record<string, unknown>;
  backend?: SegmenterBackend;
  kg?: string;
  neo4j?: boolean;
  /** Directory of the on-disk cache of KG-derived tables (the CLI passes `FILMKW_CACHE_DIR`'s); absent or null: none. */
  cacheDir?: string | null;
  /** The Unix-filter contract (pipe.ts): one line out per line in, nothing position-dependent. */
  pipe?: boolean;
  /** Show a progress bar (the CLI passes stderr.isTTY). @default false */
  progress?: boolean;
  /** Checkpoint interval of `--out` runs, ms. @default 1000 */
  checkpointMs?: number;
  /** Also checkpoint after this many records since the last checkpoint (`--checkpoint-records`); 0: by time only. @default 0 */
  checkpointRecords?: number;
  /** Batching and in-flight window. */
  ordered?: OrderedOptions;
  /** Tests: use this extractor factory instead of the pipeline (no KG is loaded). */
  factory?: ExtractorFactorySpec;
  /** Where progress messages and the summary go. @default process.stderr */
  stderr?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Where output goes without --out. @default process.stdout */
  stdout?: NodeJS.WritableStream;
}

/** Defaults of {@link TagRunOptions} that are fixed values (frozen); stderr and stdout default to the process's. */
export const TAG_RUN_DEFAULTS = Object.freeze({ maxRecordBytes: DEFAULT_MAX_RECORD_BYTES, workers: 1, progress: false, checkpointMs: 1000, checkpointRecords: 0 });

export interface TagRunSummary {
  /** Records written by this run (documents + error records). */
  records: number;
  documents: number;
  errors: number;
  /** Records skipped because an interrupted run had done them (--resume). */
  resumed: number;
  invalidUtf8: number;
  /** The encoding the input was read in (`utf-8`, a BOM-detected UTF-16, or --encoding). */
  encoding: string;
  workers: number;
  preset: string;
  kg: string;
  /** Seconds spent loading the KG and starting the engine. */
  setupSeconds: number;
  /** Seconds spent tagging (first record read → last line written). */
  seconds: number;
  docsPerSecond: number;
  /** Records whose film the KG did not know (tagged without it), the distinct values and the first of them. */
  unknownFilms?: UnknownFilms;
}

/** The films of a run that the KG did not know (reported once per run). */
export interface UnknownFilms {
  records: number;
  distinct: number;
  examples: string[];
}

/** Counts the unknown film values of a run: distinct values up to a bound, the first few as examples. */
export function unknownFilmCounter(): { add(film: string): void; result(): UnknownFilms | undefined } {
  const seen = new Set<string>();
  let records = 0;
  let overflow = 0;
  return {
    add(film) {
      records++;
      if (seen.has(film)) return;
      if (seen.size < 100_000) seen.add(film);
      else overflow++;
    },
    result: () => (records === 0 ? undefined : { records, distinct: seen.size + overflow, examples: [...seen].slice(0, 5) }),
  };
}

/** The run's one line about films the KG did not know. */
export function unknownFilmsWarning(u: UnknownFilms, cmd = 'tag'): string {
  const shown = u.examples.map((f) => JSON.stringify(f)).join(', ');
  return `${cmd}: WARNING: ${u.distinct} film${u.distinct === 1 ? '' : 's'} of ${u.records} record${u.records === 1 ? '' : 's'} not in the KG (${shown}${u.distinct > u.examples.length ? ', …' : ''}); those records were tagged without their film`;
}

/** Output sink: a file (positioned writes, fsync) or a stream (stdout). */
export interface Sink {
  write(text: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
  /** Bytes in the file after everything written so far. */
  readonly bytes: number;
}

/** Why a write failed, in words for the usual codes (ENOSPC: no space left on the device, …). */
function writeFailure(what: string, path: string, err: Error): FilmkwError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = writeFailureReason(code, path);
  return new FilmkwError('OUTPUT', `tag: ${what} ${path} failed: ${why ? `${why} (${code})` : err.message}`, { cause: err });
}

/**
 * The output file: positioned writes and fsync for a regular file; for a device or a pipe (`/dev/null`,
 * a FIFO), writes in order and no fsync (which those refuse with EINVAL).
 */
async function fileSink(path: string, startAt: number | null): Promise<Sink> {
  let fh: FileHandle;
  try {
    if (startAt === null) fh = await open(path, 'w');
    else {
      fh = await open(path, 'r+');
      await fh.truncate(startAt);
    }
  } catch (err) {
    throw new FilmkwError('OUTPUT', `tag: cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
  const regular = (await fh.stat()).isFile();
  let pos = startAt ?? 0;
  const wrap = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      throw writeFailure(what, path, err as Error);
    }
  };
  return {
    get bytes() {
      return pos;
    },
    async write(text) {
      const buf = Buffer.from(text, 'utf8');
      await wrap('writing', async () => {
        let off = 0;
        while (off < buf.length) {
          const { bytesWritten } = await fh.write(buf, off, buf.length - off, regular ? pos : null);
          off += bytesWritten;
          pos += bytesWritten;
        }
      });
    },
    sync: () => (regular ? wrap('fsync of', () => fh.datasync()) : Promise.resolve()),
    close: () => wrap('closing', () => fh.close()),
  };
}

function outputFailed(err: Error): FilmkwError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EPIPE') return new FilmkwError('OUTPUT', 'tag: the output was closed early (EPIPE, e.g. `| head`); stopped');
  return new FilmkwError('OUTPUT', `tag: writing the output failed: ${err.message}`, { cause: err });
}

function streamSink(stream: NodeJS.WritableStream): Sink {
  let bytes = 0;
  let failed: Error | null = null;
  stream.on('error', (err: Error) => {
    failed ??= err;
  });
  return {
    get bytes() {
      return bytes;
    },
    async write(text) {
      if (failed) throw outputFailed(failed);
      bytes += Buffer.byteLength(text);
      if (!stream.write(text)) {
        // Wait for drain, but also wake on error/close (a closed pipe never drains).
        await new Promise<void>((resolve) => {
          const done = () => {
            stream.off('drain', done);
            stream.off('error', done);
            stream.off('close', done);
            resolve();
          };
          stream.on('drain', done);
          stream.on('error', done);
          stream.on('close', done);
        });
        if (failed) throw outputFailed(failed);
      }
    },
    async sync() {},
    async close() {},
  };
}

async function* skip(records: AsyncIterable<InputRecord>, n: number): AsyncGenerator<InputRecord> {
  let i = 0;
  for await (const r of records) {
    if (i++ < n) continue;
    yield r;
  }
  if (i < n) throw usageError(`tag: --resume: the input has ${i} records but the checkpoint says ${n} were done; run without --resume to start over`);
}

const rate = (n: number, s: number) => (s > 0 ? n / s : 0);

/** Progress bar on stderr (cli-progress), loaded only when shown. */
async function progressBar(stderr: NodeJS.WritableStream, total: number): Promise<{ update(bytes: number, records: number, docsPerSecond: number): void; stop(): void }> {
  const cliProgress = (await import('cli-progress')).default;
  const bar = new cliProgress.SingleBar(
    {
      stream: stderr,
      format: 'tag [{bar}] {percentage}% | {records} records | {rate} docs/s | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(total, 1), 0, { records: 0, rate: '0' });
  return {
    update(bytes, records, dps) {
      bar.update(Math.min(bytes, total), { records, rate: dps.toFixed(1) });
    },
    stop() {
      bar.stop();
    },
  };
}

/** Upper bounds of the numeric options (issue 17: every number has a sane range). */
export const TAG_LIMITS = Object.freeze({
  /** Each worker holds its own segmenter and KG (tens of MB each). */
  workers: 64,
  workerHeapMb: 65_536,
  topK: 1000,
  maxRecordBytes: 1 << 30,
  checkpointRecords: 1_000_000_000,
});

/** A count option: an integer from 1 to `max`; the message names the CLI flag. */
function checkCount(flag: string, n: number, max: number, why = ''): number {
  if (!Number.isInteger(n) || n < 1) throw usageError(`tag: ${flag} must be an integer ≥ 1, got ${n}`);
  if (n > max) throw usageError(`tag: ${flag} must be at most ${max}${why}, got ${n}`);
  return n;
}

/**
 * Run `filmkw tag` (see module header): {@link checkRun}, then, holding the output's lock,
 * {@link createEngine} → {@link openOutput} → the tagging loop (`tagLocked`). Throws FilmkwError for user mistakes and
 * output failures. The options are validated here, once (the CLI only turns its flags into values).
 */
export async function runTag(o: TagRunOptions): Promise<TagRunSummary> {
  const run = checkRun(o);
  // One run per output: a second run on the same --out (and its checkpoint) fails naming the first.
  const unlock = o.out && !run.outputSpecial ? lockOutput('tag', o.out) : () => undefined;
  try {
    return await tagLocked(o, run);
  } finally {
    unlock();
  }
}

/** What {@link checkRun} settles about a run. */
export interface CheckedRun {
  stdin: boolean;
  /** The input can be read only once (a FIFO, `<(…)` process substitution, a device): no fingerprint, no checkpoints. */
  readOnce: boolean;
  /** The output is not a regular file (`/dev/null`, a FIFO): no lock, no checkpoints. */
  outputSpecial: boolean;
  workers: number;
  maxRecordBytes: number;
  stderr: NonNullable<TagRunOptions['stderr']>;
}

/** Step 1: the options and paths (numbers in range, the input present, --resume and --out usable). */
export function checkRun(o: TagRunOptions): CheckedRun {
  const workers = checkCount('--workers', o.workers ?? TAG_RUN_DEFAULTS.workers, TAG_LIMITS.workers, ' (each worker loads its own segmenter and KG)');
  if (o.topK !== undefined) checkCount('--top', o.topK, TAG_LIMITS.topK);
  const maxRecordBytes = checkCount('--max-record-bytes', o.maxRecordBytes ?? TAG_RUN_DEFAULTS.maxRecordBytes, TAG_LIMITS.maxRecordBytes);
  if (o.workerHeapMb !== undefined) checkCount('--worker-heap-mb', o.workerHeapMb, TAG_LIMITS.workerHeapMb);
  if (o.checkpointRecords !== undefined && o.checkpointRecords !== 0) checkCount('--checkpoint-records', o.checkpointRecords, TAG_LIMITS.checkpointRecords);
  const stdin = o.input === '-';
  let readOnce = false;
  if (!stdin) {
    if (!existsSync(o.input)) throw inputError(`tag: input file not found: ${o.input}`);
    const st = statSync(o.input);
    if (o.format !== 'html' && st.isDirectory()) throw inputError(`tag: input is a directory, not a file: ${o.input}`);
    readOnce = !st.isFile() && !st.isDirectory();
  }
  if (o.resume && !o.out) throw usageError('tag: --resume needs --out FILE (the output of the interrupted run)');
  if (o.resume && stdin) throw usageError('tag: --resume needs an input file (stdin cannot be re-read)');
  if (o.resume && readOnce) {
    throw usageError(`tag: --resume needs a regular input file: ${o.input} is a pipe or a device (e.g. <(zcat …)), which can be read only once, so it cannot be fingerprinted to check that it is the interrupted run's input; decompress it to a file first`);
  }
  const outputSpecial = o.out !== undefined && specialFile(o.out);
  if (o.resume && outputSpecial) throw usageError(`tag: --resume needs --out to be a regular file, not ${o.out}`);
  const stats = o.corpusStats;
  if (stats === 'self' && (stdin || readOnce || o.pipe)) throw usageError('tag: --corpus-stats self reads the input twice: it needs an input file, and a filter (stdin, --pipe) sees only its partition; build a table with filmkw corpus build and pass it instead');
  if (stats !== undefined && stats !== 'self' && stats !== 'none' && !existsSync(stats)) throw inputError(`tag: --corpus-stats: no such file: ${stats}`);
  if (o.out) assertNotAnInput('tag', '--out', o.out, [...(stdin ? [] : [o.input]), ...(o.kg ? [o.kg] : []), ...(stats !== undefined && stats !== 'self' && stats !== 'none' ? [stats] : [])]);
  return { stdin, readOnce, outputSpecial, workers, maxRecordBytes, stderr: o.stderr ?? process.stderr };
}

/** Whether `path` exists and is neither a regular file nor a directory (a device such as /dev/null, a FIFO). */
function specialFile(path: string): boolean {
  try {
    const st = statSync(path);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

/** The pipeline options of a tag run (errors say `tag:`). */
export function resolveTagOptions(o: Pick<TagRunOptions, 'preset' | 'overrides'>): ReturnType<typeof resolveOptions> {
  try {
    return resolveOptions(o.preset, o.overrides);
  } catch (err) {
    if (err instanceof FilmkwError) throw new FilmkwError(err.code, `tag: ${err.message.replace(/^options: /u, '')}`);
    throw err;
  }
}

/** The engine of a run, what it reports, and the identity a --resume must match. */
interface RunEngine {
  engine: TagEngine;
  preset: string;
  kgSource: string;
  flat: Record<string, string>;
}

/**
 * Step 2: the extractor, in this thread or in a worker pool (options first: an unknown preset fails
 * before anything is loaded), and the run identity (options, KG content) that checkpoints record.
 */
async function createEngine(o: TagRunOptions, run: CheckedRun, call: TagCallOptions): Promise<RunEngine> {
  const { workers, maxRecordBytes, stderr } = run;
  let engine: TagEngine;
  let preset: string;
  let kgSource = 'none (test factory)';
  let identity: Record<string, unknown>;
  const common = { format: o.format, textField: o.textField ?? null, idField: o.idField ?? null, filmField: o.filmField ?? null, titleField: o.titleField ?? null, encoding: o.encoding ?? null, maxRecordBytes, topK: o.topK ?? null, explain: call.explain, workerHeapMb: o.workerHeapMb };
  if (o.factory) {
    const ex = workers === 1 && o.workerHeapMb === undefined ? await loadFactory(o.factory) : null;
    engine = ex ? new InlineEngine(ex, call) : await WorkerPool.create(workers, o.factory, call, { heapMb: o.workerHeapMb });
    preset = ex ? ex.preset : (engine as WorkerPool).info[0].preset;
    identity = { ...common, factory: { module: o.factory.export, args: o.factory.args as Record<string, unknown> } };
  } else {
    const resolved = resolveTagOptions(o);
    preset = resolved.preset;
    const args: Omit<TagExtractorArgs, 'kg'> = { preset: o.preset, overrides: o.overrides, backend: o.backend, cacheDir: o.cacheDir ?? null };
    const onProgress = (m: string) => stderr.write(`${m}\n`);
    let contentHash: string;
    if (o.corpusStats === 'self') args.corpusStats = await countSelf(o, run, args);
    else if (o.corpusStats !== undefined) args.corpusStats = o.corpusStats === 'none' ? null : { packed: loadPackedCorpusStats(o.corpusStats, { cache: o.cacheDir ? new DiskCache(o.cacheDir) : null }), source: basename(o.corpusStats) };
    if (workers === 1 && o.workerHeapMb === undefined) {
      const kg = await loadTagKg({ kg: o.kg, neo4j: o.neo4j, onProgress, liveProgress: o.progress === true });
      kgSource = kg.source;
      contentHash = kg.store.contentHash;
      engine = new InlineEngine(tagExtractorWithKg(args, kg.store), call);
    } else {
      const kg = await prepareWorkerKg({ kg: o.kg, neo4j: o.neo4j, onProgress, liveProgress: o.progress === true });
      kgSource = kg.source;
      contentHash = kg.contentHash;
      let pool: WorkerPool;
      try {
        pool = await WorkerPool.create(workers, { module: siblingModule('tag-extractor', import.meta.url), export: 'createTagExtractor', args: { ...args, kg: { snapshot: kg.snapshot } } }, call, { heapMb: o.workerHeapMb });
        const bad = pool.info.find((w) => w.kgHash !== contentHash);
        if (bad) {
          await pool.close();
          throw new Error(`tag: a worker loaded a different KG (content ${bad.kgHash} instead of ${contentHash})`);
        }
      } catch (err) {
        kg.cleanup();
        throw err;
      }
      // kept until the pool closes: a worker replaced after running out of memory loads it again
      engine = { parallelism: pool.parallelism, run: (texts) => pool.run(texts), close: () => pool.close().finally(kg.cleanup) };
    }
    const statsHash = args.corpusStats ? corpusStatsFromPacked(args.corpusStats.packed, args.corpusStats.source).contentHash : (args.corpusStats ?? 'default');
    identity = { ...common, backend: o.backend ?? null, kgContentHash: contentHash, corpusStats: statsHash, pipeline: resolved as unknown as Record<string, unknown> };
  }
  return { engine, preset, kgSource, flat: flattenIdentity(identity) };
}

/**
 * `--corpus-stats self`: the input counted in a first pass (src/batch/corpus.ts) by an extractor of the
 * run's options, with the run's film field; the table as text for the tagging extractors.
 */
async function countSelf(o: TagRunOptions, run: CheckedRun, args: Omit<TagExtractorArgs, 'kg'>): Promise<{ packed: Uint8Array; source: string }> {
  const kg = await loadTagKg({ kg: o.kg, neo4j: o.neo4j, onProgress: (m) => run.stderr.write(`${m}\n`) });
  const counter = new CorpusCounter();
  const extractor = tagExtractorWithKg({ ...args, corpusStats: null }, kg.store);
  await countCorpus([{ path: o.input, format: o.format, textField: o.textField, idField: o.idField, encoding: o.encoding, filmField: o.filmField }], extractor, counter);
  run.stderr.write(`tag: --corpus-stats self: ${counter.documents} distinct texts of the input counted\n`);
  return { packed: packCorpusStats(counter.serialize({ source: 'self' }), 'self'), source: 'self' };
}

/** Where the records go and from where a resumed run continues. */
export interface RunOutput {
  sink: Sink;
  input: InputIdentity | null;
  resumed: number;
}

/** Step 3: the output (a file, checked against its checkpoint for --resume, or stdout). */
export async function openOutput(o: TagRunOptions, run: CheckedRun, flat: Record<string, string>): Promise<RunOutput> {
  if (!o.out) return { sink: streamSink(o.stdout ?? process.stdout), input: null, resumed: 0 };
  // a pipe cannot be read twice (fingerprint, then tag), and a device output has no checkpoint: no identity, no checkpoints
  const input = run.stdin || run.readOnce || run.outputSpecial ? null : await inputIdentity(o.input);
  let resumed = 0;
  let startAt: number | null = null;
  if (o.resume) {
    const saved = readProgress(o.out);
    if (saved) {
      const cp = checkResume(o.out, saved, input!, flat);
      resumed = cp.records;
      startAt = cp.outBytes;
    } else if (existsSync(o.out) && statSync(o.out).size > 0) {
      throw usageError(
        `tag: --resume: ${o.out} exists but there is no ${o.out}.progress.json (the run finished, or the file was not written by filmkw tag); run without --resume to overwrite it`,
      );
    }
  }
  return { sink: await fileSink(o.out, startAt), input, resumed };
}

/** Whether a run is due a checkpoint, `since` the last one: once `checkpointMs` have passed, or (when > 0) `checkpointRecords` records. */
export function checkpointDue(since: { ms: number; records: number }, o: { checkpointMs: number; checkpointRecords: number }): boolean {
  return since.ms >= o.checkpointMs || (o.checkpointRecords > 0 && since.records >= o.checkpointRecords);
}

/** The checkpoint of a run: sync the output, then record `records()` and the output length (resume.ts). */
export function checkpointer(out: string | undefined, input: InputIdentity | null, flat: Record<string, string>, sink: Sink, records: () => number): () => Promise<void> {
  return async () => {
    if (!out || !input) return;
    await sink.sync();
    writeProgress(out, {
      format: PROGRESS_FORMAT,
      version: PROGRESS_VERSION,
      input,
      optionsHash: optionsHash(flat),
      options: flat,
      records: records(),
      outBytes: sink.bytes,
      updatedAt: new Date().toISOString(),
    });
  };
}

async function tagLocked(o: TagRunOptions, run: CheckedRun): Promise<TagRunSummary> {
  const { stdin, workers, maxRecordBytes, stderr } = run;
  const call: TagCallOptions = { topK: o.topK, explain: o.explain === true };
  const started = Date.now();
  const { engine, preset, kgSource, flat } = await createEngine(o, run, call);
  let sink: Sink | null = null;
  let input: InputIdentity | null = null;
  let resumed = 0;
  // A run that fails before writing a record leaves nothing behind when it created the output.
  const outWasThere = o.out !== undefined && existsSync(o.out);
  let recordsDone = 0;
  try {
    ({ sink, input, resumed } = await openOutput(o, run, flat));
    const out = o.out;
    recordsDone = resumed;
    const checkpoint = checkpointer(out, input, flat, sink, () => recordsDone);
    if (out && input) await checkpoint();
    const setupSeconds = (Date.now() - started) / 1000;
    if (resumed > 0) stderr.write(`tag: resuming ${out} after ${resumed} records (${sink.bytes} bytes)\n`);

    // Tag.
    const t0 = Date.now();
    const stats: ReadStats = { invalidUtf8: 0 };
    let bytesRead = 0;
    const showBar = (o.progress ?? TAG_RUN_DEFAULTS.progress) === true && !stdin;
    const bar = showBar ? await progressBar(stderr, statSync(o.input).size) : null;
    let records = 0;
    let documents = 0;
    let errors = 0;
    let pending = '';
    let pendingCount = 0;
    const unknownFilms = unknownFilmCounter();
    let lastCheckpoint = Date.now();
    let recordsAtCheckpoint = 0;
    let lastBar = 0;
    const checkpointMs = o.checkpointMs ?? TAG_RUN_DEFAULTS.checkpointMs;
    const checkpointRecords = o.checkpointRecords ?? TAG_RUN_DEFAULTS.checkpointRecords;
    const flush = async () => {
      if (pending.length > 0) {
        await sink!.write(pending);
        recordsDone += pendingCount;
        pending = '';
        pendingCount = 0;
      }
    };
    const readerOptions = {
      format: o.format,
      textField: o.textField,
      idField: o.idField,
      filmField: o.filmField,
      titleField: o.titleField,
      encoding: o.encoding,
      maxRecordBytes,
      stats,
      onBytes: (b: number) => {
        bytesRead = b;
      },
      onNote: (m: string) => stderr.write(`${m}\n`),
    };
    const pipe = o.pipe ? pipeInput(o.input, readerOptions) : null;
    const source = pipe ? pipe.records : readRecords(o.input, readerOptions);
    try {
      for await (const line of tagOrdered(resumed > 0 ? skip(source, resumed) : source, engine, o.ordered)) {
        pending += pipe ? pipe.line(line) : line.text;
        pendingCount++;
        records++;
        if (line.unknownFilm !== undefined) unknownFilms.add(line.unknownFilm);
        if (line.error) errors++;
        else documents++;
        if (pending.length >= 65536) await flush();
        const now = Date.now();
        if (checkpointDue({ ms: now - lastCheckpoint, records: records - recordsAtCheckpoint }, { checkpointMs, checkpointRecords })) {
          await flush();
          await checkpoint();
          lastCheckpoint = now;
          recordsAtCheckpoint = records;
        }
        if (bar && now - lastBar >= 200) {
          bar.update(bytesRead, resumed + records, rate(documents, (now - t0) / 1000));
          lastBar = now;
        }
      }
      await flush();
    } catch (err) {
      // Keep what is complete, so --resume continues from here.
      try {
        await flush();
        await checkpoint();
      } catch {
        // the original error matters more
      }
      bar?.stop();
      throw err;
    }
    bar?.stop();
    if (out) {
      await sink.sync();
      await sink.close();
      removeProgress(out);
    }
    const warning = encodingWarning(stats);
    if (warning) stderr.write(`${warning}\n`);
    const unknown = unknownFilms.result();
    if (unknown) stderr.write(`${unknownFilmsWarning(unknown)}\n`);
    const seconds = (Date.now() - t0) / 1000;
    const summary: TagRunSummary = {
      records,
      documents,
      errors,
      resumed,
      invalidUtf8: stats.invalidUtf8,
      encoding: stats.encoding ?? 'utf-8',
      workers,
      preset,
      kg: kgSource,
      setupSeconds,
      seconds,
      docsPerSecond: rate(documents, seconds),
      ...(unknown ? { unknownFilms: unknown } : {}),
    };
    return summary;
  } catch (err) {
    if (o.out && !outWasThere && recordsDone === 0 && sink !== null) {
      await sink.close().catch(() => undefined);
      rmSync(o.out, { force: true });
      removeProgress(o.out);
    }
    throw err;
  } finally {
    await engine.close();
  }
}

/** The summary line printed on stderr. */
export function summaryLine(s: TagRunSummary, out: string | undefined, engine = `${s.workers} worker${s.workers === 1 ? '' : 's'}`): string {
  const parts = [
    `tag: ${s.records} records (${s.documents} tagged, ${s.errors} error records)`,
    `${s.seconds.toFixed(1)} s`,
    `${s.docsPerSecond.toFixed(1)} docs/s`,
    engine,
    `preset ${s.preset}`,
    `KG ${s.kg}`,
    `setup ${s.setupSeconds.toFixed(1)} s`,
  ];
  if (s.resumed > 0) parts.push(`resumed after ${s.resumed} records`);
  if (s.invalidUtf8 > 0) parts.push(`${s.invalidUtf8} with invalid UTF-8 (replaced by U+FFFD)`);
  if (s.encoding !== 'utf-8') parts.push(`read as ${s.encoding}`);
  return `${parts.join(', ')}${out ? ` → ${out}` : ''}\n`;
}
