/**
 * The re-ranker's model (rerank.ts): gradient-boosted shallow regression trees over the candidates'
 * features, score = σ(logit); fitted for the logistic loss of each candidate or, as committed, of the
 * (keyword, non-keyword) pairs of each document weighted LambdaRank-style (then the score orders a
 * document's candidates and is not a calibrated probability). Inspectable: every split names a feature,
 * and `--explain` gives each feature's contribution to a keyword's logit (the change of node value at
 * each split on the path, summed per feature; logit = constant + Σ contributions).
 *
 * This module reads and scores a model; fitting one serves training only and lives beside the
 * training command (src/eval/rerank-fit.ts `fitTrees`). The committed model is data
 * (models/rerank.json: feature names, trees, the training file's sha256 and size, the parameters),
 * written by scripts/train-rerank.mjs and read once by {@link loadBundledRerankModel}.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FilmkwError } from '../errors.js';
import { RERANK_CORE_FEATURE_COUNT, RERANK_FEATURE_COUNT, RERANK_FEATURES } from './rerank-features.js';

/** A boosted ensemble of shallow regression trees over the raw features (logit = base + Σ leaf values). */
export interface RerankModel {
  /** Format version (1). */
  readonly version: 1;
  /**
   * Feature names: rerank.ts RERANK_FEATURES in order, the core ones and the optional ones up to the
   * last the model uses (only those are computed for it).
   */
  readonly features: readonly string[];
  /** Log-odds before the trees (the training set's positive rate). */
  readonly base: number;
  /**
   * Per tree, its nodes in parallel arrays: the split feature (-1 for a leaf), the threshold (go left
   * when x < threshold), the children, and the node's value (a leaf's value is added to the logit; an
   * inner node's value is what the tree would add if it stopped there, used for the contributions).
   */
  readonly trees: readonly RerankTree[];
  /** Where it came from (training file and its sha256, parameters, figures; informative). */
  readonly training?: Readonly<Record<string, unknown>>;
}

export interface RerankTree {
  readonly feature: readonly number[];
  readonly threshold: readonly number[];
  readonly left: readonly number[];
  readonly right: readonly number[];
  readonly value: readonly number[];
}

/** Path of the model shipped with the package. */
export function bundledRerankModelPath(): string {
  return fileURLToPath(new URL('../../models/rerank.json', import.meta.url));
}

/**
 * The deepest tree a model may have (levels of splits). The scorer stores every tree as a complete binary
 * tree of 2^depth leaves ({@link packed}): at 12, 100 trees take ~8 MB; at 30 they would take GBs. The
 * committed model has depth 4, and a leaf needs `minLeaf` rows, so deeper trees only overfit.
 */
export const MAX_TREE_DEPTH = 12;

/**
 * Levels of splits of a tree whose children come after their parent (checked by the caller): a node's
 * depth is its deepest parent's + 1; nodes unreachable from the root do not count.
 */
function checkedTreeDepth(left: readonly number[], right: readonly number[], feature: readonly number[]): number {
  const level = new Int32Array(feature.length).fill(-1);
  level[0] = 0;
  let depth = 0;
  for (let i = 0; i < feature.length; i++) {
    if (level[i] < 0 || feature[i] === -1) continue;
    for (const c of [left[i], right[i]]) level[c] = Math.max(level[c], level[i] + 1);
    depth = Math.max(depth, level[i] + 1);
  }
  return depth;
}

