/**
 * The pure per-document core of the pipeline (王芳, 刘嘉恩, 李晶 2022 §2; spec §1.2 steps 3–8): given
 * the tokens of one document and its candidate occurrences, KG matching and the title policy → word
 * graph (eqs. 1–3, 8–10) → ranking (eqs. 5, 6/7, 9, 10) → top K with optional explanation.
 *
 * No state survives a call (the optional memos only remember pure KG lookups and Jaccard values), so a
 * document gives the same keywords alone or inside a batch. extract.ts wraps it with segmentation and candidate selection.
 *
 * Output rules ([RECON], options of group `output`, output.ts): candidates without edges are kept with
 * their restart score, dropped (jieba) or scored 0 (cppjieba); scores are raw, jieba's min-max/10 or
 * sum-normalised; ties are broken by first occurrence or code point (`rank.tieBreak`, select.ts).
 */
import type { KgView } from '../kg/model.js';
import { usageError } from '../errors.js';
import type { ExtractCallOptions, Keyword, KeywordExplain, OutputCandidate } from './api.js';
import { buildCandidateDoc, mergeEntityNodes, type CandidateDoc, type TokenLike } from './candidate-doc.js';
import { buildWordGraph, type WordGraph } from './graph.js';
import type { JaccardMemo } from './jaccard.js';
import { toRankInput, type RankInput } from './rank.js';
import { matchEntities, primaryEntity, resolveAmbiguity, type MatchCache } from './kg-match.js';
import type { ResolvedOptions } from './option-types.js';
import { scale } from './output.js';
import { positionBias } from './positions.js';
import { codePointOrder, rankGraph } from './rank.js';
import { orderByScore, selectItems, type RankedItem } from './select.js';
import { applyTitlePolicy } from '../lexicon/title-policy.js';
import type { IdfTable } from './idf.js';
import { findCompounds, findPhrases, isCastVerb, nodeCounts, phraseScores, type PhraseCandidate } from './phrases.js';
import { RERANK_FEATURES, rerankItems, type ScratchBuffers } from './rerank.js';
import { preferFullNames } from './full-names.js';
import { isStopword } from './candidates.js';
import { rerankBias, rerankContributions, rerankLogits, sigmoid, type RerankModel } from './rerank-model.js';
import { arena } from '../util/arena.js';
import type { SubjectResolver } from './context.js';
import { filmKey, type CorpusStats } from './corpus-stats.js';
import type { RerankContext } from './rerank-context.js';

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
  /** The IDF table of the prior (needed when `prior.idf` is `'multiply'`; idf.ts `loadBundledIdf`). */
  idf?: IdfTable | null;
  /** The re-ranker's model (rerank-model.ts), needed when `rerank.enabled`. */
  rerankModel?: RerankModel | null;
  /** The candidate stage's stop words, needed by `phrases.parts: 'content'` (phrases.ts findCompounds). */
  stopwords?: ReadonlySet<string> | null;
  /** The film nouns that may head a compound, needed by `phrases.stopHeads` (candidates.ts `filmHeadNouns`). */
  headStopwords?: ReadonlySet<string> | null;
  /** Resolves the film a call names (`extract(text, { film })`) in the KG (context.ts); absent: films are not resolved. */
  subjects?: SubjectResolver | null;
  /** The corpus statistics of the re-ranker's corpus features (corpus-stats.ts), or none. */
  corpusStats?: CorpusStats | null;
  /** The re-ranker's scratch kept across this extractor's documents (rerank-families.ts); absent: fresh arrays per document. */
  rerankScratch?: ScratchBuffers | null;
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
 * The candidate nodes of one tokenised document and the KG entities each denotes (KG matching, title
 * policy, disambiguation; alias nodes merged when the graph uses the KG), before any graph is built.
 */
function matchDocument(text: string, tokens: readonly TokenLike[], candidateTokens: ArrayLike<number>, context: DocumentContext): { doc: CandidateDoc; entities: (Int32Array | null)[] | null } {
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
  return { doc, entities };
}

/**
 * The distinct candidate surfaces of one tokenised document — its candidate words and its phrase
 * candidates — without ranking (the surfaces the corpus statistics count, corpus-stats.ts). A word the
 * ranking would drop as isolated (`output.isolated: 'drop'`) is still listed. Pure.
 */
