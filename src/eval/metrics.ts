/**
 * Precision, recall and F1 at K for keyword extraction, macro- and micro-averaged.
 *
 * Source: 王芳, 刘嘉恩, 李晶 (2022) eq. (11) — P = |S∩G|/|S|, R = |S∩G|/|G|, F1 = 2PR/(P+R) per document,
 * "分别计算P、R和F1, 最后分别加和求平均" (macro average; F1 averaged per document). The handling of the
 * details the paper leaves open follows the tools surveyed in method-spec §5 (PositionRank official
 * evaluator, pke benchmark, JCDL-2020 evaluator, OpenNMT-kpg):
 *
 * - S_K is the first K *distinct* predictions: predictions are normalised, then duplicates (same match
 *   key) are dropped keeping the first occurrence, then the list is cut at K.
 * - Precision divides by |S_K| (the number returned, at most K; `precisionDenominator: 'returned'`,
 *   PositionRank/pke/JCDL) or by K (`'k'`, OpenNMT-kpg `precision_hard`).
 * - Gold items are deduplicated the same way and each is counted at most once. |S_K ∩ G| is the size of a
 *   maximum one-to-one matching between S_K and G, so a prediction matches at most one gold item and a
 *   gold item at most one prediction even when alias matching makes "matches" non-transitive.
 * - Zero predictions ⇒ P = R = F1 = 0. Empty gold ⇒ R = 0 (readers reject empty gold lists anyway).
 * - Gold keywords absent from the text stay in |G| (they cap recall).
 * - Normalisation: NFKC (full-width → half-width), trim, lower-case of Latin letters only.
 * - Optional traditional → simplified folding (opencc-js, `t` → `cn`) on both sides, and optional KG
 *   alias matching: a prediction and a gold item also match when `kg.lookup()` maps both to a common
 *   entity (names and aliases). Both are off by default, as in the paper.
 * - Micro average: Σ correct / Σ |S_K| (or Σ K), Σ correct / Σ |G|, F1 = harmonic mean of those two.
 *
 * Assumption: predictions arrive ranked, best first; ties were already broken by the extractor.
 */
import { Converter } from 'opencc-js/t2cn';
import type { KgView } from '../kg/model.js';
import { usageError } from '../errors.js';

/** Options of the evaluator. */
export interface EvalOptions {
  /**
   * Cut-offs K at which P/R/F1 are computed (positive integers, ascending, unique).
   * @default [1, 2, 3, 4, 5]
   */
  ks: readonly number[];
  /**
   * What precision divides by: the number of (distinct) predictions returned, at most K, or K itself.
   * @default 'returned'
   */
  precisionDenominator: 'returned' | 'k';
  /**
   * Fold traditional characters to simplified (opencc-js t→cn) on both sides before matching.
   * @default false
   */
  traditionalSimplified: boolean;
  /**
   * Also match a prediction to a gold item when both name a common KG entity (name or alias, through
   * `KgView.lookup`). Needs a KG passed to the evaluator.
   * @default false
   */
  kgAliases: boolean;
}

/** Default evaluator options (the paper's protocol). */
export const DEFAULT_EVAL_OPTIONS: Readonly<EvalOptions> = Object.freeze({
  ks: Object.freeze([1, 2, 3, 4, 5]),
  precisionDenominator: 'returned',
  traditionalSimplified: false,
  kgAliases: false,
});

/** Precision, recall, F1 at one K. */
export interface PRF {
  p: number;
  r: number;
  f1: number;
}

/** Scores keyed by K (as a string, so the object serialises as `{"1":{...},...}`). */
export type ScoresByK = Record<string, PRF>;

/** One document to judge: the gold keywords and the ranked predictions. */
export interface Judgement {
  id: string;
  gold: readonly string[];
  predicted: readonly string[];
}

/** Per-document counts and scores at one K. */
export interface DocumentScore extends PRF {
  k: number;
  correct: number;
  returned: number;
  goldCount: number;
}

/** Result of {@link evaluate}. */
export interface EvalResult {
  docs: number;
  macro: ScoresByK;
  micro: ScoresByK;
  /** Per-document scores, same order as the input; `scores[i]` is at `ks[i]`. */
  perDocument: { id: string; scores: DocumentScore[] }[];
}

const EVAL_OPTION_KEYS = Object.keys(DEFAULT_EVAL_OPTIONS) as (keyof EvalOptions)[];

/**
 * Resolve partial (possibly untyped) evaluator options against the defaults. Unknown keys and bad
 * values are usage errors naming the valid choices.
 */
