/**
 * The word graph of one document (王芳, 刘嘉恩, 李晶 2022, §2.2; spec §1.3 eqs. 1, 2, 3, 8, 9/10).
 *
 * The equations only: the nodes are the document's distinct candidate words (candidate-doc.ts; with
 * `mergeAliases` an entity's name and its aliases share one node). Edges keep their contributions apart —
 * `{cooc, kg, sem, weight}` — so an ablation switches one off without touching the construction:
 *
 * - eq. (1) co-occurrence: w(v_i, v_j) = #{(a, b): a < b, dist(a, b) < W, {t_a, t_b} = {v_i, v_j}}. The
 *   distance is measured over candidate occurrences (`windowOver: 'candidates'`, the paper builds the
 *   graph "on the candidate set"; also cppjieba and the PositionRank code) or over all tokens
 *   (`'allTokens'`: jieba, pke). `crossSentence: false` stops a window at a sentence end (。！？!?；;… or
 *   a line break); every reference implementation crosses sentences, so the default is true. A word
 *   twice inside a window is a self-pair: `selfLoops` drops it (M_ii = 0, pke), keeps it once, or keeps it
 *   twice (`'keepDouble'`, what jieba and cppjieba end up doing, spec §4.1/§4.3).
 * - eq. (2) KG edges: M^kg_ij = β when some entity of v_i and some entity of v_j are related in the MKG
 *   (any relation kind, either direction — the paper says relation types are not distinguished);
 *   β = 1 (`'binary'`), the number of distinct relations (`'relationCount'`), or a given number.
 * - eq. (3) combined: w_ij = M^co_ij + λ·M^kg_ij (`'sum'`), max(M^co, λ·M^kg) (`'max'`), or the count when
 *   the pair co-occurs and λ·M^kg otherwise (`'coOnlyWeightKgBinary'`). The edge set is the union.
 * - eq. (8) semantic similarity sm_ij = Jaccard(A_i, A_j) with A = KG neighbour sets (`'kg'`), KG
 *   neighbours among the document's nodes (`'kgInDoc'`), or graph neighbours of eq. 3 (`'docGraph'`);
 *   computed on the edges of eq. 3 (`smScope: 'existingEdges'`, eq. 9 sums over Adj(v_i)) or on every
 *   pair of nodes with a non-empty neighbour set, where sm > 0 creates an edge (`'allPairs'`).
 * - eqs. (9)/(10): the ranking weight is w + sm (`'add'`, default: multiplication would zero every edge
 *   touching a non-entity word), w·sm, w·(1 + sm), or μ·w/max(w) + (1 − μ)·sm (`'linear'`). With
 *   `smInDenominator` the out-weight normaliser O_j sums the same weights (a stochastic matrix, the WS
 *   formula); without, it sums the weights of eq. 3.
 *
 * The hot path is typed arrays (edge-table.ts: columns and an open-addressing hash on the node pair). The
 * ranking reads the graph as a CSR (rank.ts `toRankInput`); graphology.ts gives it as a graphology
 * `UndirectedGraph` for the explain output's users (graphology-metrics) and the tests.
 */
import type { KgView } from '../kg/model.js';
import { jaccard, type JaccardMemo } from './jaccard.js';
import type { CandidateDoc } from './candidate-doc.js';
import { EdgeTable } from './edge-table.js';
import { sortedHas } from '../util/sorted.js';
import { FilmkwError } from '../errors.js';
import type { OptionRules } from '../util/option-rules.js';

export const WINDOW_OVER = ['candidates', 'allTokens'] as const;
export const SELF_LOOPS = ['drop', 'keep', 'keepDouble'] as const;
export const KG_EDGE_WEIGHTS = ['binary', 'relationCount'] as const;
export const COMBINES = ['sum', 'max', 'coOnlyWeightKgBinary'] as const;
export const JACCARD_NEIGHBOURS = ['kg', 'kgInDoc', 'docGraph'] as const;
export const SM_SCOPES = ['existingEdges', 'allPairs'] as const;
export const SM_COMBINES = ['add', 'mul', 'mulOnePlus', 'linear'] as const;

