/**
 * The re-ranker's context families (issue 24; rerank.ts `rerankItems` runs them after the families of
 * rerank-families.ts): what the caller tells about the text — the film it is about and its title
 * (context.ts) — and the statistics of a corpus of texts around it (corpus-stats.ts).
 *
 * Document context: whether the candidate names the text's film (its name or an alias) or a part of
 * that name (a short form: 阿凡达 for 阿凡达：水之道), how far it is
 * from that film in the KG (one hop: the director, writers, cast, characters, genres; two hops), whether
 * it is another film, whether it occurs in the title. A text without context reads 0 on all of them
 * (with `filmKnown` / `titleKnown` 0), which is what the model is trained on for a share of the texts.
 *
 * Corpus statistics: the candidate's document frequency and film spread over the corpus's other texts,
 * and, when the text's film has other texts in the corpus, its keyness there (its share of the film's
 * texts over its share of all texts, on a log scale). Leave one out: a text that is itself in the table
 * (found by its text hash) is taken out of its own counts, so `--corpus-stats self` reads what a table
 * without the text would say. The gate: the corpus features apply (`corpusOn`) only when a table is
 * given and the film is known or the text has at least `gate` KG entities among its candidates; out of
 * domain (an abstract, a news item with one accidental title) they stay 0, as in training for the texts
 * whose statistics were dropped.
 */
import type { KgView } from '../kg/model.js';
import { normalizeName } from '../kg/model.js';
import { sortedHas } from '../util/sorted.js';
import { F } from './rerank-features.js';
import type { DocumentSubject } from './context.js';
import { textHash, type CorpusStats } from './corpus-stats.js';
import type { RerankDocument } from './rerank-features.js';
import type { EntityContext, RowSources } from './rerank-families.js';

/** The caller's context of one document, as rerankItems takes it. */
export interface RerankContext {
  /** The film the text is about, resolved in the KG (context.ts), or null. */
  readonly subject: DocumentSubject | null;
  /** The text's title, or null. */
  readonly title: string | null;
  /** The corpus statistics, or null. */
  readonly stats: CorpusStats | null;
  /** The text's film as a key of the statistics (corpus-stats.ts `filmKey`), or null. */
  readonly filmKey: string | null;
  /** The gate's minimum number of KG entities among the candidates when the film is unknown. */
  readonly gate: number;
  /** The number of features the model lists: the families only compute what it reads. */
  readonly width: number;
}

/** What the context rows read, computed once per document. */
export interface ContextSources {
  readonly subject: DocumentSubject | null;
  readonly title: string | null;
  readonly corpus: CorpusView | null;
}

/** The corpus statistics as one document sees them (leave one out applied). */
interface CorpusView {
  readonly stats: CorpusStats;
  /** The document's own film index in the table when the table counted it (-1: no film), else -2. */
  readonly selfFilm: number;
  /** Other documents, and films with another document. */
  readonly docs: number;
  readonly films: number;
  /** The text's film in the table when it has per-film counts (-1: none) and its other documents. */
  readonly film: number;
  readonly filmDocs: number;
  /** The rows' per-document denominators and the film-documents feature, computed once ({@link corpusRow}). */
  readonly docsScale: number;
  readonly filmsScale: number;
  readonly filmDocsFeature: number;
  /** Per row of the pool: the surface's index in the table (-1: none), looked up together ({@link corpusView}). */
  readonly words: Int32Array;
  /** Per row: the documents of the text's own film with the surface, when leaving the text out can change its spread, else null. */
  readonly selfDf: Int32Array | null;
  /** Per row: the documents of `film` with the surface, null without a film. */
  readonly filmDf: Int32Array | null;
}

const SUBJECT_FEATURE = F.filmKnown;
const CORPUS_FEATURE = F.corpusOn;

/**
 * The document's context sources, or null when the model reads none of the context features; `order`
 * holds the candidates of the pool's `rows` rows (rerank-families.ts `poolOrder`).
 */
export function contextSources(d: RerankDocument, kg: KgView | null, ctx: RerankContext | null | undefined, ent: EntityContext, order: Int32Array, rows: number): ContextSources | null {
  if (!ctx || ctx.width <= SUBJECT_FEATURE) return null;
  const subject = kg ? ctx.subject : null;
  const corpus = ctx.width > CORPUS_FEATURE && ctx.stats && gateOpen(d, ctx, ent) ? corpusView(d, ctx.stats, ctx.filmKey, order, rows) : null;
  return { subject, title: ctx.title && ctx.title.length > 0 ? ctx.title : null, corpus };
}

/** The gate (module header): a table, and the film known or at least `gate` KG entities among the eligible words. */
function gateOpen(d: RerankDocument, ctx: RerankContext, ent: EntityContext): boolean {
  if (ctx.subject || (ctx.filmKey !== null && ctx.stats!.filmIndex(ctx.filmKey) >= 0)) return true;
  return ent.entityCount >= ctx.gate;
}

