/**
 * What the evaluator runs: a "system" turns a batch of texts into ranked keyword lists. Two kinds exist:
 * a pipeline {@link Extractor} (a preset plus overrides, synchronous, run in this thread) and a nodejieba
 * baseline (run in a worker thread so that its module-global dictionaries never clash with the
 * pipeline's segmenter; see baselines.ts). Both are driven through the same asynchronous batch interface
 * so that `filmkw eval`, `filmkw experiments` and the tests use one code path.
 */
import type { Extractor } from '../pipeline/api.js';
import type { KgView } from '../kg/model.js';
import { evaluate, type EvalOptions, type EvalResult } from './metrics.js';
import type { GoldDocument } from './readers.js';
import type { DocumentContextInput } from '../pipeline/context.js';

/** A keyword extraction system under evaluation. */
export interface EvalSystem {
  /** Display name, e.g. `textrank+w` or `nodejieba-tfidf+dict`. */
  readonly name: string;
  /** Fully resolved options (JSON-serialisable) recorded in results.json. */
  readonly options: Readonly<Record<string, unknown>>;
  /**
   * Ranked keywords (best first, at most `topK`) for every text, in input order. `contexts[i]` is text
   * i's film and title (the document context), which a pipeline system passes to its extractor and a
   * baseline ignores.
   */
  extractAll(texts: readonly string[], topK: number, onProgress?: (done: number) => void, contexts?: readonly DocumentContextInput[]): Promise<string[][]>;
  /** The pipeline extractor behind a preset system (absent for a baseline), for the error analysis (placement.ts). */
  readonly extractor?: Extractor;
  /** Release resources (worker threads). Idempotent. */
  close(): Promise<void>;
}

/** Wrap a pipeline extractor as a system. */
export function extractorSystem(name: string, extractor: Extractor): EvalSystem {
  return {
    name,
    options: extractor.options,
    extractor,
    async extractAll(texts, topK, onProgress, contexts) {
      const out: string[][] = [];
      for (let i = 0; i < texts.length; i++) {
        out.push(extractor.extract(texts[i], { topK, film: contexts?.[i]?.film, title: contexts?.[i]?.title }).map((k) => k.word));
        onProgress?.(i + 1);
      }
      return out;
    },
    async close() {},
  };
}

/**
 * How many keywords to request so that every K can be filled even after predictions that normalise to
 * the same key are merged: twice the largest K.
 */
export const requestSize = (ks: readonly number[]): number => 2 * Math.max(...ks);

/** Result of running one system over a gold set. */
export interface SystemEvaluation {
  result: EvalResult;
  /** Raw ranked predictions per document (as returned, before normalisation). */
  predictions: string[][];
  /** Wall-clock seconds spent extracting. */
  seconds: number;
}

/** Run a system over the gold documents and score it. */
export async function evaluateSystem(
  system: EvalSystem,
  docs: readonly GoldDocument[],
  options: EvalOptions,
  kg?: KgView,
  onProgress?: (done: number, total: number) => void,
): Promise<SystemEvaluation> {
  const started = process.hrtime.bigint();
  const contexts = docs.map((d) => ({ film: d.film, title: d.title }));
  const predictions = await system.extractAll(docs.map((d) => d.text), requestSize(options.ks), (done) => onProgress?.(done, docs.length), contexts);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (predictions.length !== docs.length) {
    throw new Error(`eval: system ${system.name} returned ${predictions.length} results for ${docs.length} documents`);
  }
  const result = evaluate(docs.map((d, i) => ({ id: d.id, gold: d.gold, predicted: predictions[i] })), options, kg);
  return { result, predictions, seconds };
}