export function candidateSurfaces(text: string, tokens: readonly TokenLike[], candidateTokens: ArrayLike<number>, context: DocumentContext): string[] {
  const { doc, entities } = matchDocument(text, tokens, candidateTokens, context);
  const out = new Set(doc.words);
  for (const ph of phraseCandidates(tokens, doc, entities, context)) out.add(ph.text);
  return [...out];
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
  const kgGraph = kg !== null && usesKgGraph(o);
  const { doc, entities } = matchDocument(text, tokens, candidateTokens, context);
  const graph = buildWordGraph(doc, o, kgGraph && entities ? { kg: kg!, entities, jaccardMemo: context.jaccardMemo } : null);
  const n = doc.words.length;
  const bias = o.rank.algorithm === 'positionrank' ? positionBias(doc, n, o.rank.positionBase) : null;
  const sweepOrder = o.rank.iterationMode === 'fixed10GaussSeidel' ? codePointOrder(doc.words) : null;
  const input = toRankInput(graph, bias, sweepOrder);
  const { scores } = rankGraph(input, o.rank);
  call.inspect?.({ tokens, doc, graph, entities, rank: scores });

  // isolated candidates (no edge at all)
  const included: number[] = [];
  // the scores and the IDF factors are views of one buffer (util/arena.ts)
  const floats = arena(new Float64Array(o.prior.idf === 'multiply' ? 2 * n : n));
  const values = floats(n);
  for (let i = 0; i < n; i++) {
    const isolated = input.offsets[i + 1] === input.offsets[i];
    if (isolated && o.output.isolated === 'drop') continue;
    values[i] = isolated && o.output.isolated === 'zero' ? 0 : scores[i];
    included.push(i);
  }
  // optional IDF prior (idf.ts; option prior.idf, owned by the eval/defaults work): score × idf(word)
  let idfWeights: Float64Array | null = null;
  if (o.prior.idf === 'multiply') {
    const idf = context.idf;
    if (!idf) throw usageError('extract: prior.idf "multiply" needs an IDF table in the document context (DocumentContext.idf)');
    idfWeights = floats(n);
    if (idf.weights) idf.weights(doc.words, included, idfWeights);
    else for (const i of included) idfWeights[i] = idf.weight(doc.words[i]);
    for (const i of included) values[i] *= idfWeights[i];
  }
  /** The explanation of word node i: its edges plus the rank score and the IDF factor behind its score. */
  const explainWord = (adjacency: number[][], i: number): KeywordExplain => {
    const explain = explainNode(graph, adjacency[i], i, bias);
    explain.rank = scores[i];
    if (idfWeights) explain.idf = idfWeights[i];
    return explain;
  };
  // optional learned re-ranking over words and phrases (rerank.ts; option group rerank)
  const ranked: RankedDocument = { text, tokens, doc, graph, input, entities, scores, values, included, bias, idfWeights, explainWord };
  if (o.rerank.enabled) return withRerank(ranked, context, call);
  // optional keyphrase stage (phrases.ts; option group phrases, off in the paper presets)
  if (o.phrases.enabled) return withPhrases(ranked, context, call);
  scale(values, included, o.output.scoreScale);
  call.candidates?.(included.map((i) => ({ text: doc.words[i], scored: true })));

  const topK = checkTopK(call, o);
  const keep = new Uint8Array(n);
  const dropCast = o.output.castVerbs === 'drop';
  for (const i of included) keep[i] = dropCast && isCastVerb(doc.words[i]) ? 0 : 1;
  const order = orderByScore(values, doc.words, o.rank.tieBreak, topK, keep);
  return toKeywords(order, graph, context, call, {
    word: (i) => doc.words[i],
    score: (i) => values[i],
    entity: (i, kg) => (entities ? primaryEntity(kg, i, entities) : -1),
    explain: explainWord,
  });
}

/** How {@link toKeywords} reads one selected item k. */
interface KeywordSource {
  word(k: number): string;
  score(k: number): number;
  /** The KG entity it names, or -1 (asked only when `output.annotateEntities` and a KG is given). */
  entity(k: number, kg: KgView): number;
  /** Its explanation (asked only under `explain`), from the edges incident to each node. */
  explain(adjacency: number[][], k: number): KeywordExplain;
}