/** Options of the graph stage (group `graph`). */
export interface GraphOptions {
  /**
   * Co-occurrence window W: two occurrences co-occur when their distance is < W (jieba's `span`).
   * @default 5
   */
  window: number;
  /**
   * Sequence the distance is measured on: candidate occurrences or all tokens.
   * @default 'candidates'
   */
  windowOver: (typeof WINDOW_OVER)[number];
  /**
   * Whether a window may span a sentence end.
   * @default true
   */
  crossSentence: boolean;
  /**
   * Same word twice inside a window: no edge, a self-loop counted once, or counted twice (jieba/cppjieba).
   * @default 'drop'
   */
  selfLoops: (typeof SELF_LOOPS)[number];
  /**
   * Ablation "G": add KG edges between candidates whose entities are related in the MKG (eq. 2/3).
   * @default false
   */
  kgEdges: boolean;
  /**
   * β of eq. 2: 1 for any relation, the number of distinct relations, or a fixed positive number.
   * The paper gives no weight for a KG edge; 16 was measured on film-dev (options.ts header).
   * @default 16
   */
  kgEdgeWeight: (typeof KG_EDGE_WEIGHTS)[number] | number;
  /**
   * How eq. 3 combines co-occurrence and KG weight.
   * @default 'sum'
   */
  combine: (typeof COMBINES)[number];
  /**
   * λ of eq. 3 (weight of the KG part).
   * @default 1
   */
  lambda: number;
}

/** Options of the semantic-similarity part (group `semantic`). */
export interface SemanticOptions {
  /**
   * Ablation "R": add sm = Jaccard of neighbour sets to the edge weights (eqs. 8–10).
   * @default false
   */
  enabled: boolean;
  /**
   * Neighbour sets of eq. 8: KG neighbours (global), KG neighbours present in the document, or the
   * node's neighbours in the graph of eq. 3.
   * @default 'kg'
   */
  jaccardNeighbours: (typeof JACCARD_NEIGHBOURS)[number];
  /**
   * Remove the two endpoints from both sets before computing (directly linked pairs are otherwise
   * penalised by each other's presence in the union).
   * @default false
   */
  jaccardExcludeEndpoints: boolean;
  /**
   * sm when both sets are empty (non-entity words carry no KG semantics).
   * @default 0
   */
  jaccardEmpty: number;
  /**
   * Which pairs get sm: the edges of eq. 3, or every pair of nodes with non-empty sets (sm > 0 then
   * creates an edge).
   * @default 'existingEdges'
   */
  smScope: (typeof SM_SCOPES)[number];
  /**
   * How sm enters eqs. 9/10.
   * @default 'add'
   */
  smCombine: (typeof SM_COMBINES)[number];
  /**
   * μ of `smCombine: 'linear'`.
   * @default 0.5
   */
  mu: number;
  /**
   * Also add sm in the out-weight normaliser (keeps the transition matrix stochastic).
   * @default true
   */
  smInDenominator: boolean;
}

export const DEFAULT_GRAPH_OPTIONS: Readonly<GraphOptions> = Object.freeze({
  window: 5,
  windowOver: 'candidates',
  crossSentence: true,
  selfLoops: 'drop',
  kgEdges: false,
  // β: the paper is silent; measured on film-dev (eval/results/film-dev/ANALYSIS.md, "Defaults")
  kgEdgeWeight: 16,
  combine: 'sum',
  lambda: 1,
});

export const GRAPH_OPTION_RULES: OptionRules<GraphOptions> = Object.freeze({
  window: { type: 'number', min: 2, max: 100, integer: true },
  windowOver: { type: 'enum', values: WINDOW_OVER },
  crossSentence: { type: 'boolean' },
  selfLoops: { type: 'enum', values: SELF_LOOPS },
  kgEdges: { type: 'boolean' },
  kgEdgeWeight: { type: 'enumOrNumber', values: KG_EDGE_WEIGHTS, min: 0, max: 1e6, exclusiveMin: true },
  combine: { type: 'enum', values: COMBINES },
  lambda: { type: 'number', min: 0, max: 1e3 },
});

export const DEFAULT_SEMANTIC_OPTIONS: Readonly<SemanticOptions> = Object.freeze({
  enabled: false,
  jaccardNeighbours: 'kg',
  jaccardExcludeEndpoints: false,
  jaccardEmpty: 0,
  smScope: 'existingEdges',
  smCombine: 'add',
  mu: 0.5,
  smInDenominator: true,
});

