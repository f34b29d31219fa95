/**
 * Personalised weighted PageRank as used by TextRank and PositionRank (spec §1.3, eqs. 5, 6, 9, 10):
 *
 *   S(v_i) = (1 − d) · b_i + d · Σ_{v_j ∈ Adj(v_i)} ( w_ji / O_j ) · S(v_j)
 *
 * - TextRank (Mihalcea & Tarau 2004, eq. 5/9): b_i = 1 for every node (the non-normalised "(1−d)+"
 *   form whose visible prefix survives in the paper's text).
 * - PositionRank (Florescu & Caragea 2017, eq. 6/10): b = p̃, the normalised position weights of
 *   positions.ts (eq. 7).
 * - O_j is the out-weight normaliser of node j: Σ_k w_jk over the same weights (the WS formula), or,
 *   with `smInDenominator: false`, over the weights of eq. 3 only; the graph stage supplies it.
 *
 * graphology-metrics' pagerank has no personalisation vector, so this is our own iteration, shaped like
 * graphology's (alpha, maxIterations, tolerance, Float64Array) but returning `{scores, iterations,
 * converged}` instead of throwing when it does not converge.
 *
 * Iteration modes ([RECON], spec §1.3 "Iteration and convergence"):
 * - `'converge'`: synchronous (Jacobi) updates from S = 1 (TextRank, the TextRank paper's start) or
 *   S = 1/N (biased), until max_i |ΔS_i| < tol or maxIter sweeps. The start does not change the fixed point.
 * - `'fixed10GaussSeidel'`: exactly 10 in-place sweeps over the nodes in Unicode code-point order of
 *   their words, from S = 1/N_connected (N_connected = nodes with at least one edge), which is what
 *   jieba `TextRank.rank` and cppjieba `TextRankExtractor::Rank` do (spec §4.1, §4.3).
 *
 * Dangling (isolated) nodes have O_j = 0: they pass nothing on and keep S = (1−d)·b_i. With a uniform
 * restart this gives the same ordering as networkx/graphology's uniform redistribution of dangling mass
 * (spec §1.3: the solution is proportional to (I − dM̃)⁻¹·1).
 *
 * No allocation per node or per edge: the input is a CSR of typed arrays, and the work arrays are
 * allocated once per call.
 */
import type { OptionRules } from '../util/option-rules.js';
import { arena } from '../util/arena.js';

/** Options of the ranking stage (group `rank` of the pipeline options). */
export const RANK_ALGORITHMS = ['textrank', 'positionrank'] as const;
export const ITERATION_MODES = ['converge', 'fixed10GaussSeidel'] as const;
export const POSITION_BASES = ['allTokens', 'candidates', 'chars'] as const;
export const TIE_BREAKS = ['firstOccurrence', 'lexicographic'] as const;

export interface RankOptions {
  /**
   * Ranking equation: TextRank (uniform restart, eqs. 5/9) or PositionRank (position-biased restart,
   * eqs. 6/10).
   * @default 'textrank'
   */
  algorithm: (typeof RANK_ALGORITHMS)[number];
  /**
   * Damping factor d.
   * @default 0.85
   */
  damping: number;
  /**
   * Convergence threshold on max_i |ΔS_i| (the TextRank paper's 0.0001); `'converge'` mode only.
   * @default 1e-4
   */
  tol: number;
  /**
   * Maximum number of sweeps in `'converge'` mode.
   * @default 100
   */
  maxIter: number;
  /**
   * `'converge'` (Jacobi until tol) or `'fixed10GaussSeidel'` (jieba/cppjieba: 10 in-place sweeps in
   * code-point order of the words).
   * @default 'converge'
   */
  iterationMode: (typeof ITERATION_MODES)[number];
  /**
   * What a "position" counts for the PositionRank bias (eq. 7): all tokens (PositionRank paper and
   * code), candidate occurrences only (pytextrank), or UTF-16 characters.
   * @default 'allTokens'
   */
  positionBase: (typeof POSITION_BASES)[number];
  /**
   * Ordering of equal scores: the word seen first in the text wins, or code-point order of the words.
   * @default 'firstOccurrence'
   */
  tieBreak: (typeof TIE_BREAKS)[number];
}