/** The keywords of the selected items, in order: word and score, the entity's kind and id, the explanation. */
function toKeywords(order: readonly number[], graph: WordGraph, context: DocumentContext, call: ExtractCallOptions, source: KeywordSource): Keyword[] {
  const kg = context.kg;
  const out: Keyword[] = [];
  let adjacency: number[][] | null = null;
  for (const k of order) {
    const keyword: Keyword = { word: source.word(k), score: source.score(k) };
    if (kg && context.options.output.annotateEntities) annotate(keyword, kg, source.entity(k, kg));
    if (call.explain) keyword.explain = source.explain((adjacency ??= incidentEdges(graph)), k);
    out.push(keyword);
  }
  return out;
}

/**
 * Every output candidate of the re-ranking stage (eligible words, phrases with a score), `scored` when
 * it is one of the pooled items the model scored.
 */
function outputCandidates(n: number, eligible: Uint8Array, phrases: readonly PhraseCandidate[], phraseValues: Float64Array, items: readonly { node: number; phrase: number }[], words: readonly string[]): OutputCandidate[] {
  const pooled = new Uint8Array(n + phrases.length);
  for (const it of items) pooled[it.phrase >= 0 ? n + it.phrase : it.node] = 1;
  const list: OutputCandidate[] = [];
  for (let i = 0; i < n; i++) if (eligible[i]) list.push({ text: words[i], scored: pooled[i] === 1 });
  for (let p = 0; p < phrases.length; p++) if (!Number.isNaN(phraseValues[p])) list.push({ text: phrases[p].text, scored: pooled[n + p] === 1 });
  return list;
}

/** Give a keyword the kind and id of entity `e` (none when e < 0). */
function annotate(keyword: Keyword, kg: KgView, e: number): void {
  if (e < 0) return;
  keyword.kind = kg.kindOf(e);
  keyword.entityId = kg.idOf(e);
}

function checkTopK(call: ExtractCallOptions, o: ResolvedOptions): number {
  const topK = call.topK ?? o.output.topK;
  if (!Number.isInteger(topK) || topK < 1) throw usageError(`extract: topK must be an integer ≥ 1, got ${JSON.stringify(call.topK)}`);
  return topK;
}

/** A ranked document as the output stages (phrases, re-ranker) read it. */
interface RankedDocument {
  readonly text: string;
  readonly tokens: readonly TokenLike[];
  readonly doc: CandidateDoc;
  readonly graph: WordGraph;
  /** The graph as the ranking saw it (rank.ts). */
  readonly input: RankInput;
  readonly entities: (Int32Array | null)[] | null;
  /** Graph rank score of every node. */
  readonly scores: Float64Array;
  /** Final (unscaled) score of every node. */
  readonly values: Float64Array;
  /** The nodes that may be output. */
  readonly included: readonly number[];
  readonly bias: Float64Array | null;
  /** The IDF factor of every included node (prior `prior.idf: 'multiply'`), else null. */
  readonly idfWeights: Float64Array | null;
  /** The explanation of word node i (its edges, rank score, IDF factor). */
  readonly explainWord: (adjacency: number[][], i: number) => KeywordExplain;
}

/**
 * The top K from words and multi-token phrases together (phrases.ts): phrase candidates from adjacent
 * candidate tokens, scored from their words' final scores, then one scaling over words and phrases and
 * the selection with the dedup rule.
 */
