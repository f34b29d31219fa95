/**
 * Tagging engines: where the keyword extraction of a batch of texts runs.
 *
 * - {@link InlineEngine}: in this thread (`--workers 1`), no thread overhead, fastest cold start.
 * - {@link WorkerPool}: a fixed pool of worker threads (`--workers N`), created once and kept for the
 *   whole run (never re-created per batch: the segmenters' native dictionaries are not returned to the
 *   OS when a worker exits). Each worker builds its own Extractor once, from the same
 *   {@link ExtractorFactorySpec}, and answers batches in order.
 *
 * Both return, per text, the keywords as a JSON array string (format.ts, formatted where the work is
 * done) or an error message (a document whose extraction throws becomes an error record, the run goes
 * on). A worker that dies is fatal for the run (FilmkwError OUTPUT would be wrong; it is an internal
 * failure and is reported as such); `--resume` continues from the last checkpoint.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { extname } from 'node:path';
import { FilmkwError, type ErrorCode } from '../errors.js';
import type { Extractor } from '../pipeline/api.js';
import { loadFactory, type ExtractorFactorySpec } from './factory.js';
import { tagTexts, type TagCallOptions, type TagInput, type TagResult } from './tag-texts.js';
import type { WorkerData, WorkerReply, WorkerRequest } from './worker.js';

export type { TagCallOptions, TagDocument, TagInput, TagResult } from './tag-texts.js';

export interface TagEngine {
  /** Number of texts processed in parallel. */
  readonly parallelism: number;
  /** Extract from each document; same order as `docs`. */
  run(docs: readonly TagInput[]): Promise<TagResult[]>;
  close(): Promise<void>;
}

/** Extraction in the calling thread. */
export class InlineEngine implements TagEngine {
  readonly parallelism = 1;
  constructor(
    readonly extractor: Extractor,
    private readonly call: TagCallOptions,
  ) {}
  static async create(factory: ExtractorFactorySpec, call: TagCallOptions): Promise<InlineEngine> {
    return new InlineEngine(await loadFactory(factory), call);
  }
  async run(docs: readonly TagInput[]): Promise<TagResult[]> {
    return tagTexts(this.extractor, docs, this.call);
  }
  async close(): Promise<void> {}
}

/** What a worker reports once its extractor is built. */
export interface WorkerInfo {
  preset: string;
  /** Content hash of the worker's KG (null without a KG), to check every worker has the same KG. */
  kgHash: string | null;
}

interface Pending {
  resolve: (r: TagResult[]) => void;
  reject: (e: Error) => void;
  chars: number;
  texts: readonly TagInput[];
}

interface Slot {
  worker: Worker;
  index: number;
  /** Batches sent and not answered, in the order sent: the worker answers them in that order, so the first is the one it is on. */
  pending: Map<number, Pending>;
  chars: number;
  dead: Error | null;
}

/** Heap cap of a pool's worker threads (`resourceLimits.maxOldGenerationSizeMb`); absent: V8's default. */
export interface PoolLimits {
  heapMb?: number;
}

/** The error record of a document that ran a worker thread out of memory on its own. */
export function outOfMemoryError(heapMb: number | undefined): string {
  return `extract: out of memory: the document needs more than the heap of a worker thread (${heapMb === undefined ? "V8's default" : `--worker-heap-mb ${heapMb}`}); it was tagged alone and failed alone`;
}