export const SEMANTIC_OPTION_RULES: OptionRules<SemanticOptions> = Object.freeze({
  enabled: { type: 'boolean' },
  jaccardNeighbours: { type: 'enum', values: JACCARD_NEIGHBOURS },
  jaccardExcludeEndpoints: { type: 'boolean' },
  jaccardEmpty: { type: 'number', min: 0, max: 1 },
  smScope: { type: 'enum', values: SM_SCOPES },
  smCombine: { type: 'enum', values: SM_COMBINES },
  mu: { type: 'number', min: 0, max: 1 },
  smInDenominator: { type: 'boolean' },
});

/** KG input of the graph stage: the view and the entity indices each node denotes (null: none). */
export interface GraphKgInput {
  kg: KgView;
  /** Per node: sorted entity indices after matching and the title policy, or null. */
  entities: readonly (Int32Array | null)[];
  /**
   * Memo of sm for pairs of single-entity nodes with large KG neighbour sets (`'kg'` sets only), shared
   * across the documents of one extractor: Jaccard of two hubs (a genre, a prolific actor) is a merge of
   * their whole neighbour lists. Pure, so sharing it cannot change results; one memo serves one option
   * set (the extractor owns it).
   */
  jaccardMemo?: JaccardMemo | null;
}

/** The word graph: nodes plus an edge table whose columns keep the contributions apart. */
export interface WordGraph {
  readonly words: readonly string[];
  readonly entities: readonly (Int32Array | null)[];
  readonly edgeCount: number;
  /** Lower node index of each edge (source ≤ target; source = target for a self-loop). */
  readonly source: Int32Array;
  readonly target: Int32Array;
  /** M^co (eq. 1), self-loops doubled under `'keepDouble'`. */
  readonly cooc: Float64Array;
  /** M^kg (eq. 2, β or relation count), before λ. */
  readonly kg: Float64Array;
  /** sm (eq. 8); 0 unless the semantic part is on. */
  readonly sem: Float64Array;
  /** w of eq. 3. */
  readonly base: Float64Array;
  /** Ranking weight (eq. 9/10 numerator; = base without the semantic part). */
  readonly weight: Float64Array;
  /** Whether O_j sums `weight` (true) or `base` (false). */
  readonly smInDenominator: boolean;
}

const EMPTY = new Int32Array(0);

/** Sorted union of sorted duplicate-free arrays. */
function sortedUnion(arrays: readonly Int32Array[]): Int32Array {
  if (arrays.length === 1) return arrays[0];
  let total = 0;
  for (const a of arrays) total += a.length;
  const all = new Int32Array(total);
  let at = 0;
  for (const a of arrays) {
    all.set(a, at);
    at += a.length;
  }
  all.sort();
  let kept = 0;
  for (let i = 0; i < total; i++) if (i === 0 || all[i] !== all[i - 1]) all[kept++] = all[i];
  return all.subarray(0, kept);
}

/** Sorted array minus the values of `remove` (small). */
function without(a: Int32Array, remove: readonly number[]): Int32Array {
  let hit = false;
  for (const r of remove) if (sortedHas(a, r)) hit = true;
  if (!hit) return a;
  return a.filter((x) => !remove.includes(x));
}

/**
 * Whether two entity sets are related in the KG, and with how many relations (for `'relationCount'`).
 * Returns 0 when unrelated.
 */
function kgRelation(kg: KgView, a: Int32Array, b: Int32Array, countRelations: boolean): number {
  let total = 0;
  for (let x = 0; x < a.length; x++) {
    const ea = a[x];
    const na = kg.neighbours(ea);
    for (let y = 0; y < b.length; y++) {
      const eb = b[y];
      if (ea === eb) continue;
      if (!sortedHas(na, eb)) continue;
      if (!countRelations) return 1;
      // a neighbour pair without a stored relation (character ↔ its movie) counts as one
      total += Math.max(1, kg.relationCount(ea, eb));
    }
  }
  return total;
}

