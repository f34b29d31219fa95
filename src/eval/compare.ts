/**
 * Paired comparison of two systems on the same documents, used for the steps of an ablation ladder
 * (TextRank → +W → +W+G → +W+G+R): how many documents got better or worse at F1@K, the mean change with
 * a 95% paired bootstrap interval (so a gain on 180 documents can be told from noise), and which words
 * entered or left the top K, split into gold and non-gold. Deterministic: the bootstrap uses a fixed
 * seed.
 *
 * Assumptions: both runs scored the same documents in the same order with the same evaluator options;
 * "top K" is the evaluated list (distinct after normalisation, first K).
 */
import { distinctKeys, normalizeKeyword, type EvalResult } from './metrics.js';
import { mulberry32 } from '../util/random.js';

/** Options of {@link compareRuns}. */
export interface CompareOptions {
  /**
   * Cut-off K compared.
   * @default 5
   */
  k: number;
  /**
   * Bootstrap resamples for the confidence interval.
   * @default 2000
   */
  resamples: number;
  /**
   * Seed of the bootstrap's PRNG.
   * @default 1
   */
  seed: number;
  /**
   * Number of words listed per category.
   * @default 8
   */
  topWords: number;
}

export const DEFAULT_COMPARE_OPTIONS: Readonly<CompareOptions> = Object.freeze({ k: 5, resamples: 2000, seed: 1, topWords: 8 });

/** A word with the number of documents where it moved. */
export interface WordCount {
  word: string;
  docs: number;
}

/** Result of {@link compareRuns}. */
export interface Comparison {
  k: number;
  docs: number;
  better: number;
  worse: number;
  same: number;
  /** Mean of per-document F1@K(B) − F1@K(A) (= difference of the macro F1@K). */
  meanDelta: number;
  /** 95% paired bootstrap interval of meanDelta. */
  ci95: [number, number];
  /** Gold words that entered the top K (gains). */
  goldGained: WordCount[];
  /** Gold words that left the top K (losses). */
  goldLost: WordCount[];
  /** Non-gold words that entered the top K (noise added). */
  noiseGained: WordCount[];
  /** Non-gold words that left the top K (noise removed). */
  noiseLost: WordCount[];
  /** Documents with the largest drop, for inspection. */
  worstDocs: { id: string; delta: number }[];
}

/** 95% percentile bootstrap interval of the mean of `values`. */
export function bootstrapMeanCi(values: readonly number[], resamples: number, seed: number): [number, number] {
  const n = values.length;
  if (n === 0) return [0, 0];
  const rand = mulberry32(seed);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(rand() * n)];
    means[b] = sum / n;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))];
  return [at(0.025), at(0.975)];
}

function topCounts(counts: Map<string, number>, n: number): WordCount[] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, n)
    .map(([word, docs]) => ({ word, docs }));
}

/**
 * Compare run B against run A on the same documents. `gold[i]` and the predictions are per document;
 * results must come from the evaluator with `k` among their Ks.
 */
export function compareRuns(
  ids: readonly string[],
  gold: readonly (readonly string[])[],
  a: { result: EvalResult; predictions: readonly (readonly string[])[] },
  b: { result: EvalResult; predictions: readonly (readonly string[])[] },
  partial: Partial<CompareOptions> = {},
): Comparison {
  const o: CompareOptions = { ...DEFAULT_COMPARE_OPTIONS, ...partial };
  const ki = a.result.perDocument[0]?.scores.findIndex((s) => s.k === o.k) ?? -1;
  if (ids.length > 0 && ki < 0) throw new Error(`compare: K=${o.k} was not evaluated`);
  const deltas: number[] = [];
  let better = 0;
  let worse = 0;
  const goldGained = new Map<string, number>();
  const goldLost = new Map<string, number>();
  const noiseGained = new Map<string, number>();
  const noiseLost = new Map<string, number>();
  const bump = (m: Map<string, number>, w: string) => m.set(w, (m.get(w) ?? 0) + 1);
  for (let i = 0; i < ids.length; i++) {
    const d = b.result.perDocument[i].scores[ki].f1 - a.result.perDocument[i].scores[ki].f1;
    deltas.push(d);
    if (d > 1e-12) better++;
    else if (d < -1e-12) worse++;
    const g = new Set(distinctKeys(gold[i], normalizeKeyword));
    const topA = new Set(distinctKeys(a.predictions[i], normalizeKeyword).slice(0, o.k));
    const topB = new Set(distinctKeys(b.predictions[i], normalizeKeyword).slice(0, o.k));
    for (const w of topB) if (!topA.has(w)) bump(g.has(w) ? goldGained : noiseGained, w);
    for (const w of topA) if (!topB.has(w)) bump(g.has(w) ? goldLost : noiseLost, w);
  }
  const n = ids.length;
  const meanDelta = n > 0 ? deltas.reduce((x, y) => x + y, 0) / n : 0;
  const worstDocs = ids
    .map((id, i) => ({ id, delta: deltas[i] }))
    .filter((d) => d.delta < 0)
    .sort((x, y) => x.delta - y.delta || (x.id < y.id ? -1 : 1))
    .slice(0, 5);
  return {
    k: o.k,
    docs: n,
    better,
    worse,
    same: n - better - worse,
    meanDelta,
    ci95: bootstrapMeanCi(deltas, o.resamples, o.seed),
    goldGained: topCounts(goldGained, o.topWords),
    goldLost: topCounts(goldLost, o.topWords),
    noiseGained: topCounts(noiseGained, o.topWords),
    noiseLost: topCounts(noiseLost, o.topWords),
    worstDocs,
  };
}