/** Start the worker script: compiled JS as is; under tsx (a .ts module) register tsx in the worker first. */
export function startWorker(data: WorkerData, moduleUrl: string = import.meta.url, limits: PoolLimits = {}): Worker {
  const ts = extname(fileURLToPath(moduleUrl)) === '.ts';
  const entry = new URL(ts ? './worker.ts' : './worker.js', moduleUrl);
  // A worker does not inherit the parent's loader hooks: register tsx, then import the .ts entry.
  const bootstrap = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  // stdout/stderr: true — by default Node pipes each worker's streams into the parent's, one 'error'
  // listener per worker on process.stdout (a MaxListeners warning from 10 workers on). Forwarded by hand
  // instead, both to stderr: stdout carries the JSON lines, which nothing in a worker may write.
  const resourceLimits = limits.heapMb === undefined ? undefined : { maxOldGenerationSizeMb: limits.heapMb };
  const w = ts ? new Worker(bootstrap, { eval: true, workerData: data, stdout: true, stderr: true, resourceLimits }) : new Worker(entry, { workerData: data, stdout: true, stderr: true, resourceLimits });
  w.stdout.on('data', (d: Buffer) => process.stderr.write(d));
  w.stderr.on('data', (d: Buffer) => process.stderr.write(d));
  return w;
}

/**
 * A fixed pool of extraction workers (see module header). A worker that runs out of memory (its heap cap,
 * {@link PoolLimits}) is replaced: the batch it was on is tagged again one document per batch, so the
 * document that needs too much memory on its own becomes an error record ({@link outOfMemoryError}) and
 * every other document is tagged; the batches queued behind it are sent again as they were. Any other
 * death of a worker is fatal for the run.
 */
export class WorkerPool implements TagEngine {
  private nextId = 1;
  private closed = false;
  private restarting: Promise<void> | null = null;
  private constructor(
    private readonly slots: Slot[],
    readonly info: WorkerInfo[],
    private readonly factory: ExtractorFactorySpec,
    private readonly call: TagCallOptions,
    private readonly limits: PoolLimits,
  ) {}

  get parallelism(): number {
    return this.slots.length;
  }

  /** Start `size` workers and wait until every one has built its extractor. */
  static async create(size: number, factory: ExtractorFactorySpec, call: TagCallOptions, limits: PoolLimits = {}): Promise<WorkerPool> {
    const slots: Slot[] = [];
    const ready: Promise<WorkerInfo>[] = [];
    let pool: WorkerPool | null = null;
    const onOom = (slot: Slot) => pool?.recover(slot);
    for (let index = 0; index < size; index++) {
      const { slot, started } = startSlot(index, factory, call, limits, onOom);
      slots.push(slot);
      ready.push(started);
    }
    try {
      const info = await Promise.all(ready);
      pool = new WorkerPool(slots, info, factory, call, limits);
      return pool;
    } catch (err) {
      await Promise.allSettled(slots.map((s) => s.worker.terminate()));
      throw err;
    }
  }

  /**
   * A worker ran out of memory: replace it, tag the batch it was on one document at a time, send the
   * others again (see the class header).
   */
  private recover(slot: Slot): void {
    const batches = [...slot.pending.values()];
    slot.pending.clear();
    slot.chars = 0;
    const restart = (async () => {
      const fresh = startSlot(slot.index, this.factory, this.call, this.limits, (s) => this.recover(s));
      try {
        await fresh.started;
      } catch (err) {
        await fresh.slot.worker.terminate();
        if (this.closed) return; // the run ended meanwhile (its KG snapshot may be gone): nothing to replace
        throw err;
      }
      if (this.closed) {
        await fresh.slot.worker.terminate();
        return;
      }
      this.slots[slot.index] = fresh.slot;
    })();
    const settled = restart.then(
      () => undefined,
      (err: Error) => {
        for (const p of batches) p.reject(err);
      },
    );
    const tracked: Promise<void> = settled.finally(() => {
      if (this.restarting === tracked) this.restarting = null;
    });
    this.restarting = tracked;
    batches.forEach((p, k) => {
      const culprit = k === 0;
      if (culprit && p.texts.length === 1) p.resolve([{ error: outOfMemoryError(this.limits.heapMb) }]);
      else if (culprit) Promise.all(p.texts.map((t) => this.run([t]).then((r) => r[0]))).then(p.resolve, p.reject);
      else this.run(p.texts).then(p.resolve, p.reject);
    });
  }

