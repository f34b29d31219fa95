/**
 * Presets: named sets of option overrides on DEFAULT_OPTIONS (data, not code). An experiment is a
 * preset plus overrides (options.ts `resolveOptions`).
 *
 * The paper's systems (王芳 等 2022, §3.3 Fig. 5 and the §3.4 ablation Fig. 6; spec §1.1, §6):
 *
 * | preset | lexicon (W) | KG edges (G) | semantic sm (R) | ranking |
 * |---|---|---|---|---|
 * | textrank | off | off | off | eq. 5 |
 * | textrank+w | on | off | off | eq. 5 |
 * | textrank+w+g | on | on | off | eq. 5 on eq. 3 |
 * | textrank+w+g+r (= textrank+mkg) | on | on | on | eq. 9 |
 * | positionrank | off | off | off | eq. 6/7 |
 * | positionrank+mkg | on | on | on | eq. 10 |
 *
 * Beyond the paper, the preset `filmkw` (the default until `filmkw-rerank` replaced it) is the full
 * model `textrank+w+g+r` plus two changes the paper rules out or does not have — the IDF prior
 * (`prior.idf: 'multiply'`, idf.ts) and, with it, no POS filter (`candidates.posFilter: 'none'`; the
 * paper's rule is 'containsNV': once generic words are weighted down by IDF the POS rule only loses
 * keywords tagged outside n/v, such as HMM-found names tagged x and CSL terms tagged b/a) — plus the
 * keyphrase stage (`phrases.enabled`, phrases.ts: 传统文化, 时间旅行 as phrases of adjacent tokens; off
 * in every other preset).
 * Its figures and the choice are in options.ts's header and eval/results/film-dev/ANALYSIS.md.
 *
 * `filmkw-rerank` (issue 13) = `filmkw` + compound phrase candidates (`phrases.parts: 'content'`, up to
 * 3 tokens, seen once) ordered by the learned re-ranker (`rerank.enabled`, rerank.ts; model
 * models/rerank.json trained on film-train + film-train-b), every K up on film-dev and csl-dev
 * (ANALYSIS.md §7, §8, §10): the best measured system, the default of the CLI and the library
 * (options.ts `DEFAULT_PRESET`) and the alias `best`. Since issue 24 the re-ranker reads the document
 * context (film, title) and the corpus statistics, scores a pool of 100, and the graph runs without
 * semantic similarity and with a shorter power iteration (ANALYSIS.md §10); it never outputs a cast-list
 * verb (`output.castVerbs`, a selection rule the paper presets do not have; ANALYSIS.md §9).
 *
 * Parity presets reproduce two standard implementations on the same tokens (spec §4.1, §4.3):
 * - `jieba-textrank`: `jieba.analyse.textrank` — allowPOS (ns, n, vn, v), length ≥ 2, jieba's 32
 *   English stop words, window over all tokens j − i < 5, self-pairs counted twice, 10 in-place sweeps
 *   in code-point order from 1/N, min-max/10 scaling, words without edges are not nodes.
 * - `cppjieba-textrank`: cppjieba/nodejieba `textRankExtract` — no POS filter, ≥ 2 code points,
 *   numbers kept, cppjieba's stop_words.utf8 (case-sensitive), window over kept words (the next 4), self-pairs twice, 10 sweeps,
 *   min-max/10 including kept words without edges at weight 0.
 */
import type { OptionOverrides } from './option-types.js';

export interface Preset {
  /** Canonical name (lowercase). */
  readonly name: string;
  /** Other accepted names. */
  readonly aliases: readonly string[];
  readonly description: string;
  /** Overrides on DEFAULT_OPTIONS. */
  readonly overrides: OptionOverrides;
  /** Whether the preset needs a KG (lexicon, KG edges or semantic similarity). */
  readonly needsKg: boolean;
}

const W: OptionOverrides = { lexicon: { useDomainLexicon: true } };
const WG: OptionOverrides = { ...W, graph: { kgEdges: true } };
const WGR: OptionOverrides = { ...WG, semantic: { enabled: true } };
const PARITY_RANK = { iterationMode: 'fixed10GaussSeidel', tieBreak: 'firstOccurrence' } as const;