export const DEFAULT_RANK_OPTIONS: Readonly<RankOptions> = Object.freeze({
  algorithm: 'textrank',
  damping: 0.85,
  tol: 1e-4,
  maxIter: 100,
  iterationMode: 'converge',
  positionBase: 'allTokens',
  tieBreak: 'firstOccurrence',
});

export const RANK_OPTION_RULES: OptionRules<RankOptions> = Object.freeze({
  algorithm: { type: 'enum', values: RANK_ALGORITHMS },
  damping: { type: 'number', min: 0, max: 1, exclusiveMin: true },
  tol: { type: 'number', min: 1e-12, max: 0.1 },
  maxIter: { type: 'number', min: 1, max: 10000, integer: true },
  iterationMode: { type: 'enum', values: ITERATION_MODES },
  positionBase: { type: 'enum', values: POSITION_BASES },
  tieBreak: { type: 'enum', values: TIE_BREAKS },
});

/** The graph as the ranking sees it: a symmetric CSR plus per-node normalisers. */
export interface RankInput {
  /** Number of nodes. */
  nodeCount: number;
  /** CSR row offsets, length nodeCount + 1. Row i lists the neighbours j of i (a self-loop lists i). */
  offsets: Int32Array;
  /** Neighbour node of each CSR entry. */
  targets: Int32Array;
  /** w_ij of each CSR entry (numerator weight of eqs. 5/9; symmetric: w_ij = w_ji). */
  weights: Float64Array;
  /** O_j, the out-weight normaliser of each node (0 for a dangling node). */
  outWeights: Float64Array;
  /** Restart vector b (PositionRank p̃); null means b_i = 1 (TextRank). */
  bias: Float64Array | null;
  /**
   * Sweep order for Gauss-Seidel (node indices); required by `'fixed10GaussSeidel'`. The extractor
   * passes the code-point order of the words.
   */
  sweepOrder?: Int32Array | null;
}

/** The edge list {@link toRankInput} reads (graph.ts `WordGraph` is one). */
export interface RankEdges {
  readonly words: readonly string[];
  readonly edgeCount: number;
  /** Endpoints of each edge (source = target for a self-loop). */
  readonly source: Int32Array;
  readonly target: Int32Array;
  /** Ranking weight of each edge (eqs. 3, 9/10). */
  readonly weight: Float64Array;
  /** Weight of eq. 3 (the normaliser's when not `smInDenominator`). */
  readonly base: Float64Array;
  /** Whether O_j sums `weight` (true) or `base` (false). */
  readonly smInDenominator: boolean;
}

/**
 * The CSR the ranking iterates on (both directions of every edge, a self-loop once with its weight).
 * @param bias restart vector (PositionRank) or null
 * @param sweepOrder Gauss-Seidel order (parity mode) or null
 */
