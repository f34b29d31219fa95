/**
 * The word graph of one document (graph.ts) as a graphology `UndirectedGraph`, a public export: the graph
 * an `inspect` callback sees (`extractor.extract(text, { inspect: (t) => toGraphology(t.graph) })`) can be read with graphology-metrics and
 * the other graphology libraries (centrality, layout, export). The node key is the word; each edge keeps
 * its contributions apart (`cooc`, `kg`, `sem`, `weight`), as the edge table does. Extraction itself never
 * builds it: building it per document costs more than the rest of the graph stage (bench/tag.ts).
 */
import { UndirectedGraph } from 'graphology';
import type { WordGraph } from './graph.js';

/** Node attributes of the graphology view. */
export interface WordNodeAttributes {
  word: string;
  /** Entity indices in the KG view the graph was built with. */
  entities: number[];
}

/** Edge attributes of the graphology view (the contributions kept apart). */
export interface WordEdgeAttributes {
  /** M^co of eq. 1. */
  cooc: number;
  /** M^kg of eq. 2 (before λ). */
  kg: number;
  /** sm of eq. 8. */
  sem: number;
  /** Ranking weight (eq. 3, plus sm under eqs. 9/10). */
  weight: number;
}

/**
 * The word graph as a graphology `UndirectedGraph` (node key = word; self-loops kept as they are in
 * the edge table).
 */
export function toGraphology(graph: WordGraph): UndirectedGraph<WordNodeAttributes, WordEdgeAttributes> {
  const g = new UndirectedGraph<WordNodeAttributes, WordEdgeAttributes>({ allowSelfLoops: true });
  graph.words.forEach((word, i) => g.addNode(word, { word, entities: graph.entities[i] ? Array.from(graph.entities[i]!) : [] }));
  for (let e = 0; e < graph.edgeCount; e++) {
    g.addEdge(graph.words[graph.source[e]], graph.words[graph.target[e]], {
      cooc: graph.cooc[e],
      kg: graph.kg[e],
      sem: graph.sem[e],
      weight: graph.weight[e],
    });
  }
  return g;
}
