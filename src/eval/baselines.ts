/**
 * nodejieba baselines in the evaluation harness (method-spec §4.4, §4.5): cppjieba's TF-IDF
 * `KeywordExtractor` (`nodejieba.extract`) and its `TextRankExtractor` (`nodejieba.textRankExtract`:
 * no POS filter, window = next 4 kept words, 10 Gauss-Seidel sweeps), each with nodejieba's bundled
 * dictionaries only, or with the KG user dictionary added (`+dict`, the lexicon "W" of the paper applied
 * to the library's own extractors). The jieba-parity TextRank of the pipeline is a preset
 * (`jieba-textrank`), not a baseline here.
 *
 * Assumptions:
 * - `+dict` passes the bundled user.dict.utf8 *and* the KG dictionary (cppjieba accepts several user
 *   dictionaries separated by `|`), so the only difference from the plain baseline is the KG lexicon.
 *   Words of a user dictionary line without a tag get POS `x`; neither extractor filters on POS, so the
 *   tag does not matter here.
 * - Each baseline runs in its own worker thread, which loads the dictionaries once (nodejieba's handles
 *   are module-global; a worker has its own copy, so the main thread's segmenter is never touched).
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from '../errors.js';
import { nodejiebaDefaultFiles } from '../lexicon/base.js';
import type { EvalSystem } from './systems.js';
import type { BaselineWorkerData, BaselineWorkerReply } from './baseline-worker.js';

export const BASELINES = ['nodejieba-tfidf', 'nodejieba-textrank', 'nodejieba-tfidf+dict', 'nodejieba-textrank+dict'] as const;
export type BaselineName = (typeof BASELINES)[number];

export const isBaseline = (name: string): name is BaselineName => (BASELINES as readonly string[]).includes(name);

/** Validate a baseline name; an unknown one is a usage error listing the valid names. */
export function checkBaseline(name: string): BaselineName {
  if (!isBaseline(name)) throw usageError(`eval: unknown baseline "${name}" (valid: ${BASELINES.join(', ')})`);
  return name;
}

/** Whether the baseline needs the KG user dictionary. */
export const baselineNeedsDict = (name: BaselineName): boolean => name.endsWith('+dict');

/** The KG user dictionary handed to a `+dict` baseline. */
export interface BaselineUserDict {
  /** Path of a user dictionary file in jieba format (one `word [freq] [tag]` per line). */
  path: string;
  /** Number of lines (entries) in it, recorded in the results. */
  entries: number;
}

const require = createRequire(import.meta.url);
const nodejiebaVersion = (): string => (require('nodejieba/package.json') as { version: string }).version;

/** Fully resolved description of a baseline (what results.json records as its options). */
export function baselineOptions(name: BaselineName, userDict?: BaselineUserDict | null): Record<string, unknown> {
  const textrank = name.startsWith('nodejieba-textrank');
  return {
    baseline: name,
    library: `nodejieba@${nodejiebaVersion()}`,
    method: textrank ? 'textRankExtract' : 'extract',
    algorithm: textrank
      ? 'cppjieba TextRankExtractor: MixSegment cut, no POS filter, drop 1-character words and stop words, window = next 4 kept words, 10 Gauss-Seidel sweeps, d = 0.85'
      : 'cppjieba KeywordExtractor: MixSegment cut, no POS filter, drop 1-character words and stop words, score = count × idf (unknown words: mean idf)',
    dictionaries: {
      dict: 'jieba.dict.utf8 (bundled)',
      idf: 'idf.utf8 (bundled)',
      stopWords: 'stop_words.utf8 (bundled)',
      userDict: baselineNeedsDict(name) ? ['user.dict.utf8 (bundled)', 'KG user dictionary'] : ['user.dict.utf8 (bundled)'],
    },
    ...(baselineNeedsDict(name) ? { userDictEntries: userDict?.entries ?? null } : {}),
  };
}

function startWorker(data: BaselineWorkerData): Worker {
  // The built CLI runs dist/*.js. Under tsx (tests) the sources are .ts and a worker does not inherit
  // tsx's loader hooks, so the worker first registers tsx, then imports the .ts entry.
  if (extname(fileURLToPath(import.meta.url)) !== '.ts') return new Worker(new URL('./baseline-worker.js', import.meta.url), { workerData: data });
  const entry = new URL('./baseline-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data });
}

/**
 * Start a baseline system (its worker loads the dictionaries before this resolves). `+dict` baselines
 * need `userDict`; the others ignore it.
 */
export async function createBaselineSystem(nameRaw: string, opts: { userDict?: BaselineUserDict | null } = {}): Promise<EvalSystem> {
  const name = checkBaseline(nameRaw);
  const needsDict = baselineNeedsDict(name);
  if (needsDict && !opts.userDict) throw usageError(`eval: baseline ${name} needs the KG user dictionary (a KG is required)`);
  const bundledUser = nodejiebaDefaultFiles().userDict;
  const data: BaselineWorkerData = {
    method: name.startsWith('nodejieba-textrank') ? 'textRankExtract' : 'extract',
    userDict: needsDict ? `${bundledUser}|${opts.userDict!.path}` : bundledUser,
  };
  const worker = startWorker(data);
  let closed = false;
  let failure: Error | undefined;
  let pending: { resolve: (p: string[][]) => void; reject: (e: Error) => void; onProgress?: (done: number) => void } | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    pending?.reject(err);
    pending = undefined;
  };
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: BaselineWorkerReply) => {
      if (m.type === 'ready') resolve();
      else if (m.type === 'progress') pending?.onProgress?.(m.done);
      else if (m.type === 'result') {
        pending?.resolve(m.predictions);
        pending = undefined;
      } else if (m.type === 'error') {
        const err = new Error(`eval: baseline ${name}: ${m.message}`);
        reject(err);
        fail(err);
      }
    });
    worker.on('error', (err) => {
      const e = new Error(`eval: baseline ${name} worker failed: ${err.message}`, { cause: err });
      reject(e);
      fail(e);
    });
    worker.on('exit', (code) => {
      if (!closed) {
        const e = new Error(`eval: baseline ${name} worker exited with code ${code}`);
        reject(e);
        fail(e);
      }
    });
  });
  const close = async () => {
    if (closed) return;
    closed = true;
    await worker.terminate();
  };
  try {
    await ready;
  } catch (err) {
    await close();
    throw err;
  }
  return {
    name,
    options: baselineOptions(name, opts.userDict),
    extractAll(texts, topK, onProgress) {
      if (failure) return Promise.reject(failure);
      if (closed) return Promise.reject(new Error(`eval: baseline ${name} is closed`));
      if (pending) return Promise.reject(new Error(`eval: baseline ${name} is busy`));
      return new Promise<string[][]>((resolve, reject) => {
        pending = { resolve, reject, onProgress };
        worker.postMessage({ type: 'run', texts: [...texts], topK });
      });
    },
    close,
  };
}