/**
 * Bound on the work of one document's graph (issue 26), in steps: node pairs examined plus neighbour-set
 * elements read by the Jaccard values of eq. 8. Only the options whose work can grow faster than the
 * text are checked against it, before that work is done: a co-occurrence window over the candidates of
 * a long text (occurrences × (W − 1) pairs), node-space neighbour sets (`jaccardNeighbours` 'docGraph'
 * or 'kgInDoc', whose sizes grow with the text) and `smScope: 'allPairs'` (every pair of nodes). A
 * document over it is refused ({@link graphTooLarge}), never run for minutes or out of memory: about
 * 10⁸ steps is a second or two of work. The default presets never reach it (their graph is linear in
 * the text: a 1M-character document stays under 10 % of it).
 */
export const GRAPH_WORK_LIMIT = 100_000_000;

/** The refusal of a document whose graph would exceed {@link GRAPH_WORK_LIMIT} (FilmkwError INPUT). */
export function graphTooLarge(what: string, work: number, advice: string): FilmkwError {
  return new FilmkwError(
    'INPUT',
    `graph: the document is too large for ${what}: about ${Math.round(work).toLocaleString('en-US')} steps, over the bound of ${GRAPH_WORK_LIMIT.toLocaleString('en-US')}; ${advice}`,
  );
}

/** Steps of eq. 1: at most W − 1 later occurrences are paired with each occurrence. */
export function cooccurrenceWork(doc: CandidateDoc, go: GraphOptions): number {
  return doc.node.length * (go.window - 1);
}

/**
 * Steps of eq. 8 over neighbour sets `sets`: one per pair plus the smaller set of the pair (what the
 * galloping intersection reads), on the existing edges or on every pair of non-empty sets. Computed in
 * O(edges) or O(n log n), before any Jaccard value.
 */
export function semanticWork(sets: readonly Int32Array[], table: EdgeTable, so: SemanticOptions): number {
  if (so.smScope === 'existingEdges') {
    let work = 0;
    for (let e = 0; e < table.size; e++) work += 1 + Math.min(sets[table.source[e]].length, sets[table.target[e]].length);
    return work;
  }
  const sizes = sets.map((x) => x.length).filter((k) => k > 0).sort((a, b) => a - b);
  const m = sizes.length;
  let work = (m * (m - 1)) / 2;
  for (let k = 0; k < m; k++) work += sizes[k] * (m - 1 - k); // the smaller set of each pair
  return work;
}

/** Options the graph builder reads. */
export interface BuildGraphOptions {
  graph: GraphOptions;
  semantic: SemanticOptions;
}

/**
 * Build the word graph of eqs. 1–3 and 8–10 (see module header): one named function per equation, in
 * the order the paper applies them. Pure: the result depends only on the arguments. `kgInput` null (or
 * `graph.kgEdges` false and `semantic.enabled` false) gives the plain co-occurrence graph of eq. 1.
 */
export function buildWordGraph(doc: CandidateDoc, options: BuildGraphOptions, kgInput: GraphKgInput | null): WordGraph {
  const { graph: go, semantic: so } = options;
  const n = doc.words.length;
  // distinct co-occurrence pairs ≤ occurrences × (W − 1): no growth for eq. 1
  const coocWork = cooccurrenceWork(doc, go);
  if (coocWork > GRAPH_WORK_LIMIT) throw graphTooLarge(`graph.window ${go.window} (${doc.node.length} candidate occurrences)`, coocWork, 'use a smaller window or split the text');
  const table = new EdgeTable(doc.node.length * Math.max(1, Math.min(go.window - 1, 16)) + 16);
  cooccurrenceCounts(doc, go, table);
  const entities: readonly (Int32Array | null)[] = kgInput ? kgInput.entities : new Array<null>(n).fill(null);
  const entityNodes: number[] = [];
  if (kgInput) for (let i = 0; i < n; i++) if (entities[i] && entities[i]!.length > 0) entityNodes.push(i);
  // KG relatedness among entity nodes: needed for eq. (2) and for 'kgInDoc' neighbour sets
  const needKgPairs = kgInput !== null && (go.kgEdges || (so.enabled && so.jaccardNeighbours === 'kgInDoc'));
  const kgPairs = needKgPairs ? relatedEntityNodes(kgInput!.kg, entities, entityNodes, go.kgEdgeWeight === 'relationCount') : [];
  if (go.kgEdges) kgEdgeWeights(kgPairs, go, table);
  if (so.enabled) semanticSimilarities({ doc, entities, entityNodes, kgInput, table, kgPairs }, so);
  const m = table.size;
  const base = new Float64Array(m);
  for (let e = 0; e < m; e++) base[e] = combinedWeight(table.cooc[e], table.kg[e], go);
  const weight = so.enabled ? semanticWeights(base, table.sem.subarray(0, m), so) : base;
  return {
    words: doc.words,
    entities,
    edgeCount: m,
    source: table.source.subarray(0, m),
    target: table.target.subarray(0, m),
    cooc: table.cooc.subarray(0, m),
    kg: table.kg.subarray(0, m),
    sem: table.sem.subarray(0, m),
    base,
    weight,
    smInDenominator: !so.enabled || so.smInDenominator,
  };
}

