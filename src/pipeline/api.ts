/**
 * Public contract of the extraction pipeline, shared by the tag CLI, the evaluator and the benchmarks.
 * The implementation (src/pipeline/extract.ts) resolves a preset plus overrides once, loads the
 * segmenter dictionaries once, and then extracts keywords from texts as a pure function.
 */
import type { EntityKind } from '../kg/model.js';
import type { CandidateDoc, TokenLike } from './candidate-doc.js';
import type { WordGraph } from './graph.js';

/** Per-keyword breakdown of what lifted it (only with `explain`). */
export interface KeywordExplain {
  /** Sum of co-occurrence weights on the keyword's edges. */
  cooc: number;
  /** Sum of KG edge weights on its edges. */
  kg: number;
  /** Sum of semantic-similarity (Jaccard) weights on its edges. */
  sem: number;
  /** Position-bias share (PositionRank only). */
  position?: number;
  /**
   * The word's graph rank score (TextRank/PositionRank) before the IDF prior and the output scaling.
   * Absent for a phrase (see `phrase`).
   */
  rank?: number;
  /** The IDF factor the rank score was multiplied by (option `prior.idf: 'multiply'` only). */
  idf?: number;
  /** Neighbours in the word graph with the edge parts, strongest first (at most 5). */
  neighbours: { word: string; cooc: number; kg: number; sem: number }[];
  /**
   * Only for a multi-token keyphrase (option group `phrases`, src/pipeline/phrases.ts): its words with
   * their scores (same scale as `score`) and its number of occurrences in the document. `cooc`, `kg`,
   * `sem` and `position` are then sums over its words, and `neighbours` the strongest graph neighbours
   * of its words outside the phrase.
   */
  phrase?: { words: { word: string; score: number }[]; occurrences: number };
  /**
   * Only with the learned re-ranker (option `rerank.enabled`, src/pipeline/rerank.ts): the model's
   * logit (`score` is its probability σ(logit)), its constant part `bias`, and every feature's raw
   * value and contribution to the logit (logit = bias + Σ contributions), largest first.
   */
  rerank?: { logit: number; bias: number; features: { feature: string; value: number; contribution: number }[] };
}

export interface Keyword {
  word: string;
  score: number;
  /** Present when the word denotes a KG entity. */
  kind?: EntityKind;
  entityId?: string;
  explain?: KeywordExplain;
}

export interface ExtractCallOptions {
  /** Number of keywords (default from the resolved options). */
  topK?: number;
  explain?: boolean;
  /**
   * The film the text is about: a Douban subject id (or `movie/douban/<id>`, or a Douban subject URL) or
   * a film name, resolved in the KG (context.ts); read by the re-ranker's context features when its model
   * uses them. Absent, empty or unknown to the KG: the text has no known film.
   */
  film?: string | null;
  /** The text's title (a review headline), read by the re-ranker's `inTitle` feature; absent: none. */
  title?: string | null;
  /**
   * Called once per document with the intermediate results behind the keywords (for viewers such as
   * `filmkw serve`; read only, valid during the call). Does not change the output.
   */
  inspect?: (trace: ExtractTrace) => void;
  /**
   * Called once per document with every output candidate: the words and phrases that have a final
   * score, in no particular order, each marked `scored: false` when the last ranking stage never
   * scored it (outside the re-ranker's `rerank.pool`, so never output). A candidate missing from the
   * keywords of a large `topK` while scored lost to an overlapping variant (the phrase stage's
   * no-overlap rule). For error analysis (`filmkw eval --placement`, src/eval/placement.ts); does not
   * change the output.
   */
  candidates?: (list: readonly OutputCandidate[]) => void;
}

/** One output candidate of a document (see {@link ExtractCallOptions.candidates}). */
export interface OutputCandidate {
  readonly text: string;
  readonly scored: boolean;
}

/** What {@link ExtractCallOptions.inspect} sees of one document. */
export interface ExtractTrace {
  /** All tokens of the document. */
  readonly tokens: readonly TokenLike[];
  /** Candidate occurrences and their nodes (after alias merging). */
  readonly doc: CandidateDoc;
  /** The word graph the ranking ran on. */
  readonly graph: WordGraph;
  /** Per node, the KG entities it denotes (after the title policy and disambiguation), or null. */
  readonly entities: readonly (Int32Array | null)[] | null;
  /** Graph rank score of every node (before the IDF prior and the output scaling). */
  readonly rank: Float64Array;
}

export interface Extractor {
  /** Name of the preset the extractor was made from. */
  readonly preset: string;
  /** Fully resolved options (JSON-serialisable), for results files. */
  readonly options: Readonly<Record<string, unknown>>;
  extract(text: string, call?: ExtractCallOptions): Keyword[];
  /**
   * The distinct candidate surfaces of a text (its candidate words and phrase candidates, before any
   * ranking): what `filmkw corpus build` counts (src/pipeline/corpus-stats.ts).
   */
  candidateSurfaces(text: string): string[];
  /**
   * The KG film a film value names (a Douban id or a film name, as `extract`'s `film` resolves it), or
   * null when the KG has none (or the extractor has no KG).
   */
  resolveFilm(film: string): { id: string; name: string } | null;
}
