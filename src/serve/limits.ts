/**
 * The limits of `filmkw serve` and their defaults, apart from the server so that the CLI can show them
 * in `--help` without loading the server.
 */

/** Limits and defaults of the server (frozen; `createServeApp` validates overrides). */
export interface ServeLimits {
  /** Largest request body, bytes. @default 1048576 */
  maxBodyBytes: number;
  /** Longest text, characters. @default 200000 */
  maxTextChars: number;
  /** Largest topK. @default 100 */
  maxTopK: number;
  /** Extractors kept (one per preset + options). @default 8 */
  extractorCache: number;
  /** Neighbours returned per entity. @default 300 */
  maxNeighbours: number;
  /** Extraction worker threads. @default 2 */
  workers: number;
  /** Time budget of one extraction request (queue wait included), ms; over it: 413. @default 30000 */
  requestTimeoutMs: number;
  /** Heap budget of one extraction request (its worker thread's cap), MB; over it: 413. @default 1024 */
  requestHeapMb: number;
  /** A text longer than this (characters × presets) is heavy: it runs in a pool of its own of workers − 1 threads (at least 1), at a lower CPU priority. @default 20000 */
  heavyChars: number;
  /** Nice value added to the heavy pool's threads (Linux; 0–19, 0 = the server's priority). @default 10 */
  heavyNice: number;
  /** Heavy requests that may wait for a thread; beyond: 503. @default 4 */
  heavyQueue: number;
  /** Requests that may wait for a thread in all; beyond: 503. @default 2048 */
  maxQueue: number;
  /** Word-graph edges in a response (the heaviest are kept, `truncated` says how many there were). @default 20000 */
  maxEdges: number;
  /** Largest response body of an extraction, bytes; over it: 413. @default 16777216 */
  maxResponseBytes: number;
}

export const SERVE_DEFAULTS: Readonly<ServeLimits> = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  maxTextChars: 200_000,
  maxTopK: 100,
  extractorCache: 8,
  maxNeighbours: 300,
  workers: 2,
  requestTimeoutMs: 30_000,
  requestHeapMb: 1024,
  heavyChars: 20_000,
  heavyNice: 10,
  heavyQueue: 4,
  maxQueue: 2048,
  maxEdges: 20_000,
  maxResponseBytes: 16 * 1024 * 1024,
});