/**
 * Eq. (1), co-occurrence: M^co_ij = #{(a, b): a < b, dist(a, b) < W, {t_a, t_b} = {v_i, v_j}}, the
 * distance over candidate occurrences or all tokens (`windowOver`), windows stopped at sentence ends
 * unless `crossSentence`, self-pairs per `selfLoops`. Adds the counts to `table.cooc`.
 */
export function cooccurrenceCounts(doc: CandidateDoc, go: GraphOptions, table: EdgeTable): void {
  const occurrences = doc.node.length;
  const overTokens = go.windowOver === 'allTokens';
  const window = go.window;
  const selfIncrement = go.selfLoops === 'keepDouble' ? 2 : go.selfLoops === 'keep' ? 1 : 0;
  const { node, tokenIndex } = doc;
  // the sentence numbers are counted only for a window that stops at sentence ends
  const sentence = go.crossSentence ? null : doc.sentence;
  for (let a = 0; a < occurrences; a++) {
    const na = node[a];
    for (let b = a + 1; b < occurrences; b++) {
      if (overTokens ? tokenIndex[b] - tokenIndex[a] >= window : b - a >= window) break;
      if (sentence && sentence[b] !== sentence[a]) break;
      const nb = node[b];
      if (na === nb) {
        if (selfIncrement > 0) {
          const e = table.edge(na, na); // may grow (replace) the columns: index first
          table.cooc[e] += selfIncrement;
        }
        continue;
      }
      const e = table.edge(na, nb);
      table.cooc[e] += 1;
    }
  }
}

/**
 * The pairs of entity nodes related in the KG (the existence test of eq. 2): [i, j, r] with i < j in
 * `entityNodes` order and r the number of relations (1 when not counted). Every pair is tested when that
 * is cheaper than reading the entities' KG neighbour lists, else the candidates are found through those
 * lists (each entity of the document once): the same pairs in the same order, and work linear in the
 * document (testing every pair was quadratic in its entities, issue 26).
 */
export function relatedEntityNodes(kg: KgView, entities: readonly (Int32Array | null)[], entityNodes: readonly number[], countRelations: boolean): [number, number, number][] {
  const pairs: [number, number, number][] = [];
  const count = entityNodes.length;
  let degrees = 0;
  for (const i of entityNodes) for (const e of entities[i]!) degrees += kg.neighbours(e).length;
  if ((count * (count - 1)) / 2 <= degrees) {
    for (let x = 0; x < count; x++) {
      for (let y = x + 1; y < count; y++) {
        const i = entityNodes[x];
        const j = entityNodes[y];
        const r = kgRelation(kg, entities[i]!, entities[j]!, countRelations);
        if (r > 0) pairs.push([i, j, r]);
      }
    }
    return pairs;
  }
  const positionsOf = new Map<number, number[]>(); // entity → its nodes' positions in entityNodes
  for (let x = 0; x < count; x++) {
    for (const e of entities[entityNodes[x]]!) {
      const list = positionsOf.get(e);
      if (list) list.push(x);
      else positionsOf.set(e, [x]);
    }
  }
  const seen = new Int32Array(count).fill(-1);
  for (let x = 0; x < count; x++) {
    const partners: number[] = [];
    for (const e of entities[entityNodes[x]]!) {
      for (const nb of kg.neighbours(e)) {
        for (const y of positionsOf.get(nb) ?? NO_POSITIONS) {
          if (y > x && seen[y] !== x) {
            seen[y] = x;
            partners.push(y);
          }
        }
      }
    }
    partners.sort((a, b) => a - b);
    for (const y of partners) {
      const i = entityNodes[x];
      const j = entityNodes[y];
      pairs.push([i, j, kgRelation(kg, entities[i]!, entities[j]!, countRelations)]);
    }
  }
  return pairs;
}

