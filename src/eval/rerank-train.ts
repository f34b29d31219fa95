/**
 * Training of the re-ranker (src/pipeline/rerank.ts, rerank-model.ts) on an annotated gold file:
 * every document is run through the preset `filmkw-rerank` with an all-zero model and no dedup, which
 * yields the candidates the model scores there (the `rerank.pool` best by the graph score, words and
 * phrases) with their feature vectors; a candidate is a
 * positive when its normalised surface is one of the document's gold keywords (the evaluator's
 * normalisation, metrics.ts). The model is then fitted on all rows (rerank-fit.ts `fitTrees`).
 *
 * `crossValidate` scores parameters by k-fold cross-validation over documents (fold = document index mod k,
 * deterministic) with the same selection as the pipeline (select.ts `selectItems`: logit order,
 * first occurrence on ties, no overlapping variants, under the `phrases.dedup`, `phrases.rescueWords`,
 * `phrases.fullNames` and `output.castVerbs` the table was read with), macro F1@1..5 of the held-out folds.
 *
 * Driven by scripts/train-rerank.mjs (`npm run train:rerank`), which writes models/rerank.json.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KgView } from '../kg/model.js';
import { createExtractor } from '../pipeline/extract.js';
import { resolveOptions } from '../pipeline/options.js';
import { RERANK_FEATURES } from '../pipeline/rerank.js';
import { rerankLogit, zeroRerankModel, type RerankModel } from '../pipeline/rerank-model.js';
import { fitTrees, type TreeParameters } from './rerank-fit.js';
import { isCastVerb, type PhraseOptions } from '../pipeline/phrases.js';
import { selectItems, type RankedItem } from '../pipeline/select.js';
import type { OutputOptions } from '../pipeline/output.js';
import { preferFullNames } from '../pipeline/full-names.js';
import { evaluate, normalizeKeyword, type EvalResult } from './metrics.js';
import type { GoldDocument } from './readers.js';
import type { CorpusStats } from '../pipeline/corpus-stats.js';
import { mulberry32 } from '../util/random.js';

/** The preset the re-ranker is trained for. */
export const RERANK_PRESET = 'filmkw-rerank';

/** The number of candidates per document the preset's model scores (option `rerank.pool`), recorded in the model. */
export function presetPool(overrides: Record<string, unknown> = {}): number {
  return resolveOptions(RERANK_PRESET, overrides).rerank.pool;
}

/** One document's candidates with features and labels. */
export interface TrainingDocument {
  readonly id: string;
  readonly gold: readonly string[];
  readonly items: readonly { text: string; charStart: number; phrase: boolean; count?: number; x: Float64Array; label: number }[];
  /** The selection options the table was read with (dedup rule, `rescueWords`, `output.castVerbs`); absent: the preset's. */
  readonly select?: Pick<PhraseOptions, 'dedup' | 'rescueWords'> & Partial<Pick<PhraseOptions, 'fullNames'> & Pick<OutputOptions, 'castVerbs'>>;
}

/** How {@link trainingTable} reads the documents. */
export interface TableReading {
  /** Give each document its film and title (GoldDocument `film`, `title`) as the extractor's context; true when absent. */
  context?: boolean;
  /** Corpus statistics for the corpus features (corpus-stats.ts); absent: none (the features stay 0). */
  corpusStats?: CorpusStats | null;
}

/**
 * Feature table of the documents (module header).
 * @param overrides further option overrides on the preset (e.g. for ablations)
 * @param optional optional features (rerank.ts, after RERANK_CORE_FEATURE_COUNT) to compute; the others
 *   are 0 (the committed recipe uses none)
 */
