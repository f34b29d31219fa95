/**
 * Fitting the re-ranker's trees (src/pipeline/rerank-model.ts holds the model and its scorer; this
 * module serves training only: src/eval/rerank-train.ts, scripts/train-rerank.mjs). Friedman's gradient
 * boosting with Newton leaf values, as XGBoost does, exact search over at most `bins` thresholds per
 * feature: deterministic — no subsampling, no random seed, ties between splits go to the lower feature
 * index and threshold. A logistic regression on the same features was measured first and lost
 * (ANALYSIS.md §7): the features interact (a person's order of mention matters in a synopsis with a cast
 * list, not in a review). The fit is written here (`fitTrees` and its LambdaRank helpers) rather than taken from
 * npm: the established GBDT libraries are native (xgboost, lightgbm) and would add a compiled dependency
 * for a model that trains in half a minute.
 */
import { RERANK_CORE_FEATURE_COUNT, RERANK_FEATURES } from '../pipeline/rerank-features.js';
import { MAX_TREE_DEPTH, sigmoid, type RerankModel, type RerankTree } from '../pipeline/rerank-model.js';

/** Parameters of {@link fitTrees}. */
export interface TreeParameters {
  /** Number of trees. */
  trees: number;
  /** Maximum depth of a tree (at most {@link MAX_TREE_DEPTH}). */
  depth: number;
  /** Learning rate (shrinkage of every leaf value). */
  rate: number;
  /** Minimum number of rows in a leaf. */
  minLeaf: number;
  /** Maximum number of thresholds tried per feature. */
  bins: number;
  /** L2 penalty on the leaf values (added to the Hessian sum). */
  l2: number;
  /**
   * `'pointwise'`: the logistic loss of each candidate's label; `'pairwise'`: the logistic loss of
   * every (keyword, non-keyword) pair of one document (RankNet), which is what the top-K order needs;
   * `'lambdarank'`: those pairs weighted by how much swapping the two would change the document's
   * NDCG under the current scores ({@link lambdaWeight}), so pairs around the top of the list count
   * most.
   */
  objective: 'pointwise' | 'pairwise' | 'lambdarank';
}

/**
 * Fit gradient-boosted regression trees (Friedman's TreeBoost with Newton leaf values) for the objective
 * of {@link TreeParameters}: depth-limited trees, splits searched over at most `bins` quantile thresholds
 * per feature, deterministic (no subsampling). The pairwise objectives need `groups`, the document of
 * every row.
 */