export function toRankInput(graph: RankEdges, bias: Float64Array | null, sweepOrder: Int32Array | null = null): RankInput {
  const n = graph.words.length;
  const m = graph.edgeCount;
  const { source, target, weight } = graph;
  const denominator = graph.smInDenominator ? weight : graph.base;
  // the integer and the number arrays are views of one buffer each (util/arena.ts); a node pair gives
  // at most two entries
  const ints = arena(new Int32Array(2 * n + 1 + 2 * m));
  const floats = arena(new Float64Array(n + 2 * m));
  const degree = ints(n + 1);
  const outWeights = floats(n);
  for (let e = 0; e < m; e++) {
    if (weight[e] === 0 && denominator[e] === 0) continue;
    const a = source[e];
    const b = target[e];
    degree[a + 1]++;
    outWeights[a] += denominator[e];
    if (a !== b) {
      degree[b + 1]++;
      outWeights[b] += denominator[e];
    }
  }
  for (let i = 0; i < n; i++) degree[i + 1] += degree[i];
  const offsets = degree;
  const fill = ints(n);
  fill.set(offsets.subarray(0, n));
  const targets = ints(offsets[n]);
  const weights = floats(offsets[n]);
  for (let e = 0; e < m; e++) {
    if (weight[e] === 0 && denominator[e] === 0) continue;
    const a = source[e];
    const b = target[e];
    targets[fill[a]] = b;
    weights[fill[a]++] = weight[e];
    if (a !== b) {
      targets[fill[b]] = a;
      weights[fill[b]++] = weight[e];
    }
  }
  return { nodeCount: n, offsets, targets, weights, outWeights, bias, sweepOrder };
}

export interface RankResult {
  /** S(v_i) per node. */
  scores: Float64Array;
  /** Number of sweeps done. */
  iterations: number;
  /** Whether max |ΔS| fell below tol (always true for the fixed Gauss-Seidel mode). */
  converged: boolean;
}

/** Number of Gauss-Seidel sweeps of jieba and cppjieba. */
export const PARITY_SWEEPS = 10;

/**
 * Rank the nodes of a word graph (see module header): eqs. (5)/(9) with a uniform restart (TextRank) and
 * eqs. (6)/(10) with the position bias of eq. (7) (PositionRank); the weights w_ji and the normalisers
 * O_j (eq. 3 or, with sm, eq. 9/10 weights) come from the graph stage. Never throws on non-convergence;
 * the caller reads `converged`.
 */
export function rankGraph(input: RankInput, options: Pick<RankOptions, 'damping' | 'tol' | 'maxIter' | 'iterationMode'>): RankResult {
  const n = input.nodeCount;
  if (n === 0) return { scores: new Float64Array(0), iterations: 0, converged: true };
  // invOut[j] = 1/O_j (0 for dangling nodes), so the inner loop is one multiply-add per edge. All the
  // per-node arrays are views of one buffer (util/arena.ts).
  const gaussSeidel = options.iterationMode === 'fixed10GaussSeidel';
  const take = arena(new Float64Array((gaussSeidel ? 2 : 5) * n));
  const invOut = take(n);
  for (let j = 0; j < n; j++) {
    const o = input.outWeights[j];
    invOut[j] = o > 0 ? 1 / o : 0;
  }
  return gaussSeidel ? gaussSeidelSweeps(input, invOut, options.damping, take) : powerIteration(input, invOut, options, take);
}

/**
 * Eqs. (5)/(6)/(9)/(10) solved as jieba and cppjieba do (parity mode): {@link PARITY_SWEEPS} in-place
 * Gauss-Seidel sweeps in code-point order of the words, S_i = (1 − d)·b_i + d·Σ_j w_ji/O_j·S_j, connected
 * nodes starting at 1/(number of connected nodes), isolated ones at their restart value.
 */
function gaussSeidelSweeps(input: RankInput, invOut: Float64Array, d: number, take: (length: number) => Float64Array): RankResult {
  const n = input.nodeCount;
  const { offsets, targets, weights, bias } = input;
  const scores = take(n);
  const order = input.sweepOrder;
  if (!order || order.length !== n) throw new Error('rank: fixed10GaussSeidel needs a sweepOrder covering every node');
  let connected = 0;
  for (let i = 0; i < n; i++) if (offsets[i + 1] > offsets[i]) connected++;
  const start = connected > 0 ? 1 / connected : 0;
  for (let i = 0; i < n; i++) scores[i] = offsets[i + 1] > offsets[i] ? start : (1 - d) * (bias ? bias[i] : 1);
  for (let sweep = 0; sweep < PARITY_SWEEPS; sweep++) {
    for (let k = 0; k < n; k++) {
      const i = order[k];
      let sum = 0;
      for (let e = offsets[i], end = offsets[i + 1]; e < end; e++) {
        const j = targets[e];
        sum += weights[e] * invOut[j] * scores[j];
      }
      scores[i] = (1 - d) * (bias ? bias[i] : 1) + d * sum;
    }
  }
  return { scores, iterations: PARITY_SWEEPS, converged: true };
}

