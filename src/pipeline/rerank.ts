/**
 * Learned re-ranking of the candidates (an extension beyond 王芳 等 2022; option group `rerank`, only in
 * the preset `filmkw-rerank`). The graph stage ranks words by TextRank × IDF, which cannot see what the
 * annotation guideline rewards: the first persons named in a synopsis, the film a review is about, the
 * full form of a name rather than its short form, a theme noun over a supporting actor named once in a
 * cast list. This stage describes the `pool` best output candidates by the graph score (graph words and
 * phrases) by a fixed vector of document-level features ({@link RERANK_FEATURES}), orders them by the
 * score of boosted trees (rerank-model.ts), then applies the phrase stage's no-overlapping-variants
 * rule (select.ts `selectItems`).
 *
 * Features (rerank-features.ts; computed by the families of rerank-families.ts) are properties of the
 * candidate in this document — never its identity — so the model carries no vocabulary: graph score and rank, IDF, frequency, spread, first position, length, POS, entity kind,
 * order of first mention among the entities of its kind, cast-list context (a name in （…饰） brackets,
 * after 主演/配音, or in a 、-separated list), 《》 marks, being the document's most mentioned film, full
 * vs short form of a name, KG and semantic edge weights, phrase shape, the overlapping variants among
 * the candidates (the best longer one containing it, the best shorter one it contains: 传统 / 传统文化,
 * 梦溪 / 沈梦溪), and its rank by frequency and by first occurrence. Optional features (after
 * {@link RERANK_CORE_FEATURE_COUNT}: the PositionRank score) are computed only for a model that lists
 * them; the committed model lists the context and corpus families (rerank-context.ts) but not
 * positionRank (ANALYSIS.md §7.1). The model is trained by `npm run train:rerank`
 * (scripts/train-rerank.mjs) on film-train + film-train-b; models/rerank.json holds it with the training
 * files' sha256. Figures: eval/results/film-dev/ANALYSIS.md §7, §10.
 *
 * Pure: a function of the document's ranked graph, the KG and the model passed in.
 */
import type { KgView } from '../kg/model.js';
import type { IdfTable } from './idf.js';
import type { OptionRules } from '../util/option-rules.js';
import { RERANK_FEATURE_COUNT, type RerankDocument } from './rerank-features.js';
import {
  CAND_LIMIT,
  candidateList,
  candidatesSpace,
  castCounts,
  entityContext,
  entityContextSpace,
  occurrences,
  occurrencesSpace,
  overlapIndex,
  overlapRow,
  overlapSpace,
  phraseRow,
  phraseShares,
  poolOrder,
  poolOrderSpace,
  pooledPhraseLookups,
  rankRow,
  relativeRanks,
  relativeRanksSpace,
  rowsSpace,
  scratchFor,
  ScratchBuffers,
  totalSpace,
  wordRow,
  type RowSources,
  type Scratch,
} from './rerank-families.js';

import { contextRow, contextSources, type RerankContext } from './rerank-context.js';

export type { RerankContext } from './rerank-context.js';
export { RERANK_CORE_FEATURE_COUNT, RERANK_FEATURE_COUNT, RERANK_FEATURES, type RerankDocument, type RerankFeature } from './rerank-features.js';
export { inCastContext, ScratchBuffers, surfaceEntity } from './rerank-families.js';

/** Options of the re-ranking stage (group `rerank`). */
export interface RerankOptions {
  /**
   * Order the candidates by the learned model instead of the graph score (module header): words, and
   * the phrase stage's phrases when `phrases.enabled`; with the phrase stage off, words only (every
   * phrase feature is 0), with any preset. The bundled model was trained on `filmkw-rerank`'s candidates,
   * phrases included; other combinations are measured with `filmkw eval --set`. Off in every preset but
   * `filmkw-rerank`.
   * @default false
   */
  enabled: boolean;
  /**
   * Only the `pool` best candidates by the final graph score (words and phrases together) are scored
   * by the model; the others are never output. The model is trained on the same pool; 60 was chosen by
   * cross-validation on film-train (100 and all candidates score the same, 40 lower) and is what keeps
   * the model's work small (ANALYSIS.md §7); the preset `filmkw-rerank` uses 100 since issue 24 (§9, §10).
   * @default 60
   */
  pool: number;
  /**
   * The gate of the corpus features (rerank-context.ts): when the text's film is unknown, they apply
   * only to a text with at least this many KG entities among its candidates, so that out of domain (an
   * abstract, a news item) they stay off.
   * @default 3
   */
  corpusGate: number;
}

export const DEFAULT_RERANK_OPTIONS: Readonly<RerankOptions> = Object.freeze({ enabled: false, pool: 60, corpusGate: 3 });

