/**
 * One `filmkw tag` run: read records (io/readers.ts) → tag them in order on an engine (inline or a
 * worker pool) → write JSON lines to a file or stdout, with checkpoints for `--resume` (resume.ts),
 * a progress bar on a TTY, and a summary.
 */
import { existsSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { FilmkwError, inputError, usageError } from '../errors.js';
import { readRecords, type InputFormat, type InputRecord, type ReadStats } from '../io/readers.js';
import { DEFAULT_MAX_RECORD_BYTES } from '../io/lines.js';
import { resolveOptions } from '../pipeline/options.js';
import type { SegmenterBackend } from '../lexicon/base.js';
import { InlineEngine, WorkerPool, type TagCallOptions, type TagEngine } from './engine.js';
import { loadFactory, siblingModule, type ExtractorFactorySpec } from './factory.js';
import { tagOrdered, type OrderedOptions } from './ordered.js';
import { pipeInput } from './pipe.js';
import { loadTagKg, prepareWorkerKg } from './kg-source.js';
import { tagExtractorWithKg, type TagExtractorArgs } from './tag-extractor.js';
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
  idField?: string;
  /** @default 16 MiB */
  maxRecordBytes?: number;
  /** Output file; absent: stdout. */
  out?: string;
  resume?: boolean;
  /** @default 1 */
  workers?: number;
  /** Keywords per document; absent: the preset's default. */
  topK?: number;
  explain?: boolean;
  preset?: string;
  overrides?: Record<string, unknown>;
  backend?: SegmenterBackend;
  kg?: string;
  neo4j?: boolean;
  /** The Unix-filter contract (pipe.ts): one line out per line in, nothing position-dependent. */
  pipe?: boolean;
  /** Directory of the on-disk cache of KG-derived tables (the CLI passes `FILMKW_CACHE_DIR`'s); absent or null: none. */
  cacheDir?: string | null;
  /** Show a progress bar (the CLI passes stderr.isTTY). @default false */
  progress?: boolean;
  /** Checkpoint interval of `--out` runs. @default 1000 ms */
  checkpointMs?: number;
  /** Batching and in-flight window. */
  ordered?: OrderedOptions;
  /** Tests: use this extractor factory instead of the pipeline (no KG is loaded). */
  factory?: ExtractorFactorySpec;
  /** Where progress messages and the summary go. @default process.stderr */
  stderr?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Where output goes without --out. @default process.stdout */
  stdout?: NodeJS.WritableStream;
}

export interface TagRunSummary {
  /** Records written by this run (documents + error records). */
  records: number;
  documents: number;
  errors: number;
  /** Records skipped because an interrupted run had done them (--resume). */
  resumed: number;
  invalidUtf8: number;
  workers: number;
  preset: string;
  kg: string;
  /** Seconds spent loading the KG and starting the engine. */
  setupSeconds: number;
  /** Seconds spent tagging (first record read → last line written). */
  seconds: number;
  docsPerSecond: number;
}

/** Output sink: a file (positioned writes, fsync) or a stream (stdout). */
export interface Sink {
  write(text: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
  /** Bytes in the file after everything written so far. */
  readonly bytes: number;
}

export async function fileSink(path: string, startAt: number | null): Promise<Sink> {
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
  let pos = startAt ?? 0;
  const wrap = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      throw new FilmkwError('OUTPUT', `tag: ${what} ${path} failed: ${(err as Error).message}`, { cause: err });
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
          const { bytesWritten } = await fh.write(buf, off, buf.length - off, pos);
          off += bytesWritten;
          pos += bytesWritten;
        }
      });
    },
    sync: () => wrap('fsync of', () => fh.datasync()),
    close: () => wrap('closing', () => fh.close()),
  };
}

function outputFailed(err: Error): FilmkwError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EPIPE') return new FilmkwError('OUTPUT', 'tag: the output was closed early (EPIPE, e.g. `| head`); stopped');
  return new FilmkwError('OUTPUT', `tag: writing the output failed: ${err.message}`, { cause: err });
}

