/**
 * The explanations in plain words: one sentence per re-ranker feature (rerank.ts RERANK_FEATURES) and per
 * term of `--explain` (σ(logit), bias, the KG part of an edge, …), and the sentence that reads a
 * keyword's largest contributions ("ranked first: always written in 《》, the first film the text names
 * and mentioned across 36% of the text"). One module for every reader: `filmkw tag --explain` (the
 * `why` of each keyword, src/batch/format.ts), `filmkw glossary`, the viewer's tooltips and explain panel
 * (web/src) and the README's glossary table (test/pipeline/glossary.test.ts checks it against
 * {@link glossaryMarkdown}).
 *
 * A new re-ranker feature needs an entry in {@link FEATURE_GLOSSARY}: the table is typed by the feature
 * list, so the build fails without one. Pure data and string functions (no Node import): the web bundle
 * imports it too.
 */
import type { RerankFeature } from './rerank.js';
import type { KeywordExplain } from './api.js';

/** One feature in plain words. */
export interface FeatureGloss {
  /** One sentence a film scholar understands: what the number measures. */
  readonly means: string;
  /**
   * What this value says about the keyword, as a short clause for the reading sentence ("always written
   * in 《》"), or null when it says nothing worth a reader's time. `kind` is the keyword's entity kind.
   */
  readonly reads: (value: number, kind: string | undefined) => string | null;
}

