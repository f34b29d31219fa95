/**
 * The candidate occurrences of one document grouped into the nodes of its word graph (王芳, 刘嘉恩, 李晶
 * 2022, §2.2: the graph is built "on the candidate set"): one node per distinct candidate word, numbered in
 * order of first occurrence, with the sentence of each occurrence (a co-occurrence window that stops at
 * sentence ends reads it); and the merging of nodes that denote the same KG entity (an alias and the name,
 * option `kgMatch.mergeAliases`). graph.ts builds the word graph's edges on these nodes.
 */
import { arena } from '../util/arena.js';
import type { OccurrenceView } from './positions.js';

/** Minimal token shape the graph stage needs (E1's `Token` satisfies it). */
export interface TokenLike {
  readonly word: string;
  readonly start: number;
}

/** The candidate occurrences of one document, grouped into nodes. */
export interface CandidateDoc extends OccurrenceView {
  /** Node labels: the surface word of each node, nodes numbered in order of first occurrence. */
  readonly words: readonly string[];
  /** Sentence number of each occurrence (see {@link isSentenceEnd}). */
  readonly sentence: Int32Array;
  /** Number of tokens in the document (all tokens). */
  readonly tokenCount: number;
}

/** Sentence-final punctuation (full- and half-width) or a line break ends a sentence. */
export function isSentenceEnd(word: string): boolean {
  if (word.length === 0) return false;
  let all = true;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c === 0x0a) return true; // a line break anywhere in the token
    // 。！？!?；;…
    if (c !== 0x3002 && c !== 0xff01 && c !== 0xff1f && c !== 0x21 && c !== 0x3f && c !== 0xff1b && c !== 0x3b && c !== 0x2026) all = false;
  }
  return all;
}

/** The word → node maps of the node labels made by {@link buildCandidateDoc} (see {@link nodeIndex}). */
const nodeIndexes = new WeakMap<readonly string[], ReadonlyMap<string, number>>();

/**
 * The index of each of a document's node labels (word → node): the map {@link buildCandidateDoc} built
 * with them, else one made now and kept with them (labels are never changed once made; merged nodes,
 * {@link mergeEntityNodes}, get new labels).
 */
export function nodeIndex(words: readonly string[]): ReadonlyMap<string, number> {
  let map = nodeIndexes.get(words);
  if (!map) {
    const made = new Map<string, number>();
    words.forEach((w, i) => made.set(w, i));
    nodeIndexes.set(words, (map = made));
  }
  return map;
}

/**
 * Group candidate occurrences into nodes (one per distinct word, in order of first occurrence).
 * @param candidateTokens indices into `tokens` of the candidate occurrences, ascending
 */
export function buildCandidateDoc(tokens: readonly TokenLike[], candidateTokens: ArrayLike<number>): CandidateDoc {
  const count = candidateTokens.length;
  // views of one buffer (util/arena.ts)
  const take = arena(new Int32Array(3 * count));
  const node = take(count);
  const tokenIndex = take(count);
  const charStart = take(count);
  const words: string[] = [];
  const nodeOf = new Map<string, number>();
  for (let k = 0; k < count; k++) {
    const ti = candidateTokens[k];
    const token = tokens[ti];
    let id = nodeOf.get(token.word);
    if (id === undefined) {
      id = words.length;
      words.push(token.word);
      nodeOf.set(token.word, id);
    }
    node[k] = id;
    tokenIndex[k] = ti;
    charStart[k] = token.start;
  }
  nodeIndexes.set(words, nodeOf);
  return new Occurrences(words, node, tokenIndex, charStart, tokens);
}

/**
 * The candidate occurrences of {@link buildCandidateDoc}. The sentence numbers are counted when first
 * asked for: only a co-occurrence window that stops at sentence ends (`crossSentence: false`) reads them.
 */
class Occurrences implements CandidateDoc {
  private sentences: Int32Array | null = null;
  readonly tokenCount: number;
  constructor(
    readonly words: readonly string[],
    readonly node: Int32Array,
    readonly tokenIndex: Int32Array,
    readonly charStart: Int32Array,
    private readonly tokens: readonly TokenLike[],
  ) {
    this.tokenCount = tokens.length;
  }

  /** Sentence number of every occurrence: the sentence ends among the tokens before it. */
  get sentence(): Int32Array {
    if (!this.sentences) {
      const sentence = new Int32Array(this.tokenIndex.length);
      let s = 0;
      let t = 0;
      for (let k = 0; k < sentence.length; k++) {
        for (const ti = this.tokenIndex[k]; t < ti; t++) if (isSentenceEnd(this.tokens[t].word)) s++;
        sentence[k] = s;
      }
      this.sentences = sentence;
    }
    return this.sentences;
  }

  /** The same occurrences with the nodes renumbered (merged nodes). */
  renumbered(words: readonly string[], node: Int32Array): Occurrences {
    const doc = new Occurrences(words, node, this.tokenIndex, this.charStart, this.tokens);
    doc.sentences = this.sentences;
    return doc;
  }
}

/**
 * Merge nodes that denote the same single KG entity (an alias and the name, option
 * `kgMatch.mergeAliases`). The merged node keeps the surface seen first; node order stays the order
 * of first occurrence.
 * @param entities per node of `doc`: its entity indices (sorted), or null
 * @returns the new document and the entity sets of its nodes
 */
export function mergeEntityNodes(doc: CandidateDoc, entities: readonly (Int32Array | null)[]): { doc: CandidateDoc; entities: (Int32Array | null)[] } {
  // fast path: no single entity is denoted by two nodes
  const seen = new Set<number>();
  let duplicate = false;
  for (const e of entities) {
    if (!e || e.length !== 1) continue;
    if (seen.has(e[0])) {
      duplicate = true;
      break;
    }
    seen.add(e[0]);
  }
  if (!duplicate) return { doc, entities: entities.slice() };
  const keyOf = (i: number): string => {
    const e = entities[i];
    return e && e.length === 1 ? `\u0000${e[0]}` : doc.words[i];
  };
  const remap = new Int32Array(doc.words.length);
  const byKey = new Map<string, number>();
  const words: string[] = [];
  const merged: (Int32Array | null)[] = [];
  let changed = false;
  // visit nodes in order of first occurrence (= node order)
  for (let i = 0; i < doc.words.length; i++) {
    const key = keyOf(i);
    const existing = byKey.get(key);
    if (existing !== undefined) {
      remap[i] = existing;
      changed = true;
    } else {
      remap[i] = words.length;
      byKey.set(key, words.length);
      words.push(doc.words[i]);
      merged.push(entities[i]);
    }
  }
  if (!changed) return { doc, entities: entities.slice() };
  const node = doc.node.map((x) => remap[x]);
  return { doc: doc instanceof Occurrences ? doc.renumbered(words, node) : { ...doc, words, node }, entities: merged };
}
