/**
 * One extraction worker of `filmkw serve` (a thread of the piscina pool, src/serve/pool.ts). It loads
 * the server's KG from a snapshot file once, keeps an LRU of extractors (one per preset + options),
 * warms the first view's preset up, and answers the validated requests of `POST /api/extract` and
 * `POST /api/compare` with the response body already serialised (so the server's thread never builds
 * or stringifies a large result). Its heap is capped by the pool (resourceLimits) and a request that
 * runs too long is ended by terminating the thread: a request over budget costs this worker, never the
 * server.
 *
 * Expected failures are answers, not exceptions: a bad option is 400 naming `options`, a document
 * refused by the graph stage's work bound (pipeline/graph.ts GRAPH_WORK_LIMIT) or a result larger than
 * `maxResponseBytes` is 413.
 */
import { getPriority, setPriority } from 'node:os';
import { workerData } from 'piscina';
import { FilmkwError } from '../errors.js';
import type { KgStore } from '../kg/store.js';
import { loadSnapshot } from '../kg/snapshot.js';
import type { Extractor } from '../pipeline/api.js';
import { createExtractor } from '../pipeline/extract.js';
import { normalizeKeyword } from '../eval/metrics.js';
import { analyzeText, type ViewResult } from './analyze.js';

/** What every worker is given (piscina `workerData`). */
export interface ServeWorkerData {
  /** The KG snapshot file the worker loads. */
  snapshot: string;
  /** Preset warmed up at start. */
  preset: string;
  extractorCache: number;
  maxEdges: number;
  maxResponseBytes: number;
  /**
   * Added to this thread's nice value at start (the long-text pool, src/serve/pool.ts). Linux only:
   * there the nice value belongs to the thread; elsewhere setpriority(0) would lower the whole server.
   */
  nice: number;
}

/** A validated request (server.ts checks the body first). `warm`: only wait until the worker is ready. */
export interface ServeTask {
  kind: 'extract' | 'compare' | 'warm';
  text: string;
  /** One preset (extract) or 2 to 4 (compare). */
  presets: string[];
  options: Record<string, unknown>;
  topK?: number;
  explain: boolean;
  gold: string[] | null;
  /** The document context (the film the text is about, its title). */
  film?: string;
  title?: string;
}

/** The HTTP answer: status and JSON body. */
export interface ServeReply {
  status: 200 | 400 | 413 | 500;
  body: string;
}

const WARM_TEXT = '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。吴京饰演的连长伍千里是他的哥哥。';

const data = workerData as ServeWorkerData;
const extractors = new Map<string, Extractor>();
let kg: KgStore;
/** Loads the KG and warms the preset up, once (on the first task: the pool's warm-up). No top-level await: piscina loads the module with require first. */
let ready: Promise<void> | null = null;
async function start(): Promise<void> {
  if (data.nice > 0 && process.platform === 'linux') {
    try {
      setPriority(0, Math.min(19, getPriority(0) + data.nice));
    } catch {
      // not allowed (a sandbox without setpriority): the thread keeps the server's priority
    }
  }
  kg = await loadSnapshot(data.snapshot);
  extractorFor(data.preset, {}).extract(WARM_TEXT, { explain: true, inspect: () => undefined });
}

/** A request error inside the worker (answered with its status). */
class Refusal extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The extractor of a preset + options, made once (an LRU of `extractorCache`). */
function extractorFor(preset: string, options: Record<string, unknown>): Extractor {
  const key = JSON.stringify([preset, Object.keys(options).sort().map((k) => [k, options[k]])]);
  let ex = extractors.get(key);
  if (ex) {
    extractors.delete(key);
    extractors.set(key, ex);
    return ex;
  }
  try {
    ex = createExtractor({ preset, overrides: Object.keys(options).length > 0 ? options : undefined, kg });
  } catch (err) {
    // the field names the options already: "bad value for …", not "options: overrides: bad value for …"
    if (err instanceof FilmkwError && err.code === 'USAGE') throw new Refusal(400, err.message.replace(/^options: overrides: /u, ''), 'options');
    throw err;
  }
  extractors.set(key, ex);
  if (extractors.size > data.extractorCache) extractors.delete(extractors.keys().next().value!);
  return ex;
}

function view(task: ServeTask, preset: string): ViewResult {
  const ex = extractorFor(preset, task.options);
  const topK = task.topK ?? (ex.options.output as { topK: number }).topK;
  try {
    return analyzeText(ex, kg, task.text, { topK, explain: task.explain, maxEdges: data.maxEdges, film: task.film, title: task.title });
  } catch (err) {
    // the graph stage's work bound (pipeline/graph.ts) refuses the document for these options
    if (err instanceof FilmkwError && err.code === 'INPUT') throw new Refusal(413, err.message, 'text');
    throw err;
  }
}

function compare(task: ServeTask): unknown {
  const results = task.presets.map((p) => view(task, p));
  const sets = results.map((r) => new Set(r.keywords.map((k) => k.word)));
  const goldSet = task.gold ? new Set(task.gold.map(normalizeKeyword)) : null;
  return {
    results,
    // per result: its keywords that no other result has; and those the previous result (a step of a ladder) lacks
    only: results.map((r, i) => r.keywords.filter((k) => sets.every((set, j) => j === i || !set.has(k.word))).map((k) => k.word)),
    added: results.map((r, i) => (i === 0 ? [] : r.keywords.filter((k) => !sets[i - 1].has(k.word)).map((k) => k.word))),
    gold: task.gold ?? undefined,
    hits: goldSet ? results.map((r) => r.keywords.filter((k) => goldSet.has(normalizeKeyword(k.word))).map((k) => k.word)) : undefined,
  };
}

/** The task handler (piscina calls the default export). */
export default async function handle(task: ServeTask): Promise<ServeReply> {
  await (ready ??= start());
  try {
    if (task.kind === 'warm') return { status: 200, body: '{}' };
    const body = JSON.stringify(task.kind === 'compare' ? compare(task) : view(task, task.presets[0]));
    const bytes = Buffer.byteLength(body);
    if (bytes > data.maxResponseBytes) {
      throw new Refusal(413, `the result would be ${bytes} bytes, over the bound of ${data.maxResponseBytes}; send a shorter text, or "explain": false`, 'text');
    }
    return { status: 200, body };
  } catch (err) {
    if (err instanceof Refusal) return { status: err.status, body: JSON.stringify(err.field ? { error: err.message, field: err.field } : { error: err.message }) };
    return { status: 500, body: JSON.stringify({ error: `internal error: ${(err as Error)?.message ?? String(err)}` }) };
  }
}