/** One term of the explain output in plain words. */
export interface TermGloss {
  /** How the viewer and the README name it. */
  readonly label: string;
  readonly means: string;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const times = (n: number): string => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/** "first", "second", … "tenth", then "11th", "22nd", … (1-based). */
export function ordinal(n: number): string {
  if (n >= 1 && n <= ORDINALS.length) return ORDINALS[n - 1];
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

/** The place encoded by a 1 / (1 + place) feature (0: none). */
const place = (v: number): number => (v > 0 ? Math.round(1 / v) : 0);
/** The count encoded by a ln(1 + count) feature. */
const unlog = (v: number): number => Math.round(Math.expm1(v));
const KIND_NOUNS: Record<string, string> = { Movie: 'film', Person: 'person', Character: 'character', Genre: 'genre' };
const noun = (kind: string | undefined): string => (kind ? (KIND_NOUNS[kind] ?? kind) : 'entity');
const flag = (yes: string, no: string | null) => (v: number) => (v > 0 ? yes : no);
const kindFlag = (k: string) => flag(`a ${KIND_NOUNS[k]} in the KG`, `not a ${KIND_NOUNS[k]} in the KG`);
const posFlag = (what: string) => flag(`tagged as ${what}`, `not tagged as ${what}`);
const topN = (n: number) => flag(`among the word graph's ${n} best`, `not among the word graph's ${n} best`);
const graphShare = (v: number): string => (v >= 0.999 ? "the word graph's best score" : `a word-graph score ${pct(v)} of the best`);

/**
 * Every re-ranker feature in plain words, in the order of RERANK_FEATURES. `means` is what the README
 * and the viewer's tooltips show; `reads` words one value for the reading sentence.
 */
export const FEATURE_GLOSSARY: Readonly<Record<RerankFeature, FeatureGloss>> = Object.freeze({
  base: { means: "The word's score in the word graph (the graph rank score, times IDF under the IDF prior), as a share of the text's best word.", reads: graphShare },
  baseRank: { means: "Its place in the word graph's ranking, as 1 / place: 1 for the graph's best word, ½ for the second.", reads: (v) => (place(v) === 1 ? "first in the word graph's ranking" : `${ordinal(place(v))} in the word graph's ranking`) },
  logBase: { means: 'The word-graph score again, on a log scale, so that small differences among weak words count too.', reads: (v) => graphShare(Math.max(0, Math.exp(v) - 0.001)) },
  top3: { means: "Whether the word graph ranks it among its 3 best words.", reads: topN(3) },
  top10: { means: "Whether the word graph ranks it among its 10 best words.", reads: topN(10) },
  top30: { means: "Whether the word graph ranks it among its 30 best words.", reads: topN(30) },
  textrank: { means: 'Its TextRank score alone (before IDF), as a share of the best: how central it is among the words around it.', reads: (v) => (v >= 0.999 ? 'the most central word of the text' : `a TextRank score ${pct(v)} of the best`) },
  idf: { means: 'How rare the word is in general Chinese text (IDF ÷ 10): rare words say more about a text than common ones.', reads: (v) => (v >= 1 ? `a rare word in general Chinese (IDF ${(v * 10).toFixed(1)})` : v < 0.6 ? `a common word in general Chinese (IDF ${(v * 10).toFixed(1)})` : `a fairly rare word (IDF ${(v * 10).toFixed(1)})`) },
  logCount: { means: 'How often the text mentions it (log scale).', reads: (v) => `mentioned ${times(unlog(v))}` },
  firstPos: { means: 'Where it is first mentioned, as a share of the text (0 = the very start).', reads: (v) => (v < 0.05 ? 'named at the very start' : `first named ${pct(v)} into the text`) },
  spread: { means: 'How far apart its first and last mentions are, as a share of the text: a subject recurs throughout.', reads: (v) => (v === 0 ? 'mentioned in one place only' : `mentioned across ${pct(v)} of the text`) },
  len2: { means: 'Whether it is one or two characters long.', reads: flag('one or two characters long', 'longer than two characters') },
  len3: { means: 'Whether it is three characters long (typical of Chinese personal names).', reads: flag('three characters long', null) },
  len4plus: { means: 'Whether it is four or more characters long.', reads: flag('four or more characters long', null) },
  kgEdges: { means: 'How strongly the KG links it to the other words of the text (log of the summed KG edge weights).', reads: (v) => (v > 0 ? 'linked in the KG to other words of the text' : 'not linked in the KG to other words of the text') },
  semEdges: { means: 'How much it shares KG neighbours with the other words of the text (log of the summed Jaccard weights).', reads: (v) => (v > 0 ? 'sharing KG neighbours with other words of the text' : null) },
  person: { means: 'Whether it names a person (actor, director, writer) in the KG.', reads: kindFlag('Person') },
  movie: { means: 'Whether it names a film or TV series in the KG.', reads: kindFlag('Movie') },
  character: { means: 'Whether it names a character of a film in the KG.', reads: kindFlag('Character') },
  genre: { means: 'Whether it names a genre in the KG.', reads: kindFlag('Genre') },
  kindFirst: { means: 'Whether it is the first entity of its kind the text names (the first film, the first person …).', reads: (v, k) => (v > 0 ? `the first ${noun(k)} the text names` : k ? `not the first ${noun(k)} the text names` : null) },
  kindSecond: { means: 'Whether it is the second entity of its kind the text names.', reads: (v, k) => (v > 0 ? `the second ${noun(k)} the text names` : null) },
  kindOrderInv: { means: 'Its order of first mention among the entities of its kind, as 1 / place: 1 for the first film (or person …) named, ½ for the second.', reads: (v, k) => (v > 0 ? `the ${ordinal(place(v))} ${noun(k)} the text names` : 'not a KG entity') },
  personFirst: { means: 'Whether it is the first person or character the text names.', reads: flag('the first person or character the text names', null) },
  personSecond: { means: 'Whether it is the second person or character the text names.', reads: flag('the second person or character the text names', null) },
  personLater: { means: 'Whether it is the fourth or a later person or character the text names.', reads: flag('named after three other people or characters', null) },
  personCastDoc: { means: 'Whether it is a person or character in a text with a cast list ("（某某 饰）"), where names abound and matter less each.', reads: flag('a name in a text with a cast list', null) },
  cast: { means: 'The share of its mentions inside a cast list: after 主演/配音, in （…饰） brackets, or in a list separated by 、.', reads: (v) => (v > 0 ? `in a cast list in ${pct(v)} of its mentions` : 'never in a cast list') },
  titleMarks: { means: 'The share of its mentions written inside 《》, the marks of a title.', reads: (v) => (v >= 0.999 ? 'always written in 《》' : v > 0 ? `written in 《》 in ${pct(v)} of its mentions` : 'never written in 《》') },
  mainMovie: { means: "Whether it is the text's main film: the film the text mentions most often.", reads: flag("the text's main film (the one named most often)", null) },
  shortForm: { means: 'Whether it is part of a longer name or candidate of the same text (梦溪 inside 沈梦溪).', reads: flag('part of a longer name in the text', null) },
  fullForm: { means: 'Whether it is a full name that contains another candidate of the text (沈梦溪 containing 梦溪).', reads: flag('a full name whose short form the text also uses', null) },
  posName: { means: 'Whether the segmenter tags it as a personal name.', reads: posFlag('a personal name') },
  posPlace: { means: 'Whether the segmenter tags it as a place name.', reads: posFlag('a place name') },
  posOtherProper: { means: 'Whether the segmenter tags it as another proper noun (a title, an organisation).', reads: posFlag('a proper noun') },
  posNoun: { means: 'Whether the segmenter tags it as a common noun.', reads: posFlag('a common noun') },
  posVerb: { means: 'Whether the segmenter tags it as a verb.', reads: posFlag('a verb') },
  posAdj: { means: 'Whether the segmenter tags it as an adjective.', reads: posFlag('an adjective') },
  posUnknown: { means: 'Whether the segmenter did not know the word (tag x).', reads: flag('a word the segmenter did not know', null) },
  posLatin: { means: 'Whether it is written in Latin letters.', reads: flag('written in Latin letters', null) },
  phrase: { means: 'Whether it is a phrase of several words (传统文化) rather than one word.', reads: flag('a phrase of several words', 'a single word') },
  phrase3: { means: 'Whether it is a phrase of three words.', reads: flag('a phrase of three words', null) },
  phraseOneChar: { means: 'The number of one-character words in the phrase (焦 + 师傅).', reads: (v) => (v > 0 ? `a phrase with ${v} one-character part${v === 1 ? '' : 's'}` : null) },
  phraseJoined: { means: 'Whether it is a name joined by a name dot or a space (钱宁•塔图姆).', reads: flag('a name joined by a dot or a space', null) },
  phraseEntity: { means: 'Whether the phrase as a whole names a KG entity.', reads: flag('a phrase that names a KG entity', null) },
  phraseSequel: { means: 'Whether it is a title followed by a sequel number (阿凡达2).', reads: flag('a title with a sequel number', null) },
  partBest: { means: "For a phrase: its best word's word-graph score, as a share of the text's best.", reads: (v) => (v > 0 ? `a phrase whose best word scores ${pct(v)} of the best` : null) },
  partWorst: { means: "For a phrase: its weakest word's word-graph score, as a share of the text's best.", reads: (v) => (v > 0 ? `a phrase whose weakest word scores ${pct(v)} of the best` : null) },
  inPhraseShare: { means: 'The largest share of its mentions that fall inside one phrase candidate: a word that mostly occurs inside a phrase is rarely a keyword alone.', reads: (v) => (v > 0 ? `inside one phrase in ${pct(v)} of its mentions` : null) },
  mainFilmRelated: { means: "Whether the KG relates it to the text's main film (its director, an actor, a character).", reads: flag("related in the KG to the text's main film", "not related in the KG to the text's main film") },
  otherMovie: { means: "Whether it is a film other than the text's main film (one mentioned in passing).", reads: flag("a film other than the text's main one", null) },
  entityLinks: { means: 'How many other entities of the text the KG relates it to (log scale).', reads: (v) => (v > 0 ? `related in the KG to ${unlog(v)} other entit${unlog(v) === 1 ? 'y' : 'ies'} of the text` : null) },
  containerBase: { means: "The word-graph score of the best longer candidate that contains it (传统 inside 传统文化), as a share of the text's best; 0 when none.", reads: (v) => (v > 0 ? 'inside a longer candidate of the text' : 'not inside a longer candidate') },
  containerGap: { means: "That longer candidate's word-graph score minus its own: above 0 when the longer form ranks higher.", reads: (v) => (v > 0 ? 'inside a longer candidate that ranks higher' : v < 0 ? 'inside a longer candidate that ranks lower' : null) },
  containerShare: { means: "That longer candidate's number of mentions divided by its own.", reads: (v) => (v > 0 ? `inside a longer candidate that covers ${pct(Math.min(1, v))} of its mentions` : null) },
  containerEntity: { means: 'Whether that longer candidate names a KG entity.', reads: flag('inside a longer KG name', null) },
  containedBase: { means: "The word-graph score of the best shorter candidate it contains (沈梦溪 containing 梦溪), as a share of the text's best; 0 when none.", reads: (v) => (v > 0 ? 'containing a shorter candidate of the text' : null) },
  containedGap: { means: "That shorter candidate's word-graph score minus its own: above 0 when the shorter form ranks higher.", reads: (v) => (v > 0 ? 'containing a shorter candidate that ranks higher' : v < 0 ? 'containing a shorter candidate that ranks lower' : null) },
  containedShare: { means: "Its number of mentions divided by that shorter candidate's.", reads: (v) => (v > 0 ? `mentioned ${pct(Math.min(1, v))} as often as the shorter form it contains` : null) },
  containedEntity: { means: 'Whether it contains a shorter candidate that names a KG entity.', reads: flag('containing a KG name', null) },
  digit: { means: 'Whether it contains a digit (阿凡达2, 20年前).', reads: flag('containing a digit', null) },
  docLength: { means: 'The length of the whole text (log scale): long reviews and short synopses call for different keywords.', reads: (v) => `in a text of about ${unlog(v * 10)} characters` },
  countRank: { means: 'Its place among the candidates by number of mentions, as 1 / place: 1 for the most frequent.', reads: (v) => (place(v) === 1 ? 'the most frequent candidate' : `the ${ordinal(place(v))} most frequent candidate`) },
  firstRank: { means: 'Its place among the candidates by first mention, as 1 / place: 1 for the first candidate of the text.', reads: (v) => (place(v) === 1 ? "the text's first-named candidate" : `the ${ordinal(place(v))} candidate to be named`) },
  filmKnown: { means: "Whether the text comes with the film it is about (a Douban id or a film name given with the record) and the KG knows that film.", reads: flag("in a text whose film is known", null) },
  subjectFilm: { means: "Whether it names the film the text is about (its title or one of its other titles).", reads: flag('the film the text is about', null) },
  subjectPart: { means: "Whether it is a shortened form of the title of the film the text is about (阿凡达 for 阿凡达：水之道).", reads: flag("a short form of the text's film title", null) },
  subjectHop1: { means: "Whether the KG links it directly to the film the text is about: its director, a writer, an actor, a character, its genre.", reads: flag("directly linked in the KG to the text's film", null) },
  subjectHop2: { means: "Whether the KG links it to the text's film only through one other entity (another film of its director, a co-star's film).", reads: flag("linked in the KG to the text's film through one other entity", null) },
  subjectOtherFilm: { means: "Whether it is another film than the one the text is about (a film cited for comparison).", reads: flag('another film cited', null) },
  titleKnown: { means: 'Whether the text comes with a title (a review headline).', reads: flag('in a text with a title', null) },
  inTitle: { means: "Whether it occurs in the text's title.", reads: flag('in the title', 'not in the title') },
  corpusOn: { means: "Whether the corpus statistics apply to this text: a table of film texts is given, and the text's film is known or it names enough KG entities (out of domain they stay off).", reads: flag('in a film text the corpus statistics apply to', null) },
  corpusDf: { means: 'In how many other texts of the corpus it is a candidate (log scale, 1 = all): words of review talk (五星, 烂片) are in thousands.', reads: (v) => (v >= 0.6 ? 'found in a large share of the corpus texts' : v <= 0 ? 'found in no other text of the corpus' : v < 0.2 ? 'found in few other texts of the corpus' : null) },
  corpusSpread: { means: 'In the texts of how many different films of the corpus it is a candidate (log scale, 1 = all films): a character belongs to one film, a word of review talk appears in reviews of many films.', reads: (v) => (v >= 0.5 ? 'appears in texts about many films' : v > 0 && v < 0.15 ? 'appears in texts about few films' : null) },
  corpusKeyness: { means: "How much more often the corpus's other texts about the same film have it than all texts do (log of the ratio): the film's own vocabulary scores high.", reads: (v) => (v >= 1 ? "far more frequent in texts about this film than in others" : v <= -1 ? 'rarer in texts about this film than in others' : null) },
  corpusFilmDocs: { means: "How many other texts about the same film the corpus has (log scale): how much the keyness can be trusted.", reads: (v) => (v > 0 ? `the corpus has ${unlog(v * 10)} other text${unlog(v * 10) === 1 ? '' : 's'} about this film` : null) },
  positionRank: { means: 'Its PositionRank score (a word graph that favours words met early), as a share of the best.', reads: (v) => (v >= 0.999 ? 'the best PositionRank score' : `a PositionRank score ${pct(v)} of the best`) },
});

/** The other terms of the explain output (`--explain`, the viewer), in the order the viewer shows them. */
export const TERM_GLOSSARY: Readonly<Record<string, TermGloss>> = Object.freeze({
  score: { label: 'score', means: "The keyword's final score: keywords are sorted by it; only the order within one text means something." },
  sigmoid: { label: 'σ(logit)', means: "Under the learned re-ranker (the default preset), score = σ(logit) = 1 / (1 + e^−logit), a number between 0 and 1 that orders a text's keywords (not a probability)." },
  logit: { label: 'logit', means: "The re-ranker's raw score: bias plus the contributions of all features; higher ranks first." },
  bias: { label: 'bias', means: "The re-ranker's starting point, the same for every word: the logit before any feature is looked at." },
  contribution: { label: 'contribution', means: "How much one feature moved this word's logit up (+) or down (−)." },
  value: { label: 'value', means: "The feature's raw value for this word in this text (see the feature's own line)." },
  rank: { label: 'graph score', means: 'The TextRank or PositionRank score in the word graph: a word scores high when many well-scored words link to it. The scores of a text average 1.' },
  idf: { label: 'IDF', means: 'Inverse document frequency from jieba: about 2 for everyday words, up to 14 for rare ones; the graph score is multiplied by it under the IDF prior.' },
  cooc: { label: 'co-occurrence', means: "The summed weights of the word's co-occurrence edges: how often other candidate words appear within a few words of it." },
  kg: { label: 'KG', means: 'The summed weights of its KG edges: links to other words of the text that the knowledge graph relates to it (a film and its director, an actor and a role). "KG 16" beside a neighbour is the weight of that one link.' },
  sem: { label: 'semantic', means: 'The summed Jaccard similarities of its KG neighbourhood with those of other words: two films sharing cast score high.' },
  position: { label: 'position', means: "PositionRank only: the share of the random surfer's restarts that land on the word, larger for words met early." },
  weight: { label: 'weight', means: 'The weight of a word-graph edge: co-occurrence + KG + semantic parts, each scaled by its option.' },
  phrase: { label: 'phrase', means: 'A keyword of several words (传统文化): its parts with their scores and how often the whole phrase occurs.' },
  neighbours: { label: 'neighbours', means: 'The words linked to it in the word graph, strongest first, with the co-occurrence, KG and semantic parts of each link.' },
});

/**
 * Features that say much the same thing: the reading sentence reads only the largest contribution of
 * each group (not "the first person the text names" and "the first person or character the text names").
 */
const READ_ONCE: readonly (readonly RerankFeature[])[] = [
  ['base', 'baseRank', 'logBase', 'top3', 'top10', 'top30', 'textrank'],
  ['kindFirst', 'kindSecond', 'kindOrderInv', 'personFirst', 'personSecond', 'personLater'],
  ['logCount', 'countRank'],
  ['firstPos', 'firstRank'],
  ['person', 'movie', 'character', 'genre'],
  ['containerBase', 'containerGap', 'containerShare', 'containerEntity', 'shortForm'],
  ['containedBase', 'containedGap', 'containedShare', 'containedEntity', 'fullForm'],
  ['posName', 'posPlace', 'posOtherProper', 'posNoun', 'posVerb', 'posAdj', 'posUnknown', 'posLatin'],
];
const GROUP_OF = new Map<string, number>(READ_ONCE.flatMap((g, i) => g.map((f): [string, number] => [f, i])));

/** How many positive contributions the reading sentence names, and how many negative ones at most. */
const READ_UP = 3;
const READ_DOWN = 2;

/** "a", "a and b", "a, b and c". */
function listing(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Clauses for the largest contributions of one sign, unique, at most `n`. */
function readings(features: readonly { feature: string; value: number; contribution: number }[], kind: string | undefined, sign: 1 | -1, n: number, floor: number): string[] {
  const out: string[] = [];
  const groups = new Set<number>();
  const sorted = features.filter((f) => f.contribution * sign > floor).sort((a, b) => (b.contribution - a.contribution) * sign);
  for (const f of sorted) {
    const gloss = (FEATURE_GLOSSARY as Record<string, FeatureGloss | undefined>)[f.feature];
    const clause = gloss?.reads(f.value, kind);
    const group = GROUP_OF.get(f.feature);
    if (!clause || out.includes(clause) || (group !== undefined && groups.has(group))) continue;
    out.push(clause);
    if (group !== undefined) groups.add(group);
    if (out.length === n) break;
  }
  return out;
}

/**
 * The sentence that reads a keyword's explanation: under the re-ranker its largest contributions up and
 * down ("ranked first: always written in 《》, the first film the text names and mentioned across 36% of
 * the text; held back: …"), else the word-graph parts that lifted it.
 * @param rank the keyword's place in the output (1-based)
 */
export function explainSentence(keyword: { word: string; kind?: string; explain?: KeywordExplain }, rank: number): string {
  const e = keyword.explain;
  const head = `ranked ${ordinal(rank)}`;
  if (!e) return head;
  if (e.rerank) {
    const largest = Math.max(0, ...e.rerank.features.map((f) => Math.abs(f.contribution)));
    const up = readings(e.rerank.features, keyword.kind, 1, READ_UP, 0);
    // a push down is named only when it weighs at least half the largest contribution
    const down = readings(e.rerank.features, keyword.kind, -1, READ_DOWN, largest / 2);
    return `${head}: ${up.length ? listing(up) : 'no feature lifted it'}${down.length ? `; held back: ${listing(down)}` : ''}`;
  }
  const parts: string[] = [];
  const linked = (key: 'kg' | 'cooc' | 'sem'): string => listing(e.neighbours.filter((n) => n[key] > 0).slice(0, 3).map((n) => n.word)) || 'other words of the text';
  if (e.phrase) parts.push(`the phrase ${e.phrase.words.map((w) => w.word).join(' + ')}, ${times(e.phrase.occurrences)} in the text`);
  if (e.kg > 0) parts.push(`linked in the KG to ${linked('kg')}`);
  if (e.cooc > 0) parts.push(`written near ${linked('cooc')}`);
  if (e.sem > 0 && e.kg === 0) parts.push(`sharing KG neighbours with ${linked('sem')}`);
  if (e.idf !== undefined) parts.push(FEATURE_GLOSSARY.idf.reads(e.idf / 10, keyword.kind)!);
  return `${head} by the word graph${parts.length ? `: ${listing(parts)}` : ''}`;
}

/** The glossary as the README's Markdown table (test/pipeline/glossary.test.ts keeps the README equal to it). */
export function glossaryMarkdown(): string {
  const rows = ['| term | in plain words |', '|---|---|'];
  for (const t of Object.values(TERM_GLOSSARY)) rows.push(`| ${t.label} | ${t.means} |`);
  for (const [name, g] of Object.entries(FEATURE_GLOSSARY)) rows.push(`| \`${name}\` | ${g.means} |`);
  return rows.join('\n');
}
