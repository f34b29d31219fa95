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
 *   runs in a pool of its own, `workers − 1` threads (one with a single worker) at a lower CPU priority
 *   (Linux: each of its threads raises its own nice value by `heavyNice`; Linux keeps nice per thread),
 *   and at most `heavyQueue` heavy requests wait, each at most `requestTimeoutMs`. Short requests have
 *   all `workers` threads of the other pool, never wait for a thread a long text holds, and the kernel
 *   runs them (and the server's event loop) before the long texts whenever they compete for a core; a
 *   flood of long texts gets 503. (Before, both kinds shared the `workers` threads: a long text started
 *   while no short one waited kept its thread, and its CPU share, when short ones arrived; bench/serve-load.ts
 *   measured the difference: bench/README.md "Figures behind code comments".) The price: up to
 *   `2 × workers − 1` threads, each with its own copy of the KG;
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
  /** Added to the nice value of the heavy pool's threads (Linux; 0 = same priority). */
  heavyNice: number;
}

/** A reply the pool makes itself (over budget, busy); `retryAfter` in seconds for 503. */
export type PoolReply = ServeReply | { status: 503; body: string; retryAfter: number };

const json = (error: string, field?: string): string => JSON.stringify(field ? { error, field } : { error });

/** The worker module next to this one: compiled .js, or .ts under tsx (the threads inherit its --import). */
function workerFile(): string {
  const ts = extname(fileURLToPath(import.meta.url)) === '.ts';
  return new URL(ts ? './extract-worker.ts' : './extract-worker.js', import.meta.url).href;
}

/** One pool's counters (for /api/info and tests). */
export interface PoolStats {
  threads: number;
  queued: number;
  completed: number;
}

/** Start a piscina pool of `threads` and wait until each thread has loaded the KG and warmed the preset up. */
async function startPool(o: PoolOptions, threads: number, maxQueue: number, nice: number): Promise<Piscina> {
  const workerData: ServeWorkerData = { snapshot: o.snapshot, preset: o.preset, extractorCache: o.extractorCache, maxEdges: o.maxEdges, maxResponseBytes: o.maxResponseBytes, nice };
  const pool = new Piscina({
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Infinity,
    maxQueue,
    resourceLimits: { maxOldGenerationSizeMb: o.requestHeapMb },
    workerData,
  });
  const warm: ServeTask = { kind: 'warm', text: '', presets: [], options: {}, explain: false, gold: null };
  try {
    await Promise.all(Array.from({ length: threads }, () => pool.run(warm)));
  } catch (err) {
    await pool.destroy();
    throw new Error(`serve: the extraction workers could not start: ${(err as Error).message}`, { cause: err });
  }
  return pool;
}

const statsOf = (p: Piscina): PoolStats => ({ threads: p.threads.length, queued: p.queueSize, completed: p.completed });

export class ExtractionPool {
  private heavyRunning = 0;
  private readonly heavyWaiting: (() => void)[] = [];
  private constructor(
    private readonly pool: Piscina,
    private readonly heavyPool: Piscina,
    private readonly heavyLimit: number,
    private readonly o: PoolOptions,
  ) {}

  /** Start both pools' threads (see the module header) and wait until every thread is ready. */
  static async create(o: PoolOptions): Promise<ExtractionPool> {
    const heavyLimit = Math.max(1, o.workers - 1);
    const pool = await startPool(o, o.workers, o.maxQueue, 0);
    let heavyPool: Piscina;
    try {
      heavyPool = await startPool(o, heavyLimit, o.heavyQueue + heavyLimit, o.heavyNice);
    } catch (err) {
      await pool.destroy();
      throw err;
    }
    return new ExtractionPool(pool, heavyPool, heavyLimit, o);
  }

  /** Threads, queues and completed tasks of the short-text pool (`light`) and the long-text pool (`heavy`). */
  get stats(): { light: PoolStats; heavy: PoolStats & { running: number; waiting: number } } {
    return { light: statsOf(this.pool), heavy: { ...statsOf(this.heavyPool), running: this.heavyRunning, waiting: this.heavyWaiting.length } };
  }

  /** Run one validated request within the budgets (see module header); never rejects. */
  async run(task: ServeTask): Promise<PoolReply> {
    const heavy = task.text.length * Math.max(1, task.presets.length) > this.o.heavyChars;
    if (!heavy) return this.submit(this.pool, task);
    if (this.heavyMayStart()) this.heavyRunning++;
    else {
      if (this.heavyWaiting.length >= this.o.heavyQueue) return this.busy(`${this.heavyRunning} long texts are being analysed and ${this.heavyWaiting.length} wait`);
      // the slot is taken for this request by wakeHeavy
      if (!(await this.waitForHeavySlot())) return this.busy(`no thread was free for a long text within ${this.o.requestTimeoutMs} ms`);
    }
    try {
      return await this.submit(this.heavyPool, task);
    } finally {
      this.heavyRunning--;
      this.wakeHeavy();
    }
  }

  /** A heavy request may start: a thread of the heavy pool is free. */
  private heavyMayStart(): boolean {
    return this.heavyRunning < this.heavyLimit;
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

  private async submit(pool: Piscina, task: ServeTask): Promise<PoolReply> {
    if (pool.queueSize >= this.o.maxQueue) return this.busy(`${pool.queueSize} requests wait`);
    try {
      return (await pool.run(task, { signal: AbortSignal.timeout(this.o.requestTimeoutMs) })) as ServeReply;
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
    await Promise.all([this.pool.destroy(), this.heavyPool.destroy()]);
  }
}