/** Check a parsed model (clear error naming the file and the field). */
export function parseRerankModel(raw: unknown, file: string): RerankModel {
  const bad = (what: string): never => {
    throw new FilmkwError('INPUT', `${file}: re-rank model: ${what}`);
  };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) bad('not a JSON object');
  const m = raw as Record<string, unknown>;
  if (m.version !== 1) bad(`field "version" must be 1, got ${JSON.stringify(m.version)}`);
  const names = m.features;
  if (!Array.isArray(names) || names.length < RERANK_CORE_FEATURE_COUNT || names.length > RERANK_FEATURES.length || names.some((x, i) => x !== RERANK_FEATURES[i])) {
    bad(`field "features" must list the ${RERANK_CORE_FEATURE_COUNT} features of this version in order (${RERANK_FEATURES.slice(0, RERANK_CORE_FEATURE_COUNT).join(', ')}), optionally followed by the next of ${RERANK_FEATURES.slice(RERANK_CORE_FEATURE_COUNT).join(', ')}`);
  }
  const width = (names as unknown[]).length;
  if (typeof m.base !== 'number' || !Number.isFinite(m.base)) bad('field "base" must be a finite number');
  if (!Array.isArray(m.trees)) bad('field "trees" must be an array');
  const trees = (m.trees as unknown[]).map((t, k) => {
    const tree = t as Record<string, unknown>;
    const arrays = ['feature', 'threshold', 'left', 'right', 'value'].map((key) => {
      const v = tree?.[key];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) bad(`trees[${k}].${key} must be an array of finite numbers`);
      return v as number[];
    });
    const size = arrays[0].length;
    if (size === 0 || arrays.some((a) => a.length !== size)) bad(`trees[${k}]: its arrays must be non-empty and of one length`);
    const [feature, threshold, left, right, value] = arrays;
    for (let i = 0; i < size; i++) {
      if (feature[i] === -1) continue;
      if (!Number.isInteger(feature[i]) || feature[i] < 0 || feature[i] >= width) bad(`trees[${k}].feature[${i}] is not a feature index`);
      // children come after their parent, so a walk always ends
      if (!(Number.isInteger(left[i]) && Number.isInteger(right[i]) && left[i] > i && left[i] < size && right[i] > i && right[i] < size)) bad(`trees[${k}] node ${i}: children out of range`);
    }
    const depth = checkedTreeDepth(left, right, feature);
    if (depth > MAX_TREE_DEPTH) bad(`trees[${k}] is ${depth} levels deep; at most ${MAX_TREE_DEPTH} are allowed (the scorer stores every tree as a complete binary tree)`);
    return Object.freeze({ feature, threshold, left, right, value });
  });
  return Object.freeze({
    version: 1,
    features: Object.freeze([...(names as string[])]),
    base: m.base as number,
    trees: Object.freeze(trees),
    training: m.training && typeof m.training === 'object' ? Object.freeze({ ...(m.training as Record<string, unknown>) }) : undefined,
  });
}

let bundled: RerankModel | null = null;

/** The model shipped with the package (models/rerank.json), read once. */
export function loadBundledRerankModel(): RerankModel {
  if (bundled) return bundled;
  const path = bundledRerankModelPath();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new FilmkwError('INPUT', `rerank: cannot read the bundled model models/rerank.json (${(err as Error).message}); run npm run train:rerank`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new FilmkwError('INPUT', `models/rerank.json: not valid JSON (${(err as Error).message})`, { cause: err });
  }
  bundled = parseRerankModel(raw, 'models/rerank.json');
  return bundled;
}

/**
 * A model that scores every candidate 0 (no trees): the trainer uses it to read the features.
 * @param optional optional features to compute as well (rerank.ts, after RERANK_CORE_FEATURE_COUNT)
 */
export function zeroRerankModel(optional: readonly string[] = []): RerankModel {
  let width = RERANK_CORE_FEATURE_COUNT;
  for (const f of optional) {
    const j = RERANK_FEATURES.indexOf(f as never);
    if (j < RERANK_CORE_FEATURE_COUNT) throw new RangeError(`rerank: ${f} is not an optional feature (${RERANK_FEATURES.slice(RERANK_CORE_FEATURE_COUNT).join(', ')})`);
    width = Math.max(width, j + 1);
  }
  return { version: 1, features: RERANK_FEATURES.slice(0, width), base: 0, trees: [] };
}

const FIRST_CORPUS_FEATURE = RERANK_FEATURES.indexOf('corpusOn');

/** Whether the model reads the corpus features (it lists them: they need a corpus-statistics table). */
export function usesCorpusFeatures(model: RerankModel): boolean {
  return model.features.length > FIRST_CORPUS_FEATURE;
}

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * The logit of a feature vector. With `contributions` (length = number of features, zeroed by the
 * caller), adds each feature's share of the logit along the trees' paths (each split's change of node
 * value goes to its feature); logit = base + Σ root values + Σ contributions ({@link rerankBias}).
 */
