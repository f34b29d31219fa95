/**
 * The re-ranker's feature names (rerank.ts, rerank-families.ts), in the order of every feature vector
 * and of a model's feature list (rerank-model.ts). Features are properties of a candidate in its
 * document, never its identity, so a model carries no vocabulary; and what they are computed from, one
 * ranked document ({@link RerankDocument}).
 */
import type { TokenLike } from './candidate-doc.js';
import type { PhraseCandidate } from './phrases.js';

/** Feature names, in the order of every feature vector and of the model's weights. */
export const RERANK_FEATURES = [
  'base', // final graph score (× IDF) / the document's best
  'baseRank', // 1 / (1 + rank by final graph score)
  'logBase', // ln(0.001 + base)
  'top3', // among the 3 best by final graph score
  'top10',
  'top30',
  'textrank', // graph rank score / the document's best (phrases: their best word's)
  'idf', // IDF of the surface / 10
  'logCount', // ln(1 + occurrences)
  'firstPos', // first occurrence / text length
  'spread', // (last − first occurrence) / text length
  'len2',
  'len3',
  'len4plus',
  'kgEdges', // ln(1 + Σ KG edge weights)
  'semEdges', // ln(1 + Σ semantic edge weights)
  'person',
  'movie',
  'character',
  'genre',
  'kindFirst', // the first entity of its kind to be mentioned
  'kindSecond',
  'kindOrderInv', // 1 / (1 + order of first mention among its kind)
  'personFirst', // the first person or character named
  'personSecond',
  'personLater', // the fourth or a later person or character named
  'personCastDoc', // a person or character in a text with a cast list (（…饰）)
  'cast', // share of occurrences in a cast-list context
  'titleMarks', // share of occurrences inside 《》
  'mainMovie', // the film mentioned most often
  'shortForm', // part of a longer name or candidate in this document
  'fullForm', // an entity name containing another candidate of this document
  'posName',
  'posPlace',
  'posOtherProper',
  'posNoun',
  'posVerb',
  'posAdj',
  'posUnknown',
  'posLatin',
  'phrase',
  'phrase3',
  'phraseOneChar',
  'phraseJoined',
  'phraseEntity',
  'phraseSequel', // a word plus a sequel number (阿凡达2)
  'partBest', // phrase: the best final graph score of its words / the document's best
  'partWorst', // phrase: the worst (0 for a part that is not a graph word)
  'inPhraseShare', // word: the largest share of its occurrences inside one phrase candidate
  'mainFilmRelated', // an entity related in the KG to the document's main film (its director, actors, characters)
  'otherMovie', // a film that is not the document's main film
  'entityLinks', // ln(1 + number of the document's entities it is related to in the KG)
  // overlapping variants (传统 / 传统文化, 梦溪 / 沈梦溪, 段誉 / 世子段誉): among the document's output
  // candidates, the best by the final graph score that contains this surface, and the best it contains
  'containerBase', // the best longer candidate containing it: its final graph score / the document's best (0: none)
  'containerGap', // that score − its own
  'containerShare', // that candidate's occurrences / its own (0: none)
  'containerEntity', // that candidate names a KG entity
  'containedBase', // the best shorter candidate it contains: final graph score / the document's best (0: none)
  'containedGap', // that score − its own
  'containedShare', // its occurrences / that candidate's (0: none)
  'containedEntity', // it contains a candidate that names a KG entity
  'digit', // the surface has a digit (20年前罗拉, 阿凡达2)
  // relative to the document's other output candidates
  'docLength', // ln(1 + text length) / 10: reviews are long, synopses short
  'countRank', // 1 / (1 + number of output candidates with more occurrences)
  'firstRank', // 1 / (1 + number of output candidates that occur first)
  // optional features (RERANK_CORE_FEATURE_COUNT on): a model lists the features in order up to the last
  // one its trees use; the ones it does not list are not computed for it.
  // document context (issue 24 item 1; rerank-context.ts): the film the text is about and its title
  'filmKnown', // the text's film is given and the KG has it
  'subjectFilm', // names the text's film (its name or an alias)
  'subjectPart', // a part of the text's film's name or alias (阿凡达 for 阿凡达：水之道), not the whole
  'subjectHop1', // one KG hop from the text's film: its director, writers, cast, characters, genres
  'subjectHop2', // two KG hops from the text's film, not one
  'subjectOtherFilm', // a film of the KG that is not the text's film (the film known)
  'titleKnown', // the text has a title
  'inTitle', // occurs in the text's title
  // corpus statistics (issue 24 item 2; corpus-stats.ts), counted over the other texts of a corpus
  'corpusOn', // the corpus features apply (a table is given, and the film is known or the text has enough KG entities)
  'corpusDf', // ln(1 + other texts that have it as a candidate) / ln(1 + texts)
  'corpusSpread', // ln(1 + films whose other texts have it) / ln(1 + films)
  'corpusKeyness', // the film known and in the corpus: ln of its share of the film's other texts over its share of all other texts
  'corpusFilmDocs', // ln(1 + other texts of the text's film in the corpus) / 10
  // costly: computed only for a model that lists it (a second power iteration)
  'positionRank', // PositionRank score on the document's word graph / the document's best (phrases: their best word's)
] as const;
export type RerankFeature = (typeof RERANK_FEATURES)[number];
/** Column of every feature in a feature vector (F.base = 0, …). */
export const F = Object.fromEntries(RERANK_FEATURES.map((f, i) => [f, i])) as Record<RerankFeature, number>;
export const RERANK_FEATURE_COUNT = RERANK_FEATURES.length;
/**
 * The features every model has (the first ones of RERANK_FEATURES); the optional ones after them are
 * listed by a model only up to the last one its trees use (rerank-model.ts), and a feature a model does
 * not list is not computed for it (positionRank costs a second power iteration; the context and corpus
 * features need the caller's context and table).
 */
export const RERANK_CORE_FEATURE_COUNT = RERANK_FEATURES.indexOf('filmKnown');

/** What the stage reads of one ranked document. */
export interface RerankDocument {
  readonly text: string;
  readonly tokens: readonly (TokenLike & { readonly tag?: string })[];
  /** Node labels (graph words), numbered in order of first occurrence. */
  readonly words: readonly string[];
  /** Node, token index and UTF-16 offset of every candidate occurrence. */
  readonly node: Int32Array;
  readonly tokenIndex: Int32Array;
  readonly charStart: Int32Array;
  /** Graph rank score and final score (× IDF) of every node. */
  readonly rank: Float64Array;
  readonly values: Float64Array;
  /** Nodes that may be output. */
  readonly eligible: Uint8Array;
  /** Per node: Σ KG and Σ semantic weights of its edges. */
  readonly kgSum: Float64Array;
  readonly semSum: Float64Array;
  /** IDF weight of every eligible node when the caller has it (the prior's factor); else looked up. */
  readonly idfWeights?: Float64Array | null;
  /** The entity reported for each node (-1: none). */
  readonly entity: Int32Array;
  /** Every entity each node denotes (after the title policy), when the caller has them (the document-context features). */
  readonly entitySets?: readonly (Int32Array | null)[] | null;
  readonly phrases: readonly PhraseCandidate[];
  /** Phrase scores from their words (phrases.ts `phraseScores`; NaN: not output). */
  readonly phraseValues: Float64Array;
  /** Occurrences of every node when the caller has them (phrases.ts `nodeCounts`); else counted. */
  readonly counts?: Int32Array;
  /** PositionRank score of every node (feature `positionRank`), when the model lists it; else the feature is 0. */
  readonly positionRank?: Float64Array | null;
}