function withPhrases(ranked: RankedDocument, context: DocumentContext, call: ExtractCallOptions): Keyword[] {
  const { tokens, doc, graph, entities, values, included, bias, explainWord } = ranked;
  const o = context.options;
  const kg = context.kg;
  const n = doc.words.length;
  const topK = checkTopK(call, o);
  const eligible = new Uint8Array(n);
  for (const i of included) eligible[i] = 1;
  const counts = nodeCounts(doc.node, n);
  const phrases = phraseCandidates(tokens, doc, entities, context);
  const phraseValues = phraseScores(phrases, values, eligible, counts, o.phrases.score);
  // one scaling over the words and the phrases
  const all = new Float64Array(n + phrases.length);
  all.set(values);
  all.set(phraseValues, n);
  const scaled: number[] = [...included];
  for (let p = 0; p < phrases.length; p++) if (!Number.isNaN(phraseValues[p])) scaled.push(n + p);
  scale(all, scaled, o.output.scoreScale);
  // first occurrence of every node (nodes are numbered in order of first occurrence)
  const firstChar = new Int32Array(n).fill(-1);
  for (let k = 0; k < doc.node.length; k++) if (firstChar[doc.node[k]] < 0) firstChar[doc.node[k]] = doc.charStart[k];
  const items: RankedItem[] = [];
  for (let i = 0; i < n; i++) items.push({ text: doc.words[i], value: eligible[i] ? all[i] : NaN, charStart: firstChar[i], phrase: false, count: counts[i] });
  for (let p = 0; p < phrases.length; p++) items.push({ text: phrases[p].text, value: all[n + p], charStart: phrases[p].charStart, phrase: true, count: phrases[p].count });
  call.candidates?.(items.filter((it) => !Number.isNaN(it.value)).map((it) => ({ text: it.text, scored: true })));
  const order = selectItems(withoutCastVerbs(items, o), o.rank.tieBreak, o.phrases.dedup, topK, o.phrases.rescueWords);
  const phraseOf = (i: number): PhraseCandidate | null => (i >= n ? phrases[i - n] : null);
  return toKeywords(order, graph, context, call, {
    word: (i) => items[i].text,
    score: (i) => all[i],
    entity: (i, kg) => {
      const phrase = phraseOf(i);
      return phrase ? phraseEntity(kg, phrase.text, entities, context) : entities ? primaryEntity(kg, i, entities) : -1;
    },
    explain: (adjacency, i) => {
      const phrase = phraseOf(i);
      return phrase ? explainPhrase(graph, adjacency, phrase.members, bias, all, phrase.count) : explainWord(adjacency, i);
    },
  });
}

/** The phrase candidates of the options (`phrases.parts`; none when the phrase stage is off). */
function phraseCandidates(tokens: readonly TokenLike[], doc: CandidateDoc, entities: (Int32Array | null)[] | null, context: DocumentContext): PhraseCandidate[] {
  const o = context.options;
  if (!o.phrases.enabled) return [];
  const exclude = o.phrases.entityWords === 'allow' || !entities ? null : o.phrases.entityWords === 'people' ? peopleOnly(entities, context.kg!) : entities;
  if (o.phrases.parts === 'content') {
    const stop = context.stopwords;
    if (!stop) throw usageError('extract: phrases.parts "content" needs the stop words in the document context (DocumentContext.stopwords)');
    const heads = context.headStopwords;
    if (o.phrases.stopHeads !== 'off' && !heads) throw usageError('extract: phrases.stopHeads needs the film head nouns in the document context (DocumentContext.headStopwords)');
    const head = o.phrases.stopHeads !== 'off' ? (w: string): boolean => isStopword(heads!, w) : null;
    return findCompounds(tokens as readonly (TokenLike & { tag?: string })[], doc, o.phrases, (w) => isStopword(stop, w), exclude, head);
  }
  return findPhrases(tokens, doc, o.phrases, exclude);
}

/** The entities of the words that name a person or a character (`phrases.entityWords: 'people'`); null for the others. */
function peopleOnly(entities: readonly (Int32Array | null)[], kg: KgView): (Int32Array | null)[] {
  return entities.map((set) => {
    if (!set) return null;
    for (let k = 0; k < set.length; k++) {
      const kind = kg.kindOf(set[k]);
      if (kind === 'Person' || kind === 'Character') return set;
    }
    return null;
  });
}

const POSITION_RANK_FEATURE = RERANK_FEATURES.indexOf('positionRank');
const FIRST_CONTEXT_FEATURE = RERANK_FEATURES.indexOf('filmKnown');

/**
 * The top K by the learned re-ranker: the `pool` best candidates by the graph score get feature vectors
 * (rerank.ts); they are ordered by the model's logit, reported as σ(logit), and the selection keeps the
 * phrase stage's dedup rule.
 */
