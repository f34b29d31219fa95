/**
 * Ordered parallel tagging: reads records, sends documents to an engine in batches, and yields one output
 * line per input record in input order.
 *
 * Backpressure: at most `window` records are between "read" and "yielded" at any time; when the window
 * is full, reading stops until the oldest record is done. Together with the consumer awaiting its
 * writes, memory stays flat whatever the input size.
 */
import type { InputRecord } from '../io/readers.js';
import type { TagEngine, TagInput } from './engine.js';
import { documentLine, errorLine } from './format.js';

/** Options of {@link tagOrdered}. */
export interface OrderedOptions {
  /** Documents per batch sent to a worker. @default 16 */
  batchDocs?: number;
  /** Characters per batch (a batch is sent when either limit is reached). @default 65536 */
  batchChars?: number;
  /** Records in flight (read but not yet yielded). @default max(64, 8 × batchDocs × parallelism) */
  window?: number;
}

/** One output line, in input order. */
export interface OutputLine {
  /** Input line of the record. */
  line: number;
  /** JSON text with the trailing newline. */
  text: string;
  error: boolean;
  /** The record's film value when the KG did not know it (the run reports those once). */
  unknownFilm?: string;
}

export const DEFAULT_BATCH_DOCS = 16;
export const DEFAULT_BATCH_CHARS = 65536;
/** Defaults of {@link OrderedOptions} that are fixed values (frozen); the window depends on the engine. */
export const ORDERED_DEFAULTS = Object.freeze({ batchDocs: DEFAULT_BATCH_DOCS, batchChars: DEFAULT_BATCH_CHARS });

/** Tag records in order (see module header). Rejects if the engine fails (e.g. a worker dies). */
export async function* tagOrdered(records: AsyncIterable<InputRecord>, engine: TagEngine, opts: OrderedOptions = {}): AsyncGenerator<OutputLine> {
  const batchDocs = Math.max(1, opts.batchDocs ?? ORDERED_DEFAULTS.batchDocs);
  const batchChars = Math.max(1, opts.batchChars ?? ORDERED_DEFAULTS.batchChars);
  const window = Math.max(1, opts.window ?? Math.max(64, 8 * batchDocs * engine.parallelism));
  // Ring of finished lines indexed by sequence number mod window.
  const done: (OutputLine | undefined)[] = new Array(window);
  let nextRead = 0;
  let nextOut = 0;
  let batch: { seq: number; line: number; id: string }[] = [];
  let texts: TagInput[] = [];
  let chars = 0;
  let failure: unknown = null;
  const inflight = new Set<Promise<void>>();
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  const dispatch = () => {
    if (batch.length === 0) return;
    const meta = batch;
    const sent = texts;
    batch = [];
    texts = [];
    chars = 0;
    const p: Promise<void> = engine.run(sent).then(
      (results) => {
        for (let i = 0; i < meta.length; i++) {
          const m = meta[i];
          const r = results[i];
          done[m.seq % window] =
            r && 'json' in r
              ? { line: m.line, text: documentLine(m.id, r.json), error: false, ...(r.unknownFilm !== undefined ? { unknownFilm: r.unknownFilm } : {}) }
              : { line: m.line, text: errorLine(m.id, m.line, r ? r.error : 'extract: no result'), error: true };
        }
      },
      (err: unknown) => {
        failure ??= err;
      },
    );
    const tracked = p.finally(() => {
      inflight.delete(tracked);
      notify();
    });
    inflight.add(tracked);
  };

  // Wait until something in flight finishes.
  const waitOne = async () => {
    if (inflight.size === 0) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  };

  function* flush(): Generator<OutputLine> {
    if (failure) throw failure;
    for (;;) {
      const slot = nextOut % window;
      const item = done[slot];
      if (nextOut >= nextRead || item === undefined) return;
      done[slot] = undefined;
      nextOut++;
      yield item;
    }
  }

  for await (const rec of records) {
    while (nextRead - nextOut >= window) {
      dispatch();
      yield* flush();
      if (nextRead - nextOut < window) break;
      await waitOne();
      yield* flush();
    }
    const seq = nextRead++;
    if ('error' in rec) {
      done[seq % window] = { line: rec.line, text: errorLine(rec.id, rec.line, rec.error), error: true };
    } else {
      batch.push({ seq, line: rec.line, id: rec.id });
      texts.push(rec.film === undefined && rec.title === undefined ? rec.text : { text: rec.text, film: rec.film, title: rec.title });
      chars += rec.text.length;
      if (batch.length >= batchDocs || chars >= batchChars) dispatch();
    }
    yield* flush();
  }
  dispatch();
  while (nextOut < nextRead) {
    yield* flush();
    if (nextOut >= nextRead) break;
    await waitOne();
  }
  yield* flush();
}