export function resolveEvalOptions(partial: Record<string, unknown> = {}): EvalOptions {
  for (const key of Object.keys(partial)) {
    if (!(EVAL_OPTION_KEYS as string[]).includes(key)) {
      throw usageError(`eval: unknown option "${key}" (valid: ${EVAL_OPTION_KEYS.join(', ')})`);
    }
  }
  const out: EvalOptions = { ...DEFAULT_EVAL_OPTIONS, ks: [...DEFAULT_EVAL_OPTIONS.ks] };
  if (partial.ks !== undefined) out.ks = checkKs(partial.ks);
  if (partial.precisionDenominator !== undefined) {
    if (partial.precisionDenominator !== 'returned' && partial.precisionDenominator !== 'k') {
      throw usageError(`eval: precisionDenominator must be 'returned' or 'k', got ${JSON.stringify(partial.precisionDenominator)}`);
    }
    out.precisionDenominator = partial.precisionDenominator;
  }
  for (const key of ['traditionalSimplified', 'kgAliases'] as const) {
    if (partial[key] !== undefined) {
      if (typeof partial[key] !== 'boolean') throw usageError(`eval: ${key} must be true or false, got ${JSON.stringify(partial[key])}`);
      out[key] = partial[key] as boolean;
    }
  }
  return out;
}

/** Largest cut-off K (a range such as 1-1000000000 would otherwise run out of memory). */
export const MAX_K = 1000;

function checkKs(value: unknown): number[] {
  if (!Array.isArray(value) || value.length === 0) throw usageError('eval: ks must be a non-empty list of positive integers');
  for (const k of value) {
    if (!Number.isInteger(k) || (k as number) < 1) throw usageError(`eval: K must be a positive integer, got ${JSON.stringify(k)}`);
    if ((k as number) > MAX_K) throw usageError(`eval: K must be at most ${MAX_K}, got ${JSON.stringify(k)}`);
  }
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

/** Parse "1,2,3" or "1-5" (or a mix: "1-3,10") into a list of K values. */
export function parseKs(spec: string): number[] {
  const out: number[] = [];
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const range = /^(\d+)-(\d+)$/.exec(part);
    if (range) {
      const a = Number(range[1]);
      const b = Number(range[2]);
      if (a < 1 || b < a) throw usageError(`eval: bad K range "${part}" (expected e.g. 1-5)`);
      if (b > MAX_K) throw usageError(`eval: K must be at most ${MAX_K}, got ${b}`);
      for (let k = a; k <= b; k++) out.push(k);
    } else if (/^\d+$/.test(part)) {
      out.push(Number(part));
    } else {
      throw usageError(`eval: bad K "${part}" (expected positive integers such as 1,2,3,4,5 or 1-5)`);
    }
  }
  return checkKs(out);
}

/**
 * The evaluator's normalisation: NFKC, trim, lower-case Latin letters (other scripts untouched).
 * Inner whitespace is kept as is.
 */
export function normalizeKeyword(s: string): string {
  return s.normalize('NFKC').trim().replace(/\p{Script=Latin}+/gu, (m) => m.toLowerCase());
}

let toSimplified: ((s: string) => string) | undefined;
/** Traditional → simplified character folding (opencc-js, generic traditional to mainland simplified). */
export function foldTraditional(s: string): string {
  const convert = (toSimplified ??= Converter({ from: 't', to: 'cn' }));
  return convert(s);
}

/** Decides whether a prediction matches a gold item; built once per evaluation. */
export interface Matcher {
  /** Key used for deduplication and exact matching. */
  key(s: string): string;
  /** Whether two items (given by their keys) match. */
  matches(predictionKey: string, goldKey: string): boolean;
}

/** Build the matcher for resolved options; `kg` is required when `kgAliases` is on. */
export function createMatcher(options: EvalOptions, kg?: KgView): Matcher {
  if (options.kgAliases && !kg) throw usageError('eval: kgAliases needs a knowledge graph (pass --kg or turn alias matching off)');
  const key = options.traditionalSimplified
    ? (s: string) => foldTraditional(normalizeKeyword(s))
    : (s: string) => normalizeKeyword(s);
  if (!options.kgAliases || !kg) return { key, matches: (a, b) => a === b };
  const entityCache = new Map<string, readonly number[]>();
  const entities = (k: string): readonly number[] => {
    let e = entityCache.get(k);
    if (!e) {
      // The key is lower-cased; KG names keep case, so try the key as is (CJK names are unaffected).
      e = kg.lookup(k);
      entityCache.set(k, e);
    }
    return e;
  };
  return {
    key,
    matches(a, b) {
      if (a === b) return true;
      const ea = entities(a);
      if (ea.length === 0) return false;
      const eb = entities(b);
      // Both lists are sorted ascending: merge-intersect.
      let i = 0;
      let j = 0;
      while (i < ea.length && j < eb.length) {
        if (ea[i] === eb[j]) return true;
        if (ea[i] < eb[j]) i++;
        else j++;
      }
      return false;
    },
  };
}