export function fitTrees(rows: readonly ArrayLike<number>[], labels: readonly number[], o: TreeParameters, groups?: readonly number[]): Omit<RerankModel, 'training'> {
  if (!Number.isInteger(o.depth) || o.depth < 0 || o.depth > MAX_TREE_DEPTH) throw new RangeError(`fitTrees: depth must be an integer from 0 to ${MAX_TREE_DEPTH}, got ${o.depth}`);
  const n = rows.length;
  const p = RERANK_FEATURES.length;
  // candidate thresholds per feature: distinct quantiles
  const thresholds: number[][] = [];
  const binOf: Uint8Array[] = [];
  for (let j = 0; j < p; j++) {
    const vals = Float64Array.from(rows, (r) => r[j]).sort();
    // thresholds: every distinct value above the minimum when there are few (binary and sparse
    // features), else quantiles of the values above the minimum
    const distinct: number[] = [];
    for (let i = 0; i < n && distinct.length <= o.bins; i++) if (i === 0 || vals[i] !== vals[i - 1]) distinct.push(vals[i]);
    let cuts: number[] = [];
    if (distinct.length <= o.bins) cuts = distinct.slice(1);
    else {
      let first = 0;
      while (first < n && vals[first] === vals[0]) first++;
      const m = n - first;
      for (let b = 0; b < o.bins - 1; b++) {
        const v = vals[first + Math.floor((b * m) / (o.bins - 1))];
        if (cuts.length === 0 || v > cuts[cuts.length - 1]) cuts.push(v);
      }
    }
    thresholds.push(cuts);
    const bj = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const x = rows[i][j];
      let lo = 0;
      while (lo < cuts.length && x >= cuts[lo]) lo++;
      bj[i] = lo;
    }
    binOf.push(bj);
  }
  const pos = labels.reduce((a, b) => a + b, 0);
  const base = Math.log(Math.max(pos, 1) / Math.max(n - pos, 1));
  const F = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const trees: RerankTree[] = [];
  const round = (x: number): number => Number(x.toPrecision(8));
  // pairwise objectives: the rows of each document (groups[i] = document of row i)
  const docs: { pos: number[]; neg: number[] }[] = [];
  const position = new Int32Array(n);
  if (o.objective !== 'pointwise') {
    if (!groups || groups.length !== n) throw new Error('fitTrees: a pairwise objective (pairwise, lambdarank) needs the document of every row');
    const byDoc = new Map<number, { pos: number[]; neg: number[] }>();
    for (let i = 0; i < n; i++) {
      let d = byDoc.get(groups[i]);
      if (!d) byDoc.set(groups[i], (d = { pos: [], neg: [] }));
      (labels[i] ? d.pos : d.neg).push(i);
    }
    for (const d of byDoc.values()) if (d.pos.length > 0 && d.neg.length > 0) docs.push(d);
  }
  for (let t = 0; t < o.trees; t++) {
    if (o.objective !== 'pointwise') {
      g.fill(0);
      h.fill(1e-6);
      for (const d of docs) {
        // lambdarank: 1-based positions of the document's rows under the current scores
        if (o.objective === 'lambdarank') lambdaPositions(d, F, position);
        const ideal = o.objective === 'lambdarank' ? idealDcg(d.pos.length) : 1;
        for (const i of d.pos) {
          for (const j of d.neg) {
            const rho = sigmoid(F[j] - F[i]);
            const lw = o.objective === 'lambdarank' ? lambdaWeight(position[i], position[j]) / ideal : 1;
            g[i] += lw * rho;
            g[j] -= lw * rho;
            const w = lw * rho * (1 - rho);
            h[i] += w;
            h[j] += w;
          }
        }
      }
    } else {
      for (let i = 0; i < n; i++) {
        const mu = sigmoid(F[i]);
        g[i] = labels[i] - mu;
        h[i] = Math.max(mu * (1 - mu), 1e-6);
      }
    }
    const tree = { feature: [] as number[], threshold: [] as number[], left: [] as number[], right: [] as number[], value: [] as number[] };
    const grow = (members: Int32Array, depth: number): number => {
      let G = 0;
      let H = 0;
      for (const i of members) {
        G += g[i];
        H += h[i];
      }
      const node = tree.feature.length;
      tree.feature.push(-1);
      tree.threshold.push(0);
      tree.left.push(-1);
      tree.right.push(-1);
      tree.value.push(round((o.rate * G) / (H + o.l2)));
      if (depth >= o.depth || members.length < 2 * o.minLeaf) return node;
      let bestGain = 1e-9;
      let bestF = -1;
      let bestB = -1;
      const parent = (G * G) / (H + o.l2);
      for (let j = 0; j < p; j++) {
        const cuts = thresholds[j];
        if (cuts.length === 0) continue;
        const gb = new Float64Array(cuts.length + 1);
        const hb = new Float64Array(cuts.length + 1);
        const cb = new Int32Array(cuts.length + 1);
        const bj = binOf[j];
        for (const i of members) {
          gb[bj[i]] += g[i];
          hb[bj[i]] += h[i];
          cb[bj[i]]++;
        }
        let gl = 0;
        let hl = 0;
        let cl = 0;
        for (let b = 0; b < cuts.length; b++) {
          gl += gb[b];
          hl += hb[b];
          cl += cb[b];
          const cr = members.length - cl;
          if (cl < o.minLeaf || cr < o.minLeaf) continue;
          const gain = (gl * gl) / (hl + o.l2) + ((G - gl) * (G - gl)) / (H - hl + o.l2) - parent;
          if (gain > bestGain) {
            bestGain = gain;
            bestF = j;
            bestB = b;
          }
        }
      }
      if (bestF < 0) return node;
      const bj = binOf[bestF];
      const l: number[] = [];
      const r: number[] = [];
      for (const i of members) (bj[i] <= bestB ? l : r).push(i);
      tree.feature[node] = bestF;
      tree.threshold[node] = thresholds[bestF][bestB];
      tree.left[node] = grow(Int32Array.from(l), depth + 1);
      tree.right[node] = grow(Int32Array.from(r), depth + 1);
      return node;
    };
    const all = new Int32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    grow(all, 0);
    // leaves only add their value
    for (let i = 0; i < n; i++) {
      let k = 0;
      while (tree.feature[k] >= 0) k = rows[i][tree.feature[k]] < tree.threshold[k] ? tree.left[k] : tree.right[k];
      F[i] += tree.value[k];
    }
    trees.push(tree);
  }
  // the model lists the core features and the optional ones up to the last its trees split on
  let width = RERANK_CORE_FEATURE_COUNT;
  for (const t of trees) for (const f of t.feature) width = Math.max(width, f + 1);
  return { version: 1, features: RERANK_FEATURES.slice(0, width), base: round(base), trees };
}

/** Sets position[i] (1 = best) of every row of one document under the scores F (ties: lower row first). */
function lambdaPositions(d: { pos: number[]; neg: number[] }, F: Float64Array, position: Int32Array): void {
  const rows = [...d.pos, ...d.neg].sort((a, b) => F[b] - F[a] || a - b);
  for (let r = 0; r < rows.length; r++) position[rows[r]] = r + 1;
}

/**
 * LambdaRank's pair weight (Burges 2010, "From RankNet to LambdaRank to LambdaMART", §4 with binary
 * relevance): |ΔDCG| of swapping a keyword at position p and a non-keyword at position q,
 * |1/log2(1 + p) − 1/log2(1 + q)|; the caller divides by the document's ideal DCG.
 */
export function lambdaWeight(p: number, q: number): number {
  return Math.abs(1 / Math.log2(1 + p) - 1 / Math.log2(1 + q));
}

/** The ideal DCG of a document with `positives` keywords (binary gains). */
function idealDcg(positives: number): number {
  let s = 0;
  for (let r = 1; r <= positives; r++) s += 1 / Math.log2(1 + r);
  return s;
}