const NO_POSITIONS: readonly number[] = Object.freeze([]);

/**
 * Eq. (2), KG matrix: M^kg_ij = β for every related pair, β = 1 (`'binary'`), the relation count
 * (`'relationCount'`) or the given number (`kgEdgeWeight`). Sets `table.kg`, creating the edges.
 */
export function kgEdgeWeights(kgPairs: readonly [number, number, number][], go: GraphOptions, table: EdgeTable): void {
  for (const [i, j, r] of kgPairs) {
    const beta = go.kgEdgeWeight === 'binary' ? 1 : go.kgEdgeWeight === 'relationCount' ? r : go.kgEdgeWeight;
    const e = table.edge(i, j);
    table.kg[e] = beta;
  }
}

/**
 * Eq. (3), combined weight of one edge: w_ij = M^co_ij + λ·M^kg_ij (`'sum'`), max(M^co, λ·M^kg)
 * (`'max'`), or the count when the pair co-occurs and λ·M^kg otherwise (`'coOnlyWeightKgBinary'`).
 */
export function combinedWeight(cooc: number, kg: number, go: GraphOptions): number {
  const k = go.lambda * kg;
  if (go.combine === 'sum') return cooc + k;
  if (go.combine === 'max') return Math.max(cooc, k);
  return cooc > 0 ? cooc : k;
}

/** What eq. 8 reads: the document, its entity nodes, the KG, the edge table so far and the related pairs. */
export interface SemanticInput {
  doc: CandidateDoc;
  entities: readonly (Int32Array | null)[];
  entityNodes: readonly number[];
  kgInput: GraphKgInput | null;
  table: EdgeTable;
  kgPairs: readonly [number, number, number][];
}

/**
 * Eq. (8), semantic similarity: sm_ij = Jaccard(A_i, A_j) over the neighbour sets of
 * {@link neighbourSets}, on the edges of eq. 3 (`smScope: 'existingEdges'`) or on every pair of nodes
 * with a non-empty set, where sm > 0 creates an edge (`'allPairs'`). Sets `table.sem`.
 */
export function semanticSimilarities(g: SemanticInput, so: SemanticOptions): void {
  const { doc, entities, kgInput, table } = g;
  const n = doc.words.length;
  const sets = neighbourSets(g, so);
  if (so.smScope === 'allPairs' || so.jaccardNeighbours !== 'kg') {
    const work = semanticWork(sets, table, so);
    if (work > GRAPH_WORK_LIMIT) {
      throw graphTooLarge(`semantic.smScope "${so.smScope}" with jaccardNeighbours "${so.jaccardNeighbours}" (${n} words)`, work, 'use smScope "existingEdges" and jaccardNeighbours "kg" (the defaults), or split the text');
    }
  }
  const endpointsOf = (i: number, j: number): number[] =>
    so.jaccardNeighbours === 'kg' ? [...(entities[i] ?? EMPTY), ...(entities[j] ?? EMPTY)] : [i, j];
  const memo = so.jaccardNeighbours === 'kg' ? (kgInput?.jaccardMemo ?? null) : null;
  const sm = (i: number, j: number): number => {
    let a = sets[i];
    let b = sets[j];
    if (a.length === 0 && b.length === 0) return so.jaccardEmpty;
    if (a.length === 0 || b.length === 0) return 0;
    if (memo && a.length + b.length >= memo.minSize && entities[i]!.length === 1 && entities[j]!.length === 1) {
      const ea = entities[i]![0];
      const eb = entities[j]![0];
      let value = memo.get(ea, eb);
      if (value === undefined) {
        value = so.jaccardExcludeEndpoints ? jaccard(a, b, [ea, eb], so.jaccardEmpty) : jaccard(a, b, null, so.jaccardEmpty);
        memo.set(ea, eb, value);
      }
      return value;
    }
    if (!so.jaccardExcludeEndpoints) return jaccard(a, b, null, so.jaccardEmpty);
    const ends = endpointsOf(i, j);
    if (ends.length === 2) return jaccard(a, b, [ends[0], ends[1]], so.jaccardEmpty);
    a = without(a, ends);
    b = without(b, ends);
    return jaccard(a, b, null, so.jaccardEmpty);
  };
  if (so.smScope === 'existingEdges') {
    const existing = table.size;
    for (let e = 0; e < existing; e++) {
      const i = table.source[e];
      const j = table.target[e];
      if (i === j) continue;
      table.sem[e] = sm(i, j);
    }
    return;
  }
  const withSets: number[] = [];
  for (let i = 0; i < n; i++) if (sets[i].length > 0) withSets.push(i);
  // existing edges between nodes with empty sets still get jaccardEmpty
  if (so.jaccardEmpty !== 0) {
    for (let e = 0; e < table.size; e++) {
      const i = table.source[e];
      const j = table.target[e];
      if (i !== j && sets[i].length === 0 && sets[j].length === 0) table.sem[e] = so.jaccardEmpty;
    }
  }
  for (let x = 0; x < withSets.length; x++) {
    for (let y = x + 1; y < withSets.length; y++) {
      const i = withSets[x];
      const j = withSets[y];
      const value = sm(i, j);
      if (value > 0) {
        const e = table.edge(i, j);
        table.sem[e] = value;
      } else {
        const e = table.find(i, j);
        if (e >= 0) table.sem[e] = value;
      }
    }
  }
}