export function rerankLogit(model: RerankModel, x: ArrayLike<number>, contributions?: Float64Array): number {
  if (!contributions) return packedLogit(model, x);
  let s = model.base;
  for (const t of model.trees) {
    let k = 0;
    while (t.feature[k] >= 0) {
      const next = x[t.feature[k]] < t.threshold[k] ? t.left[k] : t.right[k];
      contributions[t.feature[k]] += t.value[next] - t.value[k];
      k = next;
    }
    s += t.value[k];
  }
  return s;
}

/**
 * All trees as complete binary trees of one depth D ≥ 1, each in a block of 2^D slots of flat typed arrays
 * (the hot path walks these). Inner node k of tree t (k in [1, 2^D), heap order: the root is 1, the
 * children of k are 2k and 2k + 1, slot 0 unused) is at t·2^D + k in `feature` and `threshold`; leaf j
 * (left to right) is at t·2^D + j in `leaf`. A leaf of the model above depth D becomes inner nodes that
 * always go left (threshold +∞) over copies of its value, so every walk takes exactly D steps without a
 * data-dependent loop exit, and a step is a comparison turned into the next bit of k: after D steps
 * k − 2^D is the leaf. Slots are found with `|` (t·2^D | k), so no step needs an overflow check. Same
 * sums in the same order as walking the model's trees: the logits are identical.
 */
interface PackedTrees {
  readonly base: number;
  readonly count: number;
  readonly depth: number;
  readonly feature: Int32Array;
  readonly threshold: Float64Array;
  readonly leaf: Float64Array;
}

const packedModels = new WeakMap<RerankModel, PackedTrees>();

function treeDepth(t: RerankTree, k = 0): number {
  return t.feature[k] < 0 ? 0 : 1 + Math.max(treeDepth(t, t.left[k]), treeDepth(t, t.right[k]));
}

function packed(model: RerankModel): PackedTrees {
  let p = packedModels.get(model);
  if (p) return p;
  // at least one level: a tree's root is always an inner node (a model of single leaves goes left at +∞)
  const depth = model.trees.reduce((a, t) => Math.max(a, treeDepth(t)), 1);
  const slots = 1 << depth;
  const count = model.trees.length;
  const feature = new Int32Array(count * slots);
  const threshold = new Float64Array(count * slots).fill(Infinity);
  const leaf = new Float64Array(count * slots);
  model.trees.forEach((t, k) => {
    const o = k * slots;
    // node of the model at heap position `at` of level `level` of the complete tree
    const fill = (node: number, at: number, level: number): void => {
      if (level === depth) {
        leaf[o + at - slots] = t.value[node];
        return;
      }
      const split = t.feature[node] >= 0;
      if (split) {
        feature[o + at] = t.feature[node];
        threshold[o + at] = t.threshold[node];
      }
      fill(split ? t.left[node] : node, 2 * at, level + 1);
      fill(split ? t.right[node] : node, 2 * at + 1, level + 1);
    };
    fill(0, 1, 0);
  });
  p = { base: model.base, count, depth, feature, threshold, leaf };
  packedModels.set(model, p);
  return p;
}

const STRIDE = RERANK_FEATURE_COUNT;

/**
 * Eight rows of the pool, as in the pool (row j at j × STRIDE), for {@link rerankLogits}. One module-wide
 * constant (scoring is synchronous, never re-entered): the optimising compiler can then embed its address
 * and length, which makes a step cheaper than one that reads the caller's array.
 */
const BLOCK = new Float64Array(8 * STRIDE);

/**
 * The logits of `rows` feature vectors stored one after the other in `x` (row r at r × STRIDE,
 * rerank.ts's layout whatever the model lists), into `out`. Eight rows at a time are copied into
 * {@link BLOCK} (the last block keeps stale rows after the pool's end, walked but never written out) and
 * walk every tree side by side: their chains of dependent loads overlap (bench/README.md "Figures behind
 * code comments"). Each row adds the trees' leaves in tree order into a local sum that starts from base,
 * so the sums are those of the model's own trees.
 */
