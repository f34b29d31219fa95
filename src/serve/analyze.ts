/**
 * What the viewer shows of one document (`POST /api/extract`): the keywords exactly as `filmkw tag`
 * writes them (src/batch/format.ts, rounded), every candidate occurrence with its UTF-16 offsets, the
 * spans of multi-token keyphrases, and the word graph (nodes with their rank score and entity, edges
 * with their co-occurrence, KG and semantic parts). A pure function of (extractor, KG, text, call
 * options): the intermediate results come from the pipeline's `inspect` hook, nothing is recomputed.
 */
import type { Extractor, ExtractTrace, KeywordExplain } from '../pipeline/api.js';
import type { KgView } from '../kg/model.js';
import { primaryEntity } from '../pipeline/kg-match.js';
import { keywordsJson, roundScore } from '../batch/format.js';

/** One keyword as `filmkw tag --explain` writes it, plus its rank (1-based). */
export interface ViewKeyword {
  rank: number;
  word: string;
  score: number;
  kind?: string;
  entityId?: string;
  /** As `KeywordExplain`, numbers rounded (the tag output's JSON form), with `why`: the parts read in plain words. */
  explain?: KeywordExplain & { why: string };
}

/** A candidate occurrence: `text.slice(start, end)` is its surface; `node` indexes `nodes`. */
export interface ViewOccurrence {
  start: number;
  end: number;
  node: number;
}

export interface ViewNode {
  word: string;
  /** Graph rank score (before the IDF prior and the output scaling), rounded. */
  rank: number;
  /** Number of occurrences in the text. */
  count: number;
  kind?: string;
  entityId?: string;
  /** Rank among the keywords (1-based) when this word is one of them. */
  keyword?: number;
}

/** A word-graph edge; `kinds` lists the parts that are non-zero. */
export interface ViewEdge {
  source: number;
  target: number;
  cooc: number;
  kg: number;
  sem: number;
  weight: number;
  kinds: ('cooc' | 'kg' | 'sem')[];
}

export interface ViewResult {
  preset: string;
  topK: number;
  keywords: ViewKeyword[];
  occurrences: ViewOccurrence[];
  /** Spans of the multi-token keyphrases among the keywords: `keyword` is its rank. */
  phraseSpans: { start: number; end: number; keyword: number }[];
  nodes: ViewNode[];
  edges: ViewEdge[];
  /** Server-side extraction time, ms. */
  ms: number;
  /** Present when the graph had more drawable edges than the call's `maxEdges`: their number (only the heaviest are in `edges`). */
  truncated?: { edges: number };
  /** The film the request named and the KG film it resolved to (id and name null: the KG lacks it). */
  film?: { value: string; id: string | null; name: string | null };
}

/**
 * Extract and collect the view of one text.
 * @param kg the KG the extractor was made with (for node kinds), or null
 */
export function analyzeText(extractor: Extractor, kg: KgView | null, text: string, call: { topK: number; explain: boolean; maxEdges?: number; film?: string; title?: string }): ViewResult {
  const t0 = performance.now();
  let trace: ExtractTrace | null = null;
  const keywords = extractor.extract(text, { topK: call.topK, explain: call.explain, film: call.film, title: call.title, inspect: (t) => (trace = t) });
  const ms = performance.now() - t0;
  // the same rounding and key order as the tag output
  const rows = JSON.parse(keywordsJson(keywords, call.explain)) as Omit<ViewKeyword, 'rank'>[];
  const view: ViewKeyword[] = rows.map((k, i) => ({ rank: i + 1, ...k }));
  const result: ViewResult = { preset: extractor.preset, topK: call.topK, keywords: view, occurrences: [], phraseSpans: [], nodes: [], edges: [], ms: roundScore(ms) };
  if (call.film !== undefined) {
    const film = extractor.resolveFilm(call.film);
    result.film = { value: call.film, id: film?.id ?? null, name: film?.name ?? null };
  }
  if (trace === null) return result;
  const { tokens, doc, graph, entities, rank } = trace as ExtractTrace;
  const keywordRank = new Map(view.map((k) => [k.word, k.rank]));
  const count = new Int32Array(doc.words.length);
  for (let k = 0; k < doc.node.length; k++) {
    const token = tokens[doc.tokenIndex[k]];
    result.occurrences.push({ start: token.start, end: token.start + token.word.length, node: doc.node[k] });
    count[doc.node[k]]++;
  }
  result.nodes = doc.words.map((word, i) => {
    const node: ViewNode = { word, rank: roundScore(rank[i]), count: count[i] };
    const e = kg && entities ? primaryEntity(kg, i, entities) : -1;
    if (e >= 0) {
      node.kind = kg!.kindOf(e);
      node.entityId = kg!.idOf(e);
    }
    const r = keywordRank.get(word);
    if (r !== undefined) node.keyword = r;
    return node;
  });
  for (let e = 0; e < graph.edgeCount; e++) {
    if (graph.source[e] === graph.target[e]) continue; // self-loops are not drawn
    const kinds: ViewEdge['kinds'] = [];
    if (graph.cooc[e] > 0) kinds.push('cooc');
    if (graph.kg[e] > 0) kinds.push('kg');
    if (graph.sem[e] > 0) kinds.push('sem');
    if (kinds.length === 0) continue;
    result.edges.push({
      source: graph.source[e],
      target: graph.target[e],
      cooc: roundScore(graph.cooc[e]),
      kg: roundScore(graph.kg[e]),
      sem: roundScore(graph.sem[e]),
      weight: roundScore(graph.weight[e]),
      kinds,
    });
  }
  if (call.maxEdges !== undefined && result.edges.length > call.maxEdges) {
    result.truncated = { edges: result.edges.length };
    result.edges = heaviest(result.edges, call.maxEdges);
  }
  result.phraseSpans = phraseSpans(text, view, new Set(doc.words));
  return result;
}

/** The `max` heaviest edges (ties: the earlier edge), in their original order: a bounded response for any text. */
function heaviest(edges: readonly ViewEdge[], max: number): ViewEdge[] {
  const order = edges.map((_, i) => i).sort((a, b) => edges[b].weight - edges[a].weight || a - b);
  return order
    .slice(0, max)
    .sort((a, b) => a - b)
    .map((i) => edges[i]);
}

/** Non-overlapping spans of the keywords that are not graph words (multi-token keyphrases), best rank first. */
function phraseSpans(text: string, keywords: readonly ViewKeyword[], words: ReadonlySet<string>): ViewResult['phraseSpans'] {
  const taken: { start: number; end: number; keyword: number }[] = [];
  for (const k of keywords) {
    if (words.has(k.word) || k.word.length === 0) continue;
    for (let at = text.indexOf(k.word); at >= 0; at = text.indexOf(k.word, at + k.word.length)) {
      const end = at + k.word.length;
      if (taken.some((s) => s.start < end && at < s.end)) continue;
      taken.push({ start: at, end, keyword: k.rank });
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}
