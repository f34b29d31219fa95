/**
 * The pure per-document core of the pipeline (王芳, 刘嘉恩, 李晶 2022 §2; spec §1.2 steps 3–8): given
 * the tokens of one document and its candidate occurrences, KG matching and the title policy → word
 * graph (eqs. 1–3, 8–10) → ranking (eqs. 5, 6/7, 9, 10) → top K with optional explanation.
 *
 * No state survives a call (the optional memos only remember pure KG lookups and Jaccard values), so a
 * document gives the same keywords alone or inside a batch. extract.ts wraps it with segmentation and candidate selection.
 *
 * Output rules ([RECON], options of group `output`): candidates without edges are kept with their
 * restart score, dropped (jieba) or scored 0 (cppjieba); scores are raw, jieba's min-max/10 or
 * sum-normalised; ties are broken by first occurrence or code point (`rank.tieBreak`).
 */
import type { KgView } from '../kg/model.js';
import { usageError } from '../errors.js';
import type { ExtractCallOptions, Keyword, KeywordExplain } from './api.js';
import { buildCandidateDoc, buildWordGraph, mergeEntityNodes, toRankInput, type JaccardMemo, type TokenLike, type WordGraph } from './graph.js';
import { matchEntities, primaryEntity, resolveAmbiguity, type MatchCache } from './kg-match.js';
import type { ResolvedOptions } from './options.js';
import { positionBias } from './positions.js';
import { codePointOrder, orderByScore, rankGraph } from './rank.js';
import { applyTitlePolicy } from './title-policy.js';
import { loadBundledIdf } from './idf.js';

/** What the pure core needs besides the tokens. */
export interface DocumentContext {
  options: ResolvedOptions;
  /** The KG, or null (plain TextRank/PositionRank). */
  kg: KgView | null;
  /** Common-word entity names for the title policy (title-policy.ts `commonEntityNames`). */
  common: ReadonlySet<string>;
  /** Memo of word → entities (pure lookups); optional. */
  cache?: MatchCache | null;
  /** Memo of hub-pair Jaccard values (pure); optional. */
  jaccardMemo?: JaccardMemo | null;
}

/** Whether the options use the KG to build or weight the graph. */
export function usesKgGraph(options: ResolvedOptions): boolean {
  return options.graph.kgEdges || options.semantic.enabled;
}

/** Whether the options need a KG at all (lexicon, KG edges or semantic similarity). */
export function needsKg(options: ResolvedOptions): boolean {
  return options.lexicon.useDomainLexicon || usesKgGraph(options);
}

/**
 * Rank the candidates of one tokenised document and return the top K keywords (pure).
 * @param text the document (for 《》 detection by the title policy)
 * @param tokens all tokens, in order, with UTF-16 offsets
 * @param candidateTokens ascending indices into `tokens` of the candidate occurrences
 */