/** Distinct keys in first-occurrence order. */
export function distinctKeys(items: readonly string[], key: (s: string) => string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    const k = key(item);
    if (k === '' || seen.has(k)) continue;
    seen.add(k);
    out.push(k);
  }
  return out;
}

/** Size of a maximum one-to-one matching between predictions and gold items (Kuhn's augmenting paths). */
export function maximumMatching(predicted: readonly string[], gold: readonly string[], matches: (p: string, g: string) => boolean): number {
  const adjacency = predicted.map((p) => gold.flatMap((g, j) => (matches(p, g) ? [j] : [])));
  const goldTaken = new Int32Array(gold.length).fill(-1);
  const tryAssign = (i: number, visited: Uint8Array): boolean => {
    for (const j of adjacency[i]) {
      if (visited[j]) continue;
      visited[j] = 1;
      if (goldTaken[j] < 0 || tryAssign(goldTaken[j], visited)) {
        goldTaken[j] = i;
        return true;
      }
    }
    return false;
  };
  let size = 0;
  for (let i = 0; i < predicted.length; i++) if (tryAssign(i, new Uint8Array(gold.length))) size++;
  return size;
}

function prf(correct: number, precisionDenominator: number, goldCount: number): PRF {
  const p = precisionDenominator > 0 ? correct / precisionDenominator : 0;
  const r = goldCount > 0 ? correct / goldCount : 0;
  const f1 = p + r > 0 ? (2 * p * r) / (p + r) : 0;
  return { p, r, f1 };
}

/** Score one document at every K. */
export function scoreDocument(gold: readonly string[], predicted: readonly string[], options: EvalOptions, matcher: Matcher): DocumentScore[] {
  const goldKeys = distinctKeys(gold, matcher.key);
  const predictedKeys = distinctKeys(predicted, matcher.key);
  return options.ks.map((k) => {
    const top = predictedKeys.slice(0, k);
    const correct = maximumMatching(top, goldKeys, matcher.matches);
    const denominator = top.length === 0 ? 0 : options.precisionDenominator === 'k' ? k : top.length;
    return { k, correct, returned: top.length, goldCount: goldKeys.length, ...prf(correct, denominator, goldKeys.length) };
  });
}

/**
 * Evaluate ranked predictions against gold keywords: per-document scores, their macro average (mean of
 * per-document P, R and F1) and the micro average.
 */
export function evaluate(judgements: readonly Judgement[], partialOptions: Partial<EvalOptions> = {}, kg?: KgView): EvalResult {
  const options = resolveEvalOptions(partialOptions as Record<string, unknown>);
  const matcher = createMatcher(options, kg);
  const perDocument = judgements.map((j) => ({ id: j.id, scores: scoreDocument(j.gold, j.predicted, options, matcher) }));
  const macro: ScoresByK = {};
  const micro: ScoresByK = {};
  const n = perDocument.length;
  options.ks.forEach((k, i) => {
    let p = 0;
    let r = 0;
    let f1 = 0;
    let correct = 0;
    let denominator = 0;
    let goldCount = 0;
    for (const d of perDocument) {
      const s = d.scores[i];
      p += s.p;
      r += s.r;
      f1 += s.f1;
      correct += s.correct;
      denominator += s.returned === 0 ? 0 : options.precisionDenominator === 'k' ? k : s.returned;
      goldCount += s.goldCount;
    }
    macro[String(k)] = n > 0 ? { p: p / n, r: r / n, f1: f1 / n } : { p: 0, r: 0, f1: 0 };
    micro[String(k)] = prf(correct, denominator, goldCount);
  });
  return { docs: n, macro, micro, perDocument };
}

/** Scores of one group of documents ({@link evaluateGroups}). */
export interface GroupResult {
  group: string;
  docs: number;
  macro: ScoresByK;
  micro: ScoresByK;
}

/**
 * The scores of each group of documents (`groups[i]` is judgement i's group), groups in order of first
 * appearance; each is {@link evaluate} over the group's documents alone.
 */
export function evaluateGroups(judgements: readonly Judgement[], groups: readonly string[], partialOptions: Partial<EvalOptions> = {}, kg?: KgView): GroupResult[] {
  if (groups.length !== judgements.length) throw new RangeError(`evaluateGroups: ${groups.length} groups for ${judgements.length} documents`);
  const members = new Map<string, Judgement[]>();
  judgements.forEach((j, i) => {
    const list = members.get(groups[i]);
    if (list) list.push(j);
    else members.set(groups[i], [j]);
  });
  return [...members].map(([group, list]) => {
    const { docs, macro, micro } = evaluate(list, partialOptions, kg);
    return { group, docs, macro, micro };
  });
}