/** The document's view of the table, with the counts of the pool's surfaces looked up together (corpus-pack.ts `wordsOf`). */
function corpusView(d: RerankDocument, stats: CorpusStats, filmKey: string | null, order: Int32Array, rows: number): CorpusView {
  const selfFilm = stats.docFilm(textHash(d.text));
  const inTable = selfFilm !== -2;
  // per-film counts are kept for films of at least two documents (corpus-stats.ts)
  const known = filmKey === null ? -1 : stats.filmIndex(filmKey);
  const film = known >= 0 && stats.filmDocs(known) >= 2 ? known : -1;
  const filmDocs = film < 0 ? 0 : stats.filmDocs(film) - (inTable && selfFilm === film ? 1 : 0);
  const ownFilmGone = inTable && selfFilm >= 0 && stats.filmDocs(selfFilm) === 1 ? 1 : 0;
  const docs = stats.docs - (inTable ? 1 : 0);
  const films = stats.films - ownFilmGone;
  const n = d.words.length;
  const surfaces: string[] = new Array(rows);
  for (let r = 0; r < rows; r++) surfaces[r] = order[r] >= n ? d.phrases[order[r] - n].text : d.words[order[r]];
  const words = new Int32Array(rows);
  stats.wordsOf(surfaces, words);
  const filmDfs = (j: number): Int32Array => {
    const out = new Int32Array(rows);
    stats.filmDfs(words, rows, j, out);
    return out;
  };
  // the spread loses the text's film when the text is its film's only one (in all, or with the surface)
  const selfDf = inTable && selfFilm >= 0 && stats.filmDocs(selfFilm) !== 1 ? filmDfs(selfFilm) : null;
  const filmDf = film < 0 ? null : film === selfFilm && selfDf ? selfDf : filmDfs(film);
  return {
    stats,
    selfFilm,
    docs,
    films,
    film,
    filmDocs,
    docsScale: Math.log1p(Math.max(1, docs)),
    filmsScale: Math.log1p(Math.max(1, films)),
    filmDocsFeature: Math.log1p(filmDocs) / 10,
    words,
    selfDf,
    filmDf,
  };
}

/** The hop of an entity from the subject: 0 the film, 1, 2, or 3 (farther). */
function hopOf(subject: DocumentSubject, e: number): number {
  if (e === subject.film) return 0;
  if (sortedHas(subject.hop1, e)) return 1;
  return sortedHas(subject.hop2, e) ? 2 : 3;
}

/** The nearest hop of the candidate's entities (a word: every entity it denotes; a phrase: the one it names), 3 for none. */
function nearestHop(subject: DocumentSubject, c: number, x: RowSources): number {
  const d = x.d;
  const n = d.words.length;
  const set = c < n ? d.entitySets?.[c] : null;
  let best = 3;
  if (set) for (const e of set) best = Math.min(best, hopOf(subject, e));
  else {
    const e = c < n ? d.entity[c] : x.ent.phraseEntity(c - n);
    if (e >= 0) best = hopOf(subject, e);
  }
  return best;
}

/** The document-context features of candidate c, row r of the pool (module header). */
export function contextRow(f: Float64Array, c: number, r: number, text: string, x: RowSources, cx: ContextSources): void {
  const { subject, title } = cx;
  const kg = x.kg;
  if (subject && kg) {
    f[F.filmKnown] = 1;
    const name = normalizeName(text);
    const hop = subject.names.has(name) ? 0 : nearestHop(subject, c, x);
    f[F.subjectFilm] = hop === 0 ? 1 : 0;
    if (hop !== 0 && name.length >= 2) for (const full of subject.names) if (full.includes(name)) f[F.subjectPart] = 1;
    f[F.subjectHop1] = hop === 1 ? 1 : 0;
    f[F.subjectHop2] = hop === 2 ? 1 : 0;
    const n = x.d.words.length;
    const e = c < n ? x.d.entity[c] : x.ent.phraseEntity(c - n);
    f[F.subjectOtherFilm] = hop !== 0 && e >= 0 && kg.kindOf(e) === 'Movie' ? 1 : 0;
  }
  if (title) {
    f[F.titleKnown] = 1;
    f[F.inTitle] = title.includes(text) ? 1 : 0;
  }
  if (cx.corpus) corpusRow(f, r, cx.corpus);
}

/** The corpus features of the surface of the pool's row r (module header; leave one out). */
function corpusRow(f: Float64Array, r: number, v: CorpusView): void {
  const { stats } = v;
  f[F.corpusOn] = 1;
  const k = v.words[r];
  const inTable = v.selfFilm !== -2;
  let df = 0;
  let spread = 0;
  let filmDf = 0;
  if (k >= 0) {
    df = Math.max(0, stats.df(k) - (inTable ? 1 : 0));
    spread = stats.spread(k);
    if (inTable && v.selfFilm >= 0 && (v.selfDf === null || v.selfDf[r] === 1)) spread--;
    spread = Math.max(0, spread);
    if (v.filmDf) filmDf = Math.max(0, v.filmDf[r] - (inTable && v.selfFilm === v.film ? 1 : 0));
  }
  f[F.corpusDf] = Math.log1p(df) / v.docsScale;
  f[F.corpusSpread] = Math.log1p(spread) / v.filmsScale;
  f[F.corpusFilmDocs] = v.filmDocsFeature;
  if (v.filmDocs > 0) f[F.corpusKeyness] = Math.log((filmDf + 0.5) / (v.filmDocs + 1)) - Math.log((df + 0.5) / (v.docs + 1));
}