  /** Send a batch to the least-loaded live worker (by characters in flight). */
  async run(docs: readonly TagInput[]): Promise<TagResult[]> {
    if (this.closed) throw new Error('tag: worker pool is closed');
    let best = this.liveSlot();
    while (best === null && this.restarting !== null) {
      await this.restarting;
      best = this.liveSlot();
    }
    if (best === null) throw this.slots[0].dead ?? new Error('tag: no live worker');
    const slot = best;
    const id = this.nextId++;
    let chars = 0;
    for (const d of docs) chars += typeof d === 'string' ? d.length : d.text.length;
    return new Promise<TagResult[]>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject, chars, texts: docs });
      slot.chars += chars;
      const req: WorkerRequest = { type: 'batch', id, docs };
      slot.worker.postMessage(req);
    });
  }

  private liveSlot(): Slot | null {
    let best: Slot | null = null;
    for (const s of this.slots) if (!s.dead && (best === null || s.chars < best.chars)) best = s;
    return best;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.slots) s.dead ??= new Error('tag: worker pool is closed');
    // a worker being replaced is terminated by its restart once it sees the pool closed
    await Promise.allSettled([...this.slots.map((s) => s.worker.terminate()), this.restarting]);
  }
}

/** A worker out of memory before its first document: its heap cap cannot hold the extractor (KG, lexicon, model) at all. */
function startOomError(heapMb: number | undefined, cause: Error): FilmkwError {
  const cap = heapMb === undefined ? "V8's default heap" : `--worker-heap-mb ${heapMb}`;
  return new FilmkwError('USAGE', `tag: a worker thread ran out of memory while loading the KG and the lexicon, before any document (${cap}); give it more memory, e.g. --worker-heap-mb 512, or leave the option out`, { cause });
}

/**
 * Start one worker in slot `index`; `started` resolves with what it reports once its extractor is built.
 * An out-of-memory death calls `onOom` (the pool recovers); any other death rejects its batches.
 */
function startSlot(index: number, factory: ExtractorFactorySpec, call: TagCallOptions, limits: PoolLimits, onOom: (slot: Slot) => void): { slot: Slot; started: Promise<WorkerInfo> } {
  const worker = startWorker({ factory, call, index }, import.meta.url, limits);
  const slot: Slot = { worker, index, pending: new Map(), chars: 0, dead: null };
  const started = new Promise<WorkerInfo>((resolve, reject) => {
    let isStarted = false;
    worker.on('message', (m: WorkerReply) => {
      if (m.type === 'ready') {
        isStarted = true;
        resolve({ preset: m.preset, kgHash: m.kgHash });
      } else if (m.type === 'fatal') {
        const err = m.code ? new FilmkwError(m.code as ErrorCode, m.message) : new Error(`tag: worker ${index}: ${m.message}`);
        slot.dead = err;
        reject(err);
      } else if (m.type === 'done') {
        const p = slot.pending.get(m.id);
        if (!p) return;
        slot.pending.delete(m.id);
        slot.chars -= p.chars;
        p.resolve(m.results);
      }
    });
    const die = (err: Error) => {
      if (slot.dead) return;
      slot.dead = err;
      if (!isStarted) reject(err);
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('error', (err: Error & { code?: string }) => {
      if (isStarted && err.code === 'ERR_WORKER_OUT_OF_MEMORY' && !slot.dead) {
        slot.dead = err;
        onOom(slot);
        return;
      }
      if (!isStarted && err.code === 'ERR_WORKER_OUT_OF_MEMORY') die(startOomError(limits.heapMb, err));
      else die(new Error(`tag: worker ${index} failed: ${err.message}`, { cause: err }));
    });
    worker.on('exit', (code) => die(new Error(`tag: worker ${index} exited unexpectedly (code ${code})`)));
  });
  return { slot, started };
}