export function trainingTable(
  docs: readonly GoldDocument[],
  kg: KgView,
  overrides: Record<string, unknown> = {},
  optional: readonly string[] = [],
  read: TableReading = {},
): TrainingDocument[] {
  // every candidate the model scores, whatever the selection would take (no dedup, cast-list verbs and
  // short names kept)
  const extractor = createExtractor({
    preset: RERANK_PRESET,
    kg,
    overrides: { ...overrides, 'phrases.dedup': 'off', 'phrases.fullNames': false, 'output.castVerbs': 'keep' },
    rerankModel: zeroRerankModel(optional),
    corpusStats: read.corpusStats ?? null,
  });
  const context = read.context ?? true;
  const index = new Map(RERANK_FEATURES.map((f, j) => [f as string, j]));
  const countAt = index.get('logCount')!;
  // the selection of the options asked for (the table itself is read without dedup)
  const resolved = resolveOptions(RERANK_PRESET, overrides);
  const { dedup, rescueWords } = resolved.phrases;
  const select = Object.freeze({ dedup, rescueWords, fullNames: resolved.phrases.fullNames, castVerbs: resolved.output.castVerbs });
  return docs.map((d) => {
    const gold = new Set(d.gold.map(normalizeKeyword));
    const keywords = extractor.extract(d.text, { topK: 1_000_000, explain: true, ...(context ? { film: d.film, title: d.title } : {}) });
    const items = keywords.map((k) => {
      const x = new Float64Array(RERANK_FEATURES.length);
      for (const f of k.explain!.rerank!.features) x[index.get(f.feature)!] = f.value;
      // feature logCount = ln(1 + occurrences)
      const count = Math.round(Math.exp(x[countAt]) - 1);
      return { text: k.word, charStart: -1, phrase: k.explain!.phrase !== undefined, count, x, label: gold.has(normalizeKeyword(k.word)) ? 1 : 0 };
    });
    // the zero model ties every item: the output order is the first-occurrence order, i.e. charStart order
    items.forEach((it, r) => (it.charStart = r));
    return { id: d.id, gold: d.gold, items, select };
  });
}

/** The top K of one document under a model, as the pipeline selects them (no overlapping variants; the table's selection options). */
export function selectWithModel(doc: TrainingDocument, model: RerankModel, k: number): string[] {
  const select = doc.select ?? DEFAULT_SELECT;
  const dropCast = select.castVerbs === 'drop';
  const logits = preferFullNames(doc.items, doc.items.map((it) => rerankLogit(model, it.x)), select.fullNames ?? false);
  const ranked: RankedItem[] = doc.items.map((it, k) => ({ text: it.text, value: dropCast && isCastVerb(it.text) ? NaN : logits[k], charStart: it.charStart, phrase: it.phrase, count: it.count }));
  return selectItems(ranked, 'firstOccurrence', select.dedup, k, select.rescueWords).map((i) => doc.items[i].text);
}

const DEFAULT_SELECT = Object.freeze({ dedup: 'phrases', rescueWords: 'off', fullNames: false, castVerbs: 'keep' } as const);

/** The parameters of the committed model (chosen by cross-validation on film-train, ANALYSIS.md §7). */
export const DEFAULT_TREE_PARAMETERS: Readonly<TreeParameters> = Object.freeze({ trees: 100, depth: 4, rate: 0.1, minLeaf: 20, bins: 32, l2: 1, objective: 'lambdarank' });

/**
 * The committed model's recipe besides the tree parameters (issue 24; ANALYSIS.md §8): the training
 * files (in ../shared/data/annotated), the fields of their document context, the optional features it
 * is trained on (the context and corpus families: every feature up to `corpusFilmDocs`), the corpus
 * statistics (models/corpus-stats.tsv) and the context dropout.
 */
export const RERANK_RECIPE = Object.freeze({
  gold: Object.freeze(['film-train.jsonl', 'film-train-b.jsonl']),
  filmField: 'doubanId',
  titleField: 'title',
  optional: Object.freeze(['corpusFilmDocs']),
  dropout: Object.freeze({ context: 0.5, corpus: 0, seed: 1 }) as Dropout,
});

/** Fit on the documents' rows. */
export function fitDocuments(docs: readonly TrainingDocument[], params: TreeParameters = DEFAULT_TREE_PARAMETERS): Omit<RerankModel, 'training'> {
  const rows: Float64Array[] = [];
  const labels: number[] = [];
  const groups: number[] = [];
  docs.forEach((d, k) => {
    for (const it of d.items) {
      rows.push(it.x);
      labels.push(it.label);
      groups.push(k);
    }
  });
  return fitTrees(rows, labels, params, groups);
}

/** A variant of the training table (ablations and speed trade-offs, ANALYSIS.md §7). */
export interface TableVariant {
  /** Keep only the candidates among the `pool` best by the graph score (≤ the pool the table was read with). */
  pool?: number;
  /** Feature names whose column is set to 0 (a constant column is never split on: as if the feature were absent). */
  drop?: readonly string[];
}