export const RERANK_OPTION_RULES: OptionRules<RerankOptions> = Object.freeze({
  enabled: { type: 'boolean' },
  pool: { type: 'number', min: 1, max: 1e6, integer: true },
  corpusGate: { type: 'number', min: 0, max: 1e6, integer: true },
});


/** One output candidate with its features. */
export interface RerankItem {
  readonly text: string;
  /** Node index of a word, or -1 for a phrase. */
  readonly node: number;
  /** Index into `phrases` for a phrase, else -1. */
  readonly phrase: number;
  readonly charStart: number;
  /** The entity the surface names (-1: none). */
  readonly entity: number;
  /** The feature vector (row `baseRank` of the document's feature matrix). */
  readonly features: Float64Array;
  /** Rank by the final graph score among all items (0 = best). */
  readonly baseRank: number;
}

/** The scored candidates of one document: items in order of the final graph score, features row by row. */
export interface RerankTable {
  /** The `pool` best candidates by the final graph score, best first (item r has baseRank r). */
  readonly items: readonly RerankItem[];
  /** Row r = the features of items[r] ({@link RERANK_FEATURE_COUNT} values per row). */
  readonly matrix: Float64Array;
}

/**
 * The output candidates of one document with their feature vectors (module header): of the eligible
 * graph words and the phrases with a score, the `pool` best by the final graph score (ties: first
 * occurrence), best first, their features in one matrix. Runs the feature families of
 * rerank-families.ts in order, on scratch arrays sized from the families' declared spaces, then the
 * context families of rerank-context.ts when the caller gives a context the model reads. Pure. With
 * `buffers`, the scratch (and the returned matrix) are the kept buffers' until the caller's
 * `buffers.release()`; without, fresh arrays.
 */
export function rerankItems(d: RerankDocument, kg: KgView | null, idf: IdfTable, pool = Infinity, context: RerankContext | null = null, buffers: ScratchBuffers | null = null): RerankTable {
  const n = d.words.length;
  const m = d.phrases.length;
  if (n + m >= CAND_LIMIT) throw new RangeError(`rerank: ${n + m} candidates in one document (at most ${CAND_LIMIT - 1})`);
  const space = totalSpace(
    occurrencesSpace(n, d.counts !== undefined),
    entityContextSpace(n, m),
    candidatesSpace(n, m),
    relativeRanksSpace(n, m),
    overlapSpace(n, m),
    poolOrderSpace(n, m),
    rowsSpace(n, m, Math.min(n + m, pool)),
  );
  if (!buffers) return itemsOf(d, kg, idf, pool, context, scratchFor(space));
  try {
    return itemsOf(d, kg, idf, pool, context, buffers.take(space));
  } catch (err) {
    buffers.release();
    throw err;
  }
}

/** rerankItems on its scratch `s`. */
function itemsOf(d: RerankDocument, kg: KgView | null, idf: IdfTable, pool: number, context: RerankContext | null, s: Scratch): RerankTable {
  const n = d.words.length;
  const occ = occurrences(d, s);
  const ent = entityContext(d, kg, occ, s);
  const inPhrase = phraseShares(d, s);
  const cands = candidateList(d, occ, s);
  const ranks = relativeRanks(cands, s);
  const { order, rows } = poolOrder(cands, ranks.byFirst, pool, s);
  const phraseIdf = pooledPhraseLookups(d, idf, ent, order, rows, s);
  const overlap = overlapIndex(d, cands, ent, s);
  const cast = castCounts(d, order, rows, s);
  const docLength = Math.log1p(d.text.length) / 10;
  const x: RowSources = { d, kg, idf, occ, ent, cands, ranks, overlap, inPhrase, cast, phraseIdf, docLength };
  const cx = contextSources(d, kg, context, ent, order, rows);
  const matrix = s.floats(rows * RERANK_FEATURE_COUNT);
  const items: RerankItem[] = new Array(rows);
  for (let r = 0; r < rows; r++) {
    const c = order[r];
    const f = matrix.subarray(r * RERANK_FEATURE_COUNT, (r + 1) * RERANK_FEATURE_COUNT);
    if (c >= n) phraseRow(f, c - n, x);
    else wordRow(f, c, x);
    overlapRow(f, c, x);
    rankRow(f, r);
    if (cx) contextRow(f, c, r, c >= n ? d.phrases[c - n].text : d.words[c], x, cx);
    items[r] =
      c >= n
        ? { text: d.phrases[c - n].text, node: -1, phrase: c - n, charStart: d.phrases[c - n].charStart, entity: ent.phraseEntity(c - n), features: f, baseRank: r }
        : { text: d.words[c], node: c, phrase: -1, charStart: occ.first[c], entity: d.entity[c], features: f, baseRank: r };
  }
  return { items, matrix };
}