export const PRESETS: readonly Preset[] = Object.freeze([
  { name: 'textrank', aliases: [], description: 'TextRank baseline: co-occurrence graph (eq. 1), weighted TextRank (eq. 5), no lexicon', overrides: {}, needsKg: false },
  { name: 'textrank+w', aliases: [], description: 'TextRank with the KG lexicon as user dictionary (ablation W)', overrides: W, needsKg: true },
  { name: 'textrank+w+g', aliases: [], description: 'lexicon + KG edges between related candidates (eqs. 2/3)', overrides: WG, needsKg: true },
  {
    name: 'textrank+w+g+r',
    aliases: ['textrank+mkg'],
    description: 'lexicon + KG edges + KG-neighbour Jaccard similarity (eqs. 8/9): the paper\'s TextRank+MKG',
    overrides: WGR,
    needsKg: true,
  },
  { name: 'positionrank', aliases: [], description: 'PositionRank baseline: position-biased restart (eqs. 6/7), no lexicon', overrides: { rank: { algorithm: 'positionrank' } }, needsKg: false },
  {
    name: 'positionrank+mkg',
    aliases: [],
    description: 'PositionRank with lexicon, KG edges and semantic similarity (eq. 10)',
    overrides: { ...WGR, rank: { algorithm: 'positionrank' } },
    needsKg: true,
  },
  {
    name: 'jieba-textrank',
    aliases: [],
    description: 'parity: jieba.analyse.textrank (allowPOS ns/n/vn/v, span 5 over all tokens, 10 Gauss-Seidel sweeps, min-max/10)',
    overrides: {
      candidates: { posFilter: ['ns', 'n', 'vn', 'v'], stopwords: 'jiebaEnglish', minLength: 2 },
      graph: { window: 5, windowOver: 'allTokens', crossSentence: true, selfLoops: 'keepDouble' },
      rank: PARITY_RANK,
      output: { scoreScale: 'minMax10', isolated: 'drop' },
    },
    needsKg: false,
  },
  {
    name: 'cppjieba-textrank',
    aliases: ['nodejieba-textrank'],
    description: 'parity: cppjieba/nodejieba textRankExtract (no POS filter, next 4 kept words, 10 Gauss-Seidel sweeps, min-max/10)',
    overrides: {
      candidates: { posFilter: 'none', stopwords: 'cppjieba', minLength: 2, numbers: 'keep', stopwordCase: 'sensitive' },
      graph: { window: 5, windowOver: 'candidates', crossSentence: true, selfLoops: 'keepDouble' },
      rank: PARITY_RANK,
      output: { scoreScale: 'minMax10', isolated: 'zero' },
    },
    needsKg: false,
  },
  {
    name: 'filmkw',
    aliases: [],
    description: 'previous default: textrank+w+g+r with final scores × IDF (nodejieba idf.utf8), no POS filter and two-token keyphrases',
    overrides: { ...WGR, candidates: { posFilter: 'none' }, prior: { idf: 'multiply' }, phrases: { enabled: true } },
    needsKg: true,
  },
  {
    name: 'filmkw-rerank',
    aliases: ['best'],
    description:
      'filmkw (without semantic similarity) with compound phrase candidates (content-word parts, up to 3 tokens, seen once) ordered by the learned re-ranker (models/rerank.json), which reads the document context and corpus statistics; cast-list verbs never output',
    overrides: {
      ...WG,
      // issue 24 (ANALYSIS.md §10): no semantic similarity (R) and a shorter power iteration (nothing
      // measurable lost under the re-ranker, faster), a pool of 100 for the model; lexicon.script stays
      // asWritten (simplified was tried with its own model and not chosen)
      semantic: { enabled: false },
      rank: { tol: 0.01, maxIter: 10 },
      candidates: { posFilter: 'none' },
      prior: { idf: 'multiply' },
      phrases: { enabled: true, parts: 'content', maxTokens: 3, minCount: 1 },
      rerank: { enabled: true, pool: 100 },
      output: { castVerbs: 'drop' },
    },
    needsKg: true,
  },
] satisfies Preset[]);

/** Canonical preset names. */
export function listPresets(): string[] {
  return PRESETS.map((p) => p.name);
}

/** Find a preset by name or alias, case-insensitively ('TextRank+MKG' works); undefined if none. */
export function findPreset(name: string): Preset | undefined {
  const key = name.trim().toLowerCase();
  return PRESETS.find((p) => p.name === key || p.aliases.includes(key));
}