/**
 * The table restricted to a smaller pool and/or without some features. A pool of P keeps the items with
 * graph-score rank < P (feature `baseRank` = 1 / (1 + rank)); every other feature of an item does not
 * depend on the pool, so this equals reading the table with `rerank.pool` = P.
 */
export function restrictTable(docs: readonly TrainingDocument[], v: TableVariant): TrainingDocument[] {
  const unknown = (v.drop ?? []).filter((f) => !RERANK_FEATURES.includes(f as never));
  if (unknown.length > 0) throw new RangeError(`rerank-train: unknown feature(s) ${unknown.join(', ')}`);
  const drop = (v.drop ?? []).map((f) => RERANK_FEATURES.indexOf(f as never));
  const rankAt = RERANK_FEATURES.indexOf('baseRank');
  const pool = v.pool ?? Infinity;
  return docs.map((d) => ({
    ...d,
    items: d.items
      .filter((it) => Math.round(1 / it.x[rankAt] - 1) < pool)
      .map((it) => {
        if (drop.length === 0) return it;
        const x = Float64Array.from(it.x);
        for (const j of drop) x[j] = 0;
        return { ...it, x };
      }),
  }));
}

/**
 * Folds that keep each film's documents together (film-grouped cross-validation: a model is never
 * scored on a film it was trained on). Films in order of decreasing document count (ties: name) go to
 * the fold with the fewest documents so far (ties: the lower fold). Deterministic.
 */
