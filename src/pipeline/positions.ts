/**
 * PositionRank position bias (Florescu & Caragea, ACL 2017; spec §1.3 eq. 7 and §2.2):
 *
 *   p_i = Σ_{occurrences m of v_i} 1/m,      p̃_i = p_i / Σ_k p_k
 *
 * "The weight of each candidate word is equal to its inverse position in the document. If the same
 * word appears multiple times in the target document, then we sum all its position weights." Positions
 * are 1-based. What a position counts is the open choice `positionBase`:
 * - `'allTokens'` (default): the index among all tokens of the document, punctuation included, as in
 *   the official code (every token gets `position = i + 1`);
 * - `'candidates'`: the index among candidate occurrences only (pytextrank);
 * - `'chars'`: the UTF-16 offset of the occurrence plus one.
 * Only candidate occurrences contribute (networkx drops bias entries of non-nodes and renormalises,
 * spec §2.3, so the official code's effective bias is over graph nodes).
 */
import type { RankOptions } from './rank.js';

/** Candidate occurrences in text order, as the graph stage sees them. */
export interface OccurrenceView {
  /** Node index of each candidate occurrence. */
  readonly node: Int32Array;
  /** 0-based index of the occurrence's token among all tokens. */
  readonly tokenIndex: Int32Array;
  /** UTF-16 offset of the occurrence in the text. */
  readonly charStart: Int32Array;
}

/**
 * The normalised position weights p̃ (eq. 7), one per node; sums to 1 when there is any occurrence.
 * @param nodeCount number of graph nodes
 */
export function positionBias(occurrences: OccurrenceView, nodeCount: number, base: RankOptions['positionBase']): Float64Array {
  const p = new Float64Array(nodeCount);
  const { node, tokenIndex, charStart } = occurrences;
  const count = node.length;
  for (let k = 0; k < count; k++) {
    const position = base === 'allTokens' ? tokenIndex[k] + 1 : base === 'candidates' ? k + 1 : charStart[k] + 1;
    p[node[k]] += 1 / position;
  }
  let total = 0;
  for (let i = 0; i < nodeCount; i++) total += p[i];
  if (total > 0) for (let i = 0; i < nodeCount; i++) p[i] /= total;
  return p;
}