function withRerank(ranked: RankedDocument, context: DocumentContext, call: ExtractCallOptions): Keyword[] {
  const { text, tokens, doc, graph, entities, scores, values, included, bias, idfWeights, explainWord } = ranked;
  const o = context.options;
  const kg = context.kg;
  const model = context.rerankModel;
  if (!model) throw usageError('extract: rerank.enabled needs a re-rank model (createExtractor loads models/rerank.json)');
  if (!context.idf) throw usageError('extract: rerank.enabled needs an IDF table in the document context (DocumentContext.idf)');
  const n = doc.words.length;
  const topK = checkTopK(call, o);
  // the integer and the number arrays are views of one buffer each (util/arena.ts)
  const ints = arena(new Int32Array(2 * n));
  const eligible = new Uint8Array(n);
  for (const i of included) eligible[i] = 1;
  const phrases = phraseCandidates(tokens, doc, entities, context);
  const counts = nodeCounts(doc.node, n, ints(n));
  const phraseValues = phraseScores(phrases, values, eligible, counts, o.phrases.score);
  const floats = arena(new Float64Array(2 * n + Math.min(n + phrases.length, o.rerank.pool)));
  const kgSum = floats(n);
  const semSum = floats(n);
  for (let e = 0; e < graph.edgeCount; e++) {
    kgSum[graph.source[e]] += graph.kg[e];
    semSum[graph.source[e]] += graph.sem[e];
    if (graph.target[e] !== graph.source[e]) {
      kgSum[graph.target[e]] += graph.kg[e];
      semSum[graph.target[e]] += graph.sem[e];
    }
  }
  const entity = ints(n).fill(-1);
  if (kg && entities) for (let i = 0; i < n; i++) entity[i] = primaryEntity(kg, i, entities);
  // the optional feature positionRank (a model that lists it): PositionRank on the same graph, i.e. a
  // second power iteration with the position bias as the restart vector (positions.ts, rank.ts)
  const positionRank =
    model.features.length > POSITION_RANK_FEATURE ? (o.rank.algorithm === 'positionrank' ? scores : rankGraph({ ...ranked.input, bias: positionBias(doc, n, o.rank.positionBase) }, o.rank).scores) : null;
  // the feature matrix lives in the extractor's kept buffers until released, after the last read of it
  const buffers = context.rerankScratch ?? null;
  const { items, matrix } = rerankItems(
    { text, tokens, words: doc.words, node: doc.node, tokenIndex: doc.tokenIndex, charStart: doc.charStart, rank: scores, values, eligible, kgSum, semSum, idfWeights, entity, entitySets: entities, phrases, phraseValues, counts, positionRank },
    kg,
    context.idf,
    o.rerank.pool,
    rerankContext(model, context, call),
    buffers,
  );
  try {
    // only the pool best by the graph score are items; the rest are never output
    const logits = rerankLogits(model, matrix, items.length, floats(items.length));
    const rescue = o.phrases.rescueWords;
    // a short name's place to its full form (phrases.fullNames, full-names.ts): the values the selection reads
    const selectValues = preferFullNames(items.map((it) => ({ text: it.text, x: it.features })), numberArray(logits), o.phrases.fullNames);
    // a cast-list verb is never selected under output.castVerbs 'drop' (withoutCastVerbs, in the same pass)
    const dropCast = o.output.castVerbs === 'drop';
    const candidates: RankedItem[] = items.map((it, k) => ({
      text: it.text,
      value: dropCast && isCastVerb(it.text) ? NaN : selectValues[k],
      charStart: it.charStart,
      phrase: it.phrase >= 0,
      count: rescue === 'off' ? undefined : it.phrase >= 0 ? phrases[it.phrase].count : counts[it.node],
    }));
    if (call.candidates) call.candidates(outputCandidates(n, eligible, phrases, phraseValues, items, doc.words));
    const order = selectItems(candidates, o.rank.tieBreak, o.phrases.dedup, topK, rescue);
    return toKeywords(order, graph, context, call, {
      word: (k) => items[k].text,
      score: (k) => sigmoid(selectValues[k]),
      entity: (k) => items[k].entity,
      explain: (adjacency, k) => {
        const it = items[k];
        const ph = it.phrase >= 0 ? phrases[it.phrase] : null;
        const explain = ph ? explainPhrase(graph, adjacency, ph.members, bias, values, ph.count) : explainWord(adjacency, it.node);
        explain.rerank = { logit: logits[k], bias: rerankBias(model), features: rerankContributions(model, it.features) };
        return explain;
      },
    });
  } finally {
    buffers?.release();
  }
}