/**
 * Eqs. (5)/(6)/(9)/(10) by Jacobi power iteration: S ← (1 − d)·b + d·Wᵀ(S/O) from S = 1 (TextRank) or
 * 1/n (PositionRank) until max |ΔS| < tol or maxIter.
 */
function powerIteration(input: RankInput, invOut: Float64Array, options: Pick<RankOptions, 'damping' | 'tol' | 'maxIter'>, take: (length: number) => Float64Array): RankResult {
  const n = input.nodeCount;
  const bias = input.bias;
  const d = options.damping;
  const scores = take(n);
  const restart = take(n);
  for (let i = 0; i < n; i++) restart[i] = (1 - d) * (bias ? bias[i] : 1);
  scores.fill(bias ? 1 / n : 1);
  const scaled = take(n);
  let next = take(n);
  let current = scores;
  let iterations = 0;
  let converged = false;
  while (iterations < options.maxIter) {
    iterations++;
    for (let j = 0; j < n; j++) scaled[j] = current[j] * invOut[j];
    const delta = jacobiSweep(input, scaled, restart, d, current, next);
    const previous = current;
    current = next;
    next = previous;
    if (delta < options.tol) {
      converged = true;
      break;
    }
  }
  if (current !== scores) scores.set(current);
  return { scores, iterations, converged };
}

/**
 * One Jacobi sweep of {@link powerIteration}: next_i = restart_i + d·Σ_e w_e·scaled[target_e] over row i
 * of the CSR, in the row's order; returns max_i |next_i − current_i|. Rows are summed two at a time, side
 * by side: each row's sum is a chain of dependent additions, and two chains in one loop overlap their
 * latencies, while each row still adds its terms in the same order (the same floating-point result).
 */
function jacobiSweep(input: RankInput, scaled: Float64Array, restart: Float64Array, d: number, current: Float64Array, next: Float64Array): number {
  const { nodeCount: n, offsets, targets, weights } = input;
  let delta = 0;
  for (let i = 0; i < n; i += 2) {
    let a = offsets[i];
    const endA = offsets[i + 1];
    let b = endA;
    const endB = i + 1 < n ? offsets[i + 2] : endA;
    let sumA = 0;
    let sumB = 0;
    for (; a < endA && b < endB; a++, b++) {
      sumA += weights[a] * scaled[targets[a]];
      sumB += weights[b] * scaled[targets[b]];
    }
    for (; a < endA; a++) sumA += weights[a] * scaled[targets[a]];
    for (; b < endB; b++) sumB += weights[b] * scaled[targets[b]];
    const valueA = restart[i] + d * sumA;
    const changeA = Math.abs(valueA - current[i]);
    if (changeA > delta) delta = changeA;
    next[i] = valueA;
    if (i + 1 === n) break;
    const valueB = restart[i + 1] + d * sumB;
    const changeB = Math.abs(valueB - current[i + 1]);
    if (changeB > delta) delta = changeB;
    next[i + 1] = valueB;
  }
  return delta;
}

/** Compare two strings by Unicode code point (Python `sorted`, C++ `std::set<std::string>` on UTF-8). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800–0xDFFF) encode code points above 0xFFFF, which sort after 0xE000–0xFFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Node indices sorted by the code-point order of their words (the Gauss-Seidel sweep order). */
export function codePointOrder(words: readonly string[]): Int32Array {
  const idx = Array.from(words.keys()).sort((a, b) => compareCodePoints(words[a], words[b]));
  return Int32Array.from(idx);
}