export function rerankLogits(model: RerankModel, x: Float64Array, rows: number, out: Float64Array): Float64Array {
  const { base, count, depth, feature, threshold, leaf } = packed(model);
  const b = BLOCK;
  const slots = 1 << depth;
  for (let r = 0; r < rows; r += 8) {
    const n = Math.min(8, rows - r);
    b.set(x.subarray(r * STRIDE, (r + n) * STRIDE));
    let s0 = base, s1 = base, s2 = base, s3 = base, s4 = base, s5 = base, s6 = base, s7 = base;
    for (let t = 0; t < count; t++) {
      const o = t * slots;
      // one step: k → 2k (x < threshold) or 2k + 1 (x ≥ threshold; features are finite); the root's
      // feature and threshold are read once for the eight rows
      const f = feature[o | 1];
      const h = threshold[o | 1];
      let k0 = 2 | Number(b[f] >= h), k1 = 2 | Number(b[(f + STRIDE) | 0] >= h);
      let k2 = 2 | Number(b[(f + 2 * STRIDE) | 0] >= h), k3 = 2 | Number(b[(f + 3 * STRIDE) | 0] >= h);
      let k4 = 2 | Number(b[(f + 4 * STRIDE) | 0] >= h), k5 = 2 | Number(b[(f + 5 * STRIDE) | 0] >= h);
      let k6 = 2 | Number(b[(f + 6 * STRIDE) | 0] >= h), k7 = 2 | Number(b[(f + 7 * STRIDE) | 0] >= h);
      for (let l = 1; l < depth; l++) {
        k0 = (k0 << 1) | Number(b[feature[o | k0]] >= threshold[o | k0]);
        k1 = (k1 << 1) | Number(b[(feature[o | k1] + STRIDE) | 0] >= threshold[o | k1]);
        k2 = (k2 << 1) | Number(b[(feature[o | k2] + 2 * STRIDE) | 0] >= threshold[o | k2]);
        k3 = (k3 << 1) | Number(b[(feature[o | k3] + 3 * STRIDE) | 0] >= threshold[o | k3]);
        k4 = (k4 << 1) | Number(b[(feature[o | k4] + 4 * STRIDE) | 0] >= threshold[o | k4]);
        k5 = (k5 << 1) | Number(b[(feature[o | k5] + 5 * STRIDE) | 0] >= threshold[o | k5]);
        k6 = (k6 << 1) | Number(b[(feature[o | k6] + 6 * STRIDE) | 0] >= threshold[o | k6]);
        k7 = (k7 << 1) | Number(b[(feature[o | k7] + 7 * STRIDE) | 0] >= threshold[o | k7]);
      }
      s0 += leaf[o | (k0 ^ slots)];
      s1 += leaf[o | (k1 ^ slots)];
      s2 += leaf[o | (k2 ^ slots)];
      s3 += leaf[o | (k3 ^ slots)];
      s4 += leaf[o | (k4 ^ slots)];
      s5 += leaf[o | (k5 ^ slots)];
      s6 += leaf[o | (k6 ^ slots)];
      s7 += leaf[o | (k7 ^ slots)];
    }
    out[r] = s0;
    if (n > 1) out[r + 1] = s1;
    if (n > 2) out[r + 2] = s2;
    if (n > 3) out[r + 3] = s3;
    if (n > 4) out[r + 4] = s4;
    if (n > 5) out[r + 5] = s5;
    if (n > 6) out[r + 6] = s6;
    if (n > 7) out[r + 7] = s7;
  }
  return out;
}

function packedLogit(model: RerankModel, x: ArrayLike<number>): number {
  const row = x instanceof Float64Array ? x : Float64Array.from(x);
  return rerankLogits(model, row, 1, new Float64Array(1))[0];
}

/** The constant part of every logit: base + Σ root values. */
export function rerankBias(model: RerankModel): number {
  let s = model.base;
  for (const t of model.trees) s += t.value[0];
  return s;
}

/** The features with a non-zero contribution: raw value and contribution, largest |contribution| first. */
export function rerankContributions(model: RerankModel, x: ArrayLike<number>): { feature: string; value: number; contribution: number }[] {
  const c = new Float64Array(model.features.length);
  rerankLogit(model, x, c);
  const out = model.features.map((feature, j) => ({ feature, value: x[j], contribution: c[j] }));
  return out.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution) || (a.feature < b.feature ? -1 : a.feature > b.feature ? 1 : 0));
}