/**
 * Eqs. (9)/(10), the weight the ranking uses once sm is added: w + sm (`'add'`, default), w·sm
 * (`'mul'`), w·(1 + sm) (`'mulOnePlus'`) or μ·w/max(w) + (1 − μ)·sm (`'linear'`), per edge, from the
 * weights `base` of eq. 3 and the similarities `sem` of eq. 8.
 */
export function semanticWeights(base: Float64Array, sem: Float64Array, so: SemanticOptions): Float64Array {
  const m = base.length;
  const weight = new Float64Array(m);
  let maxBase = 0;
  for (let e = 0; e < m; e++) if (base[e] > maxBase) maxBase = base[e];
  for (let e = 0; e < m; e++) {
    const w = base[e];
    const s = sem[e];
    switch (so.smCombine) {
      case 'add':
        weight[e] = w + s;
        break;
      case 'mul':
        weight[e] = w * s;
        break;
      case 'mulOnePlus':
        weight[e] = w * (1 + s);
        break;
      case 'linear':
        weight[e] = so.mu * (maxBase > 0 ? w / maxBase : 0) + (1 - so.mu) * s;
        break;
    }
  }
  return weight;
}

/** Neighbour sets A_i of eq. 8 for every node (empty for nodes without any). */
function neighbourSets(g: SemanticInput, so: SemanticOptions): Int32Array[] {
  const { doc, entities, entityNodes, kgInput, table, kgPairs } = g;
  const n = doc.words.length;
  const sets: Int32Array[] = new Array<Int32Array>(n).fill(EMPTY);
  if (so.jaccardNeighbours === 'kg') {
    if (!kgInput) return sets;
    for (const i of entityNodes) {
      const e = entities[i]!;
      sets[i] = e.length === 1 ? kgInput.kg.neighbours(e[0]) : sortedUnion(Array.from(e, (x) => kgInput.kg.neighbours(x)));
    }
    return sets;
  }
  // node-space sets
  const lists: number[][] = Array.from({ length: n }, () => []);
  if (so.jaccardNeighbours === 'kgInDoc') {
    for (const [i, j] of kgPairs) {
      lists[i].push(j);
      lists[j].push(i);
    }
  } else {
    for (let e = 0; e < table.size; e++) {
      const i = table.source[e];
      const j = table.target[e];
      if (i === j || (table.cooc[e] === 0 && table.kg[e] === 0)) continue;
      lists[i].push(j);
      lists[j].push(i);
    }
  }
  for (let i = 0; i < n; i++) if (lists[i].length > 0) sets[i] = Int32Array.from(lists[i]).sort();
  return sets;
}