/** The values of a typed array as a plain array, by a loop: `Array.from` of a typed array goes through its iterator, several times slower. */
function numberArray(values: Float64Array): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i];
  return out;
}

/** The items with the cast-list verbs set to NaN (never selected) under `output.castVerbs: 'drop'`; the same array otherwise. */
function withoutCastVerbs(items: RankedItem[], o: ResolvedOptions): RankedItem[] {
  if (o.output.castVerbs !== 'drop') return items;
  return items.map((it) => (isCastVerb(it.text) ? { ...it, value: NaN } : it));
}

/** The caller's context of one document as the re-ranker takes it (rerank-context.ts), or null when the model reads none of it. */
function rerankContext(model: RerankModel, context: DocumentContext, call: ExtractCallOptions): RerankContext | null {
  if (model.features.length <= FIRST_CONTEXT_FEATURE) return null;
  const film = typeof call.film === 'string' && call.film.trim() !== '' ? call.film : null;
  const subject = film !== null && context.subjects ? context.subjects.resolve(film) : null;
  const kg = context.kg;
  return {
    subject,
    title: typeof call.title === 'string' ? call.title : null,
    stats: context.corpusStats ?? null,
    filmKey: film === null ? null : filmKey(subject && kg ? kg.idOf(subject.film) : null, film),
    gate: context.options.rerank.corpusGate,
    width: model.features.length,
  };
}

/** The entity a phrase surface names (kg-match rules; the one with most in-document links), or -1. */
function phraseEntity(kg: KgView, text: string, entities: readonly (Int32Array | null)[] | null, context: DocumentContext): number {
  const set = matchEntities([text], kg, context.options.kgMatch, context.cache ?? undefined)[0];
  if (!set || set.length === 0) return -1;
  // as for a word: the entity with most KG links to the document's other words, then kind, then index
  return primaryEntity(kg, 0, [set, ...(entities ?? [])]);
}

/** Explain a phrase: sums over its words, strongest neighbours outside it, its words and count. */
function explainPhrase(graph: WordGraph, adjacency: number[][], members: Int32Array, bias: Float64Array | null, values: Float64Array, occurrences: number): KeywordExplain {
  const inside = new Set(members);
  let cooc = 0;
  let kg = 0;
  let sem = 0;
  let position = 0;
  const edges = new Set<number>();
  inside.delete(-1);
  for (const m of inside) {
    for (const e of adjacency[m]) {
      // an edge between two words of the phrase counts once
      if (edges.has(e)) continue;
      edges.add(e);
      cooc += graph.cooc[e];
      kg += graph.kg[e];
      sem += graph.sem[e];
    }
    if (bias) position += bias[m];
  }
  const neighbours = [...edges]
    .filter((e) => !(inside.has(graph.source[e]) && inside.has(graph.target[e])) && (graph.weight[e] > 0 || graph.cooc[e] > 0))
    .map((e) => ({ e, other: inside.has(graph.source[e]) ? graph.target[e] : graph.source[e] }))
    .sort((a, b) => graph.weight[b.e] - graph.weight[a.e] || a.other - b.other || a.e - b.e)
    .filter((x, k, list) => list.findIndex((y) => y.other === x.other) === k)
    .slice(0, 5)
    .map(({ e, other }) => ({ word: graph.words[other], cooc: graph.cooc[e], kg: graph.kg[e], sem: graph.sem[e] }));
  const explain: KeywordExplain = {
    cooc,
    kg,
    sem,
    neighbours,
    phrase: { words: Array.from(members, (m) => ({ word: m >= 0 ? graph.words[m] : '', score: m >= 0 ? values[m] : 0 })).filter((w) => w.word !== ''), occurrences },
  };
  if (bias) explain.position = position;
  return explain;
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