export function streamSink(stream: NodeJS.WritableStream): Sink {
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

/** The checks of the input and output paths of every tag run (local or queue); true when the input is stdin. */
export function checkTagPaths(o: Pick<TagRunOptions, 'input' | 'format' | 'out' | 'resume'>): boolean {
  const stdin = o.input === '-';
  if (!stdin) {
    if (!existsSync(o.input)) throw inputError(`tag: input file not found: ${o.input}`);
    if (o.format !== 'html' && statSync(o.input).isDirectory()) throw inputError(`tag: input is a directory, not a file: ${o.input}`);
  }
  if (o.resume && !o.out) throw usageError('tag: --resume needs --out FILE (the output of the interrupted run)');
  if (o.resume && stdin) throw usageError('tag: --resume needs an input file (stdin cannot be re-read)');
  if (o.out && !stdin && resolve(o.out) === resolve(o.input)) throw usageError(`tag: --out ${o.out} is the input file`);
  return stdin;
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

/**
 * Open the `--out` file of a run: with `resume`, check the checkpoint against the input and the run
 * identity `flat` and continue after it; otherwise start a new file.
 */
export async function openOutput(out: string, resume: boolean, input: InputIdentity | null, flat: Record<string, string>): Promise<{ sink: Sink; resumed: number }> {
  let startAt: number | null = null;
  let resumed = 0;
  if (resume) {
    const saved = readProgress(out);
    if (saved) {
      const cp = checkResume(out, saved, input!, flat);
      resumed = cp.records;
      startAt = cp.outBytes;
    } else if (existsSync(out) && statSync(out).size > 0) {
      throw usageError(`tag: --resume: ${out} exists but there is no ${out}.progress.json (the run finished, or the file was not written by filmkw tag); run without --resume to overwrite it`);
    }
  }
  return { sink: await fileSink(out, startAt), resumed };
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

/** Run `filmkw tag` (see module header). Throws FilmkwError for user mistakes and output failures. */
export async function runTag(o: TagRunOptions): Promise<TagRunSummary> {
  const stderr = o.stderr ?? process.stderr;
  const workers = o.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw usageError(`tag: --workers must be an integer ≥ 1, got ${workers}`);
  if (o.topK !== undefined && (!Number.isInteger(o.topK) || o.topK < 1)) throw usageError(`tag: --top must be an integer ≥ 1, got ${o.topK}`);
  const maxRecordBytes = o.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  if (!Number.isInteger(maxRecordBytes) || maxRecordBytes < 1) throw usageError(`tag: --max-record-bytes must be an integer ≥ 1, got ${maxRecordBytes}`);
  const stdin = checkTagPaths(o);

  // Options first (an unknown preset fails before anything is loaded).
  const call: TagCallOptions = { topK: o.topK, explain: o.explain === true };
  const started = Date.now();
  let engine: TagEngine;
  let preset: string;
  let kgSource = 'none (test factory)';
  let identity: Record<string, unknown>;
  const common = { format: o.format, textField: o.textField ?? null, idField: o.idField ?? null, maxRecordBytes, topK: o.topK ?? null, explain: call.explain };
  if (o.factory) {
    const ex = workers === 1 ? await loadFactory(o.factory) : null;
    engine = ex ? new InlineEngine(ex, call) : await WorkerPool.create(workers, o.factory, call);
    preset = ex ? ex.preset : (engine as WorkerPool).info[0].preset;
    identity = { ...common, factory: { module: o.factory.export, args: o.factory.args as Record<string, unknown> } };
  } else {
    const resolved = resolveTagOptions(o);
    preset = resolved.preset;
    const args: Omit<TagExtractorArgs, 'kg'> = { preset: o.preset, overrides: o.overrides, backend: o.backend, cacheDir: o.cacheDir ?? null };
    const onProgress = (m: string) => stderr.write(`${m}\n`);
    let contentHash: string;
    if (workers === 1) {
      const kg = await loadTagKg({ kg: o.kg, neo4j: o.neo4j, onProgress });
      kgSource = kg.source;
      contentHash = kg.store.contentHash;
      engine = new InlineEngine(tagExtractorWithKg(args, kg.store), call);
    } else {
      const kg = await prepareWorkerKg({ kg: o.kg, neo4j: o.neo4j, onProgress });
      kgSource = kg.source;
      contentHash = kg.contentHash;
      try {
        const pool = await WorkerPool.create(workers, { module: siblingModule('tag-extractor', import.meta.url), export: 'createTagExtractor', args: { ...args, kg: { snapshot: kg.snapshot } } }, call);
        const bad = pool.info.find((w) => w.kgHash !== contentHash);
        if (bad) {
          await pool.close();
          throw new Error(`tag: a worker loaded a different KG (content ${bad.kgHash} instead of ${contentHash})`);
        }
        engine = pool;
      } finally {
        kg.cleanup();
      }
    }
    identity = { ...common, backend: o.backend ?? null, kgContentHash: contentHash, pipeline: resolved as unknown as Record<string, unknown> };
  }
  const flat = flattenIdentity(identity);

  let sink: Sink | null = null;
  let input: InputIdentity | null = null;
  let resumed = 0;
  try {
    // Output and checkpoint.
    if (o.out) {
      input = stdin ? null : inputIdentity(o.input);
      const opened = await openOutput(o.out, o.resume === true, input, flat);
      sink = opened.sink;
      resumed = opened.resumed;
    } else {
      sink = streamSink(o.stdout ?? process.stdout);
    }
    const out = o.out;
    let recordsDone = resumed;
    const checkpoint = checkpointer(out, input, flat, sink, () => recordsDone);
    if (out && input) await checkpoint();
    const setupSeconds = (Date.now() - started) / 1000;
    if (resumed > 0) stderr.write(`tag: resuming ${out} after ${resumed} records (${sink.bytes} bytes)\n`);

    // Tag.
    const t0 = Date.now();
    const stats: ReadStats = { invalidUtf8: 0 };
    let bytesRead = 0;
    const showBar = o.progress === true && !stdin;
    const bar = showBar ? await progressBar(stderr, statSync(o.input).size) : null;
    let records = 0;
    let documents = 0;
    let errors = 0;
    let pending = '';
    let pendingCount = 0;
    let lastCheckpoint = Date.now();
    let lastBar = 0;
    const checkpointMs = o.checkpointMs ?? 1000;
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
      maxRecordBytes,
      stats,
      onBytes: (b: number) => {
        bytesRead = b;
      },
    };
    const pipe = o.pipe ? pipeInput(o.input, readerOptions) : null;
    const source = pipe ? pipe.records : readRecords(o.input, readerOptions);
    try {
      for await (const line of tagOrdered(resumed > 0 ? skip(source, resumed) : source, engine, o.ordered)) {
        pending += pipe ? pipe.line(line) : line.text;
        pendingCount++;
        records++;
        if (line.error) errors++;
        else documents++;
        if (pending.length >= 65536) await flush();
        const now = Date.now();
        if (now - lastCheckpoint >= checkpointMs) {
          await flush();
          await checkpoint();
          lastCheckpoint = now;
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
    const seconds = (Date.now() - t0) / 1000;
    const summary: TagRunSummary = {
      records,
      documents,
      errors,
      resumed,
      invalidUtf8: stats.invalidUtf8,
      workers,
      preset,
      kg: kgSource,
      setupSeconds,
      seconds,
      docsPerSecond: rate(documents, seconds),
    };
    return summary;
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
  return `${parts.join(', ')}${out ? ` → ${out}` : ''}\n`;
}
