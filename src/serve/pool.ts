/**
 * The extraction pool of `filmkw serve` (issue 26): extraction runs off the server's event loop, in
 * worker threads (piscina, a maintained pool: it replaces a thread that died, ends a running task by
 * terminating its thread, and queues the rest), each with a heap cap (`resourceLimits`), so one request
 * can neither freeze the server nor take it down:
 *
 * - time: a request still running after `requestTimeoutMs` is ended (its thread terminated and
 *   replaced) and answered 413;
 * - memory: a request that reaches the thread's heap cap (`requestHeapMb`) ends that thread only and is
 *   answered 413;
 * - fairness: a "heavy" request (a text of more than `heavyChars` characters, counted once per preset)
 *   may occupy at most `workers − 1` threads (one with a single thread), starts only on a thread no
 *   short request is waiting for (short requests go first), and at most `heavyQueue` heavy requests
 *   wait, each at most `requestTimeoutMs`; so short requests always have a thread, and a flood of long
 *   ones gets 503;
 * - queue: at most `maxQueue` requests wait in all; beyond, 503 with Retry-After.
 *
 * Every worker loads the KG from one snapshot file (the server's, or a temporary one it writes).
 */
import { fileURLToPath } from 'node:url';
import { extname } from 'node:path';
import { Piscina } from 'piscina';
import type { ServeReply, ServeTask, ServeWorkerData } from './extract-worker.js';

/** The pool's budgets and sizes (validated by server.ts as ServeLimits). */
export interface PoolOptions {
  snapshot: string;
  preset: string;
  workers: number;
  requestTimeoutMs: number;
  requestHeapMb: number;
  heavyChars: number;
  heavyQueue: number;
  maxQueue: number;
  extractorCache: number;
  maxEdges: number;
  maxResponseBytes: number;
}

/** A reply the pool makes itself (over budget, busy); `retryAfter` in seconds for 503. */
export type PoolReply = ServeReply | { status: 503; body: string; retryAfter: number };

const json = (error: string, field?: string): string => JSON.stringify(field ? { error, field } : { error });

/** The worker module next to this one: compiled .js, or .ts under tsx (the threads inherit its --import). */
function workerFile(): string {
  const ts = extname(fileURLToPath(import.meta.url)) === '.ts';
  return new URL(ts ? './extract-worker.ts' : './extract-worker.js', import.meta.url).href;
}

export class ExtractionPool {
  private heavyRunning = 0;
  private lightInFlight = 0;
  private readonly heavyWaiting: (() => void)[] = [];
  private readonly heavyLimit: number;
  private constructor(
    private readonly pool: Piscina,
    private readonly o: PoolOptions,
  ) {
    this.heavyLimit = Math.max(1, o.workers - 1);
  }

  /** Start the threads and wait until each has loaded the KG and warmed the preset up. */
  static async create(o: PoolOptions): Promise<ExtractionPool> {
    const workerData: ServeWorkerData = { snapshot: o.snapshot, preset: o.preset, extractorCache: o.extractorCache, maxEdges: o.maxEdges, maxResponseBytes: o.maxResponseBytes };
    const pool = new Piscina({
      filename: workerFile(),
      minThreads: o.workers,
      maxThreads: o.workers,
      idleTimeout: Infinity,
      maxQueue: o.maxQueue,
      resourceLimits: { maxOldGenerationSizeMb: o.requestHeapMb },
      workerData,
    });
    const self = new ExtractionPool(pool, o);
    const warm: ServeTask = { kind: 'warm', text: '', presets: [], options: {}, explain: false, gold: null };
    try {
      await Promise.all(Array.from({ length: o.workers }, () => pool.run(warm)));
    } catch (err) {
      await pool.destroy();
      throw new Error(`serve: the extraction workers could not start: ${(err as Error).message}`, { cause: err });
    }
    return self;
  }

  /** Threads busy or waiting (for /api/info and tests). */
  get stats(): { threads: number; queued: number; heavyRunning: number; heavyWaiting: number; completed: number } {
    return { threads: this.pool.threads.length, queued: this.pool.queueSize, heavyRunning: this.heavyRunning, heavyWaiting: this.heavyWaiting.length, completed: this.pool.completed };
  }

  /** Run one validated request within the budgets (see module header); never rejects. */
  async run(task: ServeTask): Promise<PoolReply> {
    const heavy = task.text.length * Math.max(1, task.presets.length) > this.o.heavyChars;
    if (!heavy) {
      this.lightInFlight++;
      try {
        return await this.submit(task);
      } finally {
        this.lightInFlight--;
        this.wakeHeavy();
      }
    }
    if (this.heavyMayStart()) this.heavyRunning++;
    else {
      if (this.heavyWaiting.length >= this.o.heavyQueue) return this.busy(`${this.heavyRunning} long texts are being analysed and ${this.heavyWaiting.length} wait`);
      // the slot is taken for this request by wakeHeavy
      if (!(await this.waitForHeavySlot())) return this.busy(`no thread was free for a long text within ${this.o.requestTimeoutMs} ms`);
    }
    try {
      return await this.submit(task);
    } finally {
      this.heavyRunning--;
      this.wakeHeavy();
    }
  }

  /** A heavy request may start: under its share of threads, and no short request waits for a thread. */
  private heavyMayStart(): boolean {
    return this.heavyRunning < this.heavyLimit && this.heavyRunning + this.lightInFlight < this.o.workers;
  }

  /** Wait until {@link wakeHeavy} gives this request a slot, at most requestTimeoutMs; false when the time ran out. */
  private waitForHeavySlot(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const k = this.heavyWaiting.indexOf(wake);
        if (k >= 0) this.heavyWaiting.splice(k, 1);
        resolve(false);
      }, this.o.requestTimeoutMs);
      this.heavyWaiting.push(wake);
    });
  }

  private wakeHeavy(): void {
    while (this.heavyWaiting.length > 0 && this.heavyMayStart()) {
      this.heavyRunning++; // the slot of the woken request
      this.heavyWaiting.shift()!();
    }
  }

  private busy(why: string): PoolReply {
    return { status: 503, body: json(`the server is busy (${why}); try again shortly`), retryAfter: 1 };
  }

  private async submit(task: ServeTask): Promise<PoolReply> {
    if (this.pool.queueSize >= this.o.maxQueue) return this.busy(`${this.pool.queueSize} requests wait`);
    try {
      return (await this.pool.run(task, { signal: AbortSignal.timeout(this.o.requestTimeoutMs) })) as ServeReply;
    } catch (err) {
      const e = err as Error & { code?: string };
      if (e.name === 'AbortError' || e.name === 'TimeoutError') {
        return { status: 413, body: json(`the analysis took longer than ${this.o.requestTimeoutMs} ms and was stopped; send a shorter text or lighter options`, 'text') };
      }
      if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        return { status: 413, body: json(`the analysis needed more than the ${this.o.requestHeapMb} MB memory budget of a request and was stopped; send a shorter text or lighter options`, 'text') };
      }
      if (/queue is at limit/iu.test(e.message)) return this.busy('the queue is full');
      return { status: 500, body: json(`internal error: ${e.message}`) };
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