export function extractFromTokens(
  text: string,
  tokens: readonly TokenLike[],
  candidateTokens: ArrayLike<number>,
  context: DocumentContext,
  call: ExtractCallOptions = {},
): Keyword[] {
  const o = context.options;
  const kg = context.kg;
  let doc = buildCandidateDoc(tokens, candidateTokens);
  const kgGraph = kg !== null && usesKgGraph(o);
  let entities: (Int32Array | null)[] | null = null;
  if (kg && (kgGraph || o.output.annotateEntities)) {
    entities = matchEntities(doc.words, kg, o.kgMatch, context.cache ?? undefined);
    if (entities.some((e) => e !== null)) {
      entities = applyTitlePolicy(entities, kg, { text, words: doc.words, node: doc.node, charStart: doc.charStart }, context.common, o.titles);
      entities = resolveAmbiguity(entities, kg, o.kgMatch);
      if (kgGraph && o.kgMatch.mergeAliases) ({ doc, entities } = mergeEntityNodes(doc, entities));
    } else entities = null;
  }
  const graph = buildWordGraph(doc, o, kgGraph && entities ? { kg: kg!, entities, jaccardMemo: context.jaccardMemo } : null);
  const n = doc.words.length;
  const bias = o.rank.algorithm === 'positionrank' ? positionBias(doc, n, o.rank.positionBase) : null;
  const sweepOrder = o.rank.iterationMode === 'fixed10GaussSeidel' ? codePointOrder(doc.words) : null;
  const input = toRankInput(graph, bias, sweepOrder);
  const { scores } = rankGraph(input, o.rank);

  // isolated candidates (no edge at all)
  const included: number[] = [];
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const isolated = input.offsets[i + 1] === input.offsets[i];
    if (isolated && o.output.isolated === 'drop') continue;
    values[i] = isolated && o.output.isolated === 'zero' ? 0 : scores[i];
    included.push(i);
  }
  // optional IDF prior (idf.ts; option prior.idf, owned by the eval/defaults work): score × idf(word)
  if (o.prior.idf === 'multiply') {
    const idf = loadBundledIdf();
    for (const i of included) values[i] *= idf.weight(doc.words[i]);
  }
  scale(values, included, o.output.scoreScale);

  const topK = call.topK ?? o.output.topK;
  if (!Number.isInteger(topK) || topK < 1) throw usageError(`extract: topK must be an integer ≥ 1, got ${JSON.stringify(call.topK)}`);
  const keep = new Uint8Array(n);
  for (const i of included) keep[i] = 1;
  const order = orderByScore(values, doc.words, o.rank.tieBreak, topK, keep);
  const out: Keyword[] = [];
  let adjacency: number[][] | null = null;
  for (const i of order) {
    const keyword: Keyword = { word: doc.words[i], score: values[i] };
    if (kg && entities && o.output.annotateEntities) {
      const e = primaryEntity(kg, i, entities);
      if (e >= 0) {
        keyword.kind = kg.kindOf(e);
        keyword.entityId = kg.idOf(e);
      }
    }
    if (call.explain) {
      adjacency ??= incidentEdges(graph);
      keyword.explain = explainNode(graph, adjacency[i], i, bias);
    }
    out.push(keyword);
  }
  return out;
}

/** Rescale the included nodes' values in place. */
function scale(values: Float64Array, included: readonly number[], mode: ResolvedOptions['output']['scoreScale']): void {
  if (mode === 'raw' || included.length === 0) return;
  if (mode === 'sum') {
    let total = 0;
    for (const i of included) total += values[i];
    if (total > 0) for (const i of included) values[i] /= total;
    return;
  }
  // jieba / cppjieba: (w − min/10) / (max − min/10)
  let min = Infinity;
  let max = -Infinity;
  for (const i of included) {
    if (values[i] < min) min = values[i];
    if (values[i] > max) max = values[i];
  }
  const denominator = max - min / 10;
  for (const i of included) values[i] = denominator > 0 ? (values[i] - min / 10) / denominator : 0;
}

/** Edge indices incident to each node. */
function incidentEdges(graph: WordGraph): number[][] {
  const out: number[][] = Array.from({ length: graph.words.length }, () => []);
  for (let e = 0; e < graph.edgeCount; e++) {
    out[graph.source[e]].push(e);
    if (graph.target[e] !== graph.source[e]) out[graph.target[e]].push(e);
  }
  return out;
}

/** Contributions of the node's edges, and its strongest neighbours (at most 5). */
function explainNode(graph: WordGraph, edges: readonly number[], node: number, bias: Float64Array | null): KeywordExplain {
  let cooc = 0;
  let kg = 0;
  let sem = 0;
  for (const e of edges) {
    cooc += graph.cooc[e];
    kg += graph.kg[e];
    sem += graph.sem[e];
  }
  const neighbours = edges
    .filter((e) => graph.weight[e] > 0 || graph.cooc[e] > 0)
    .map((e) => ({ e, other: graph.source[e] === node ? graph.target[e] : graph.source[e] }))
    .sort((a, b) => graph.weight[b.e] - graph.weight[a.e] || a.other - b.other)
    .slice(0, 5)
    .map(({ e, other }) => ({ word: graph.words[other], cooc: graph.cooc[e], kg: graph.kg[e], sem: graph.sem[e] }));
  const explain: KeywordExplain = { cooc, kg, sem, neighbours };
  if (bias) explain.position = bias[node];
  return explain;
}