export function filmFolds(films: readonly string[], folds = 5): number[] {
  const docsOf = new Map<string, number[]>();
  films.forEach((f, i) => {
    const list = docsOf.get(f);
    if (list) list.push(i);
    else docsOf.set(f, [i]);
  });
  const groups = [...docsOf.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const size = new Array<number>(folds).fill(0);
  const out = new Array<number>(films.length);
  for (const [, members] of groups) {
    let f = 0;
    for (let g = 1; g < folds; g++) if (size[g] < size[f]) f = g;
    for (const i of members) out[i] = f;
    size[f] += members.length;
  }
  return out;
}

/** Held-out predictions of a cross-validation with their evaluation. */
export interface CrossValidation {
  /** Macro F1@1..5. */
  f1: number[];
  perDocF1at5: number[];
  /** The top 5 of every document by the model of the fold that did not see it. */
  predicted: string[][];
  result: EvalResult;
}

/**
 * Macro F1@1..5 of held-out predictions by k-fold cross-validation over documents (fold = document
 * index mod k, or `foldOf[i]` when given, e.g. {@link filmFolds}).
 */
export function crossValidate(
  docs: readonly TrainingDocument[],
  params: TreeParameters = DEFAULT_TREE_PARAMETERS,
  folds = 5,
  foldOf?: readonly number[],
): CrossValidation {
  return crossValidateOn(docs, [docs], params, folds, foldOf)[0];
}

/**
 * Cross-validation that fits each fold on `train` (the rows the model learns from, e.g. a table with
 * context dropped at random, {@link mixTables}) and scores the held-out documents of every table of
 * `evals` (the same documents in the same order, read another way: with context, without): one result
 * per table of `evals`.
 */
export function crossValidateOn(
  train: readonly TrainingDocument[],
  evals: readonly (readonly TrainingDocument[])[],
  params: TreeParameters = DEFAULT_TREE_PARAMETERS,
  folds = 5,
  foldOf?: readonly number[],
): CrossValidation[] {
  for (const e of evals) if (e.length !== train.length || e.some((d, i) => d.id !== train[i].id)) throw new RangeError('rerank-train: the evaluation tables must hold the training documents in order');
  const fold = (i: number): number => (foldOf ? foldOf[i] : i % folds);
  const predicted: string[][][] = evals.map(() => new Array(train.length));
  for (let f = 0; f < folds; f++) {
    const model = fitDocuments(train.filter((_, i) => fold(i) !== f), params);
    evals.forEach((docs, s) =>
      docs.forEach((d, i) => {
        if (fold(i) === f) predicted[s][i] = selectWithModel(d, model, 5);
      }),
    );
  }
  return evals.map((docs, s) => {
    const result = evaluate(docs.map((d, i) => ({ id: d.id, gold: d.gold, predicted: predicted[s][i] })));
    return { f1: [1, 2, 3, 4, 5].map((k) => result.macro[String(k)].f1), perDocF1at5: result.perDocument.map((p) => p.scores[4].f1), predicted: predicted[s], result };
  });
}

/** The features of the document context and of the corpus statistics (rerank-features.ts). */
export const CONTEXT_FEATURES: readonly string[] = RERANK_FEATURES.slice(RERANK_FEATURES.indexOf('filmKnown'), RERANK_FEATURES.indexOf('corpusOn'));
export const CORPUS_FEATURES: readonly string[] = RERANK_FEATURES.slice(RERANK_FEATURES.indexOf('corpusOn'), RERANK_FEATURES.indexOf('corpusFilmDocs') + 1);

/** The documents read three ways (same candidates, same order): with their context, without it, and without context or corpus statistics. */
export interface Readings {
  readonly withContext: TrainingDocument[];
  readonly withoutContext: TrainingDocument[];
  /** Without context and with the corpus features off (as out of domain, the gate closed). */
  readonly bare: TrainingDocument[];
}

/**
 * The training documents read with and without their context (two passes of {@link trainingTable});
 * the corpus-off readings are the same rows with the corpus features at 0, which is what the pipeline
 * computes when the gate is closed or no table is given.
 */
export function readings(docs: readonly GoldDocument[], kg: KgView, overrides: Record<string, unknown> = {}, optional: readonly string[] = [], corpusStats: CorpusStats | null = null): Readings {
  const withContext = trainingTable(docs, kg, overrides, optional, { context: true, corpusStats });
  const withoutContext = trainingTable(docs, kg, overrides, optional, { context: false, corpusStats });
  return { withContext, withoutContext, bare: restrictTable(withoutContext, { drop: CORPUS_FEATURES }) };
}

/** The shares of the training documents read without their context, and with the corpus features off. */
export interface Dropout {
  /** Share of documents trained on without their film and title. */
  readonly context: number;
  /** Share of documents trained on with the corpus features off (independently of the context). */
  readonly corpus: number;
  /** Seed of the draw (util/random.ts). */
  readonly seed: number;
}

/**
 * The table a model learns from (context dropout, issue 24): each document read with or without its
 * context and with or without the corpus features, drawn independently per document ({@link dropoutPicks}),
 * so that a text without context, or out of domain with the gate closed, is a case the model has seen.
 */
export function dropoutTable(r: Readings, d: Dropout): TrainingDocument[] {
  const tables = [r.withContext, r.withoutContext, restrictTable(r.withContext, { drop: CORPUS_FEATURES }), r.bare];
  const [c, q] = [d.context, d.corpus];
  return mixTables(tables, dropoutPicks(r.withContext.length, [(1 - c) * (1 - q), c * (1 - q), (1 - c) * q, c * q], d.seed));
}

/**
 * One table from several readings of the same documents: document i is taken from `tables[pick[i]]`
 * (context dropout: the model learns from texts with and without their context).
 */
export function mixTables(tables: readonly (readonly TrainingDocument[])[], pick: readonly number[]): TrainingDocument[] {
  return pick.map((t, i) => {
    if (tables[t][i].id !== tables[0][i].id) throw new RangeError('rerank-train: the tables to mix must hold the same documents in order');
    return tables[t][i];
  });
}

/**
 * Which reading each of `count` documents is trained on: independently per document, reading k with
 * probability `shares[k]` (the shares sum to 1), from a seeded generator (util/random.ts), so the same
 * call gives the same picks.
 */
export function dropoutPicks(count: number, shares: readonly number[], seed = 1): number[] {
  const rand = mulberry32(seed);
  return Array.from({ length: count }, () => {
    let u = rand();
    for (let k = 0; k < shares.length - 1; k++) {
      if (u < shares[k]) return k;
      u -= shares[k];
    }
    return shares.length - 1;
  });
}

/** sha256 hex and size of a file (the training set's identity recorded in the model). */
export function fileDigest(path: string): { sha256: string; bytes: number } {
  const content = readFileSync(path);
  return { sha256: createHash('sha256').update(content).digest('hex'), bytes: content.length };
}
