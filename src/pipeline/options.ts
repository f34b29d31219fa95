/**
 * The full option set of the extraction pipeline (spec §1.4 and §6), one frozen default object, and the
 * resolver that turns a preset plus overrides into validated, frozen options — once, at the entry
 * point. Stages receive their group and never restate a default.
 *
 * Every open choice of the paper (王芳, 刘嘉恩, 李晶 2022) is an option here. Presets (presets.ts) are
 * data: a preset is a set of overrides on {@link DEFAULT_OPTIONS}, and an experiment is a preset plus
 * further overrides.
 *
 * How the defaults were chosen. Where the paper states a value, the default is the paper's value (also
 * when the dev set prefers another: the better value then lives in the preset `filmkw`, not here). Where
 * the paper is silent, the default was picked by measuring on the annotated dev set film-dev (180 Douban
 * texts, 5 gold keywords each) with the merged Douban KG, one option at a time around the full model
 * `textrank+w+g+r`, and kept only if csl-dev (1,000 CSL abstracts, out of domain) does not disagree.
 * Figures: macro F1@5 change, paired 95% bootstrap interval (eval/results/film-dev/ANALYSIS.md §3;
 * `npm run experiments` regenerates the sweep tables):
 *
 * - Silent, measured, changed: `graph.kgEdgeWeight` β = 16 (the spec's first reading was β = 1, under
 *   which a KG edge adds 1 to a co-occurrence count and step G changes 8 documents). 16 vs 1:
 *   +0.058 [+0.037, +0.080] on film-dev, ±0 on csl-dev (no film entity matches there); sweep 2 −0.049,
 *   4 −0.039, 8 −0.024, 32 +0.004, 64 +0.007 against 16, and 16 is the best value around `filmkw`.
 *   Larger β lets single-mention actors and KG-only neighbours displace gold words that are not entities.
 * - Silent, measured, kept: `graph.window` 5 (jieba's span; 3 vs 5 +0.008 [−0.006, +0.021] on film-dev,
 *   +0.002 [−0.001, +0.005] on csl-dev: noise; around `filmkw` 4 vs 5 +0.003 [−0.003, +0.011] and
 *   −0.002 [−0.004, −0.000]); `graph.windowOver` 'candidates' (allTokens −0.017); `graph.combine` 'sum'
 *   (max −0.001, coOnlyWeightKgBinary −0.039); `graph.selfLoops` 'drop'; `semantic.smCombine` 'add'
 *   (mul −0.106, others ±0.002); `semantic.smScope` 'existingEdges' (allPairs +0.001);
 *   `candidates.stopwords` 'filmkw' (cppjieba −0.038, none −0.039); `titles.titlePolicy` 'contextual'
 *   (always −0.003, never −0.002); `rank.tol`/`maxIter` 1e-4/100 (the TextRank paper's threshold);
 *   `candidates.minLength` 2 and `english` 'keep' (candidates.ts header).
 * - Stated by the paper, kept: `candidates.posFilter` 'containsNV' (tags containing n or v), although
 *   'containsNVorX' (also HMM-found unknown words) gives +0.031 [+0.016, +0.048] on film-dev and +0.003
 *   [+0.000, +0.006] on csl-dev, and 'none' +0.017 [−0.001, +0.036] and +0.009 [+0.005, +0.013];
 *   `rank.damping` 0.85 (0.5–0.95: −0.011…0); `semantic.jaccardNeighbours` 'kg' (KG co-neighbours);
 *   relation types not distinguished (`kgEdgeWeight` is not 'relationCount', −0.053).
 * - Beyond the paper, off by default: `prior.idf` 'off'; 'multiply' (final score × nodejieba IDF, idf.ts)
 *   gives +0.048 [+0.032, +0.064] on film-dev and +0.016 [+0.011, +0.021] on csl-dev.
 * - Beyond the paper, off by default: `phrases.enabled` false (the paper outputs single tokens, and 218
 *   of film-dev's 900 gold keywords are not tokens of our segmentation: 传统文化, 匠人精神, 时间旅行).
 *   The keyphrase stage (phrases.ts: two-token sequences of adjacent candidates occurring ≥ 2 times,
 *   scored by the occurrence-share sum of their words' final scores, no overlapping variants) gives,
 *   on top of the rest of `filmkw`, +0.0133 [+0.0044, +0.0244] on film-dev (13 better / 3 worse
 *   documents; F1@1..5 0.2315/0.3778/0.4403/0.4642/0.4644 → 0.2407/0.3857/0.4444/0.4753/0.4778) and
 *   +0.0657 [+0.0535, +0.0777] on csl-dev (357 / 126; 0.0821/0.1183/0.1348/0.1424/0.1455 →
 *   0.1297/0.1816/0.2077/0.2117/0.2112). The defaults of the group and their sweep are in phrases.ts's
 *   header: where film-dev cannot tell two values apart, csl-dev chose (`maxTokens` 2, `pos` 'any');
 *   `minCount` 1 loses −0.027 [−0.046, −0.007] on film-dev; `score` 'sum' +0.004 [−0.014, +0.023].
 *
 * The preset `filmkw` = the full model + `prior.idf: 'multiply'` + `candidates.posFilter: 'none'` (with
 * the IDF prior, 'none' vs 'containsNVorX' is −0.001 [−0.012, +0.010] on film-dev and +0.008 [+0.005,
 * +0.012] on csl-dev) + `phrases.enabled: true` is the best measured system and the default of the CLI
 * and the library ({@link DEFAULT_PRESET}): film-dev 0.4778 vs 0.3600 for the best nodejieba baseline
 * (TF-IDF with the KG user dictionary), +0.118 [+0.093, +0.144], 88 b / 13 w; csl-dev 0.2112 vs 0.1416
 * for nodejieba TF-IDF, +0.070 [+0.057, +0.082], 374 b / 131 w (without the phrase stage: 0.4644,
 * +0.104 [+0.081, +0.130]; 0.1455, +0.0039 [+0.0005, +0.0074]). The paper's full model with these
 * defaults: 0.3833 and 0.1202.
 *
 * Override keys (untyped input from CLI flags and experiment files) are validated strictly: `group.key`
 * (`graph.window`), a bare key when it is unique across groups (`window`), or a group with an object
 * value (`{graph: {window: 3}}`). An unknown key or a bad value is a FilmkwError('USAGE') that lists
 * the valid keys or values.
 */
import { ENTITY_KINDS, type EntityKind } from '../kg/model.js';
import { usageError } from '../errors.js';
import type { GraphOptions, SemanticOptions } from './graph.js';
import type { KgMatchOptions } from './kg-match.js';
import type { RankOptions } from './rank.js';
import type { TitlePolicyOptions } from '../lexicon/title-policy.js';
import type { PriorOptions } from './idf.js';
import { findPreset, listPresets } from './presets.js';
import { DEFAULT_CANDIDATE_OPTIONS, POS_FILTERS, STOPWORD_SETS, type CandidateOptions } from './candidates.js';
import { DEFAULT_PHRASE_OPTIONS, PHRASE_DEDUP, PHRASE_ENTITY_WORDS, PHRASE_POS, PHRASE_SCORES, PHRASE_SPANS, type PhraseOptions } from './phrases.js';


export type { GraphOptions, SemanticOptions, KgMatchOptions, RankOptions, TitlePolicyOptions, CandidateOptions, PriorOptions, PhraseOptions };

/** Ablation "W" (group `lexicon`). */
export interface LexiconOptions {
  /**
   * Segment with the KG's entity names as a user dictionary (the paper's "W"), exported once when the
   * extractor is created.
   * @default false
   */
  useDomainLexicon: boolean;
}

/** What the extractor returns (group `output`). */
export interface OutputOptions {
  /**
   * Number of keywords returned (the paper evaluates K = 1..5); `extract(text, {topK})` overrides it.
   * @default 5
   */
  topK: number;
  /**
   * Score scale of the output: the raw S(v_i), jieba/cppjieba's min-max variant
   * (w − min/10)/(max − min/10) (top word 1), or scores divided by their sum.
   * @default 'raw'
   */
  scoreScale: 'raw' | 'minMax10' | 'sum';
  /**
   * Candidates without any edge: keep them with their restart score (1−d)·b_i, drop them (jieba: they
   * are not graph nodes), or keep them with score 0 (cppjieba: in its word map with weight 0, which
   * also enters the min-max scaling).
   * @default 'keep'
   */
  isolated: 'keep' | 'drop' | 'zero';
  /**
   * Report `kind` and `entityId` for keywords that denote a KG entity (whenever a KG is given; does
   * not change scores).
   * @default true
   */
  annotateEntities: boolean;
}

/** All pipeline options, grouped by stage. */
export interface PipelineOptions {
  lexicon: LexiconOptions;
  candidates: CandidateOptions;
  kgMatch: KgMatchOptions;
  titles: TitlePolicyOptions;
  graph: GraphOptions;
  semantic: SemanticOptions;
  rank: RankOptions;
  prior: PriorOptions;
  phrases: PhraseOptions;
  output: OutputOptions;
}

/** Resolved options: frozen, plus the name of the preset they came from. */
export type ResolvedOptions = Readonly<PipelineOptions> & { readonly preset: string };

/** Recursively partial options (preset data, typed overrides). */
export type OptionOverrides = { [G in keyof PipelineOptions]?: Partial<PipelineOptions[G]> };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** The defaults (spec §1.4 recommendations, β measured; see the module header), frozen. */
export const DEFAULT_OPTIONS: Readonly<PipelineOptions> = deepFreeze({
  lexicon: { useDomainLexicon: false },
  candidates: { ...DEFAULT_CANDIDATE_OPTIONS, posFilter: DEFAULT_CANDIDATE_OPTIONS.posFilter as CandidateOptions['posFilter'] },
  kgMatch: { match: 'exactOrAlias', mergeAliases: true, ambiguity: 'union', kinds: [...ENTITY_KINDS] },
  titles: { titlePolicy: 'contextual', titleKinds: ['Movie', 'Character'], commonMinFreq: 100, commonMaxLength: 2, commonPhraseMaxLength: 3 },
  graph: {
    window: 5,
    windowOver: 'candidates',
    crossSentence: true,
    selfLoops: 'drop',
    kgEdges: false,
    // β: the paper is silent; measured on film-dev (see the module header)
    kgEdgeWeight: 16,
    combine: 'sum',
    lambda: 1,
  },
  semantic: {
    enabled: false,
    jaccardNeighbours: 'kg',
    jaccardExcludeEndpoints: false,
    jaccardEmpty: 0,
    smScope: 'existingEdges',
    smCombine: 'add',
    mu: 0.5,
    smInDenominator: true,
  },
  rank: {
    algorithm: 'textrank',
    damping: 0.85,
    tol: 1e-4,
    maxIter: 100,
    iterationMode: 'converge',
    positionBase: 'allTokens',
    tieBreak: 'firstOccurrence',
  },
  prior: { idf: 'off' },
  phrases: { ...DEFAULT_PHRASE_OPTIONS },
  output: { topK: 5, scoreScale: 'raw', isolated: 'keep', annotateEntities: true },
} satisfies PipelineOptions);

// ---------------------------------------------------------------------------------------------------
// Schema: how each option is validated and described.

/** Validation rule of one option. */
export type OptionRule =
  | { type: 'enum'; values: readonly string[] }
  | { type: 'boolean' }
  | { type: 'number'; min?: number; max?: number; integer?: boolean; exclusiveMin?: boolean }
  | { type: 'enumOrNumber'; values: readonly string[]; min: number; exclusiveMin?: boolean }
  | { type: 'subset'; values: readonly string[] }
  | { type: 'enumOrStrings'; values: readonly string[]; pattern: RegExp; describe: string }
  | { type: 'strings'; pattern: RegExp; describe: string };

const SCHEMA: { [G in keyof PipelineOptions]: Record<keyof PipelineOptions[G], OptionRule> } = {
  lexicon: { useDomainLexicon: { type: 'boolean' } },
  candidates: {
    posFilter: { type: 'enumOrStrings', values: POS_FILTERS, pattern: /^[A-Za-z]{1,8}$/u, describe: 'POS tags' },
    stopwords: { type: 'enum', values: STOPWORD_SETS },
    minLength: { type: 'number', min: 1, integer: true },
    english: { type: 'enum', values: ['keep', 'drop'] },
    numbers: { type: 'enum', values: ['drop', 'keep'] },
    stopwordCase: { type: 'enum', values: ['insensitive', 'sensitive'] },
  },
  kgMatch: {
    match: { type: 'enum', values: ['exact', 'exactOrAlias'] },
    mergeAliases: { type: 'boolean' },
    ambiguity: { type: 'enum', values: ['union', 'contextual'] },
    kinds: { type: 'subset', values: ENTITY_KINDS },
  },
  titles: {
    titlePolicy: { type: 'enum', values: ['contextual', 'always', 'never'] },
    titleKinds: { type: 'subset', values: ENTITY_KINDS },
    commonMinFreq: { type: 'number', min: 0 },
    commonMaxLength: { type: 'number', min: 0, integer: true },
    commonPhraseMaxLength: { type: 'number', min: 0, integer: true },
  },
  graph: {
    window: { type: 'number', min: 2, integer: true },
    windowOver: { type: 'enum', values: ['candidates', 'allTokens'] },
    crossSentence: { type: 'boolean' },
    selfLoops: { type: 'enum', values: ['drop', 'keep', 'keepDouble'] },
    kgEdges: { type: 'boolean' },
    kgEdgeWeight: { type: 'enumOrNumber', values: ['binary', 'relationCount'], min: 0, exclusiveMin: true },
    combine: { type: 'enum', values: ['sum', 'max', 'coOnlyWeightKgBinary'] },
    lambda: { type: 'number', min: 0 },
  },
  semantic: {
    enabled: { type: 'boolean' },
    jaccardNeighbours: { type: 'enum', values: ['kg', 'kgInDoc', 'docGraph'] },
    jaccardExcludeEndpoints: { type: 'boolean' },
    jaccardEmpty: { type: 'number', min: 0, max: 1 },
    smScope: { type: 'enum', values: ['existingEdges', 'allPairs'] },
    smCombine: { type: 'enum', values: ['add', 'mul', 'mulOnePlus', 'linear'] },
    mu: { type: 'number', min: 0, max: 1 },
    smInDenominator: { type: 'boolean' },
  },
  rank: {
    algorithm: { type: 'enum', values: ['textrank', 'positionrank'] },
    damping: { type: 'number', min: 0, max: 1, exclusiveMin: true },
    tol: { type: 'number', min: 0, exclusiveMin: true },
    maxIter: { type: 'number', min: 1, integer: true },
    iterationMode: { type: 'enum', values: ['converge', 'fixed10GaussSeidel'] },
    positionBase: { type: 'enum', values: ['allTokens', 'candidates', 'chars'] },
    tieBreak: { type: 'enum', values: ['firstOccurrence', 'lexicographic'] },
  },
  prior: {
    idf: { type: 'enum', values: ['off', 'multiply'] },
  },
  phrases: {
    enabled: { type: 'boolean' },
    spans: { type: 'enum', values: PHRASE_SPANS },
    pos: { type: 'enum', values: PHRASE_POS },
    entityWords: { type: 'enum', values: PHRASE_ENTITY_WORDS },
    maxTokens: { type: 'number', min: 2, integer: true },
    minCount: { type: 'number', min: 1, integer: true },
    score: { type: 'enum', values: PHRASE_SCORES },
    dedup: { type: 'enum', values: PHRASE_DEDUP },
  },
  output: {
    topK: { type: 'number', min: 1, integer: true },
    scoreScale: { type: 'enum', values: ['raw', 'minMax10', 'sum'] },
    isolated: { type: 'enum', values: ['keep', 'drop', 'zero'] },
    annotateEntities: { type: 'boolean' },
  },
};

const GROUPS = Object.keys(SCHEMA) as (keyof PipelineOptions)[];

/** Every option as `group.key`, in schema order. */
export function optionKeys(): string[] {
  return GROUPS.flatMap((g) => Object.keys(SCHEMA[g]).map((k) => `${g}.${k}`));
}

/** Human description of the values an option accepts (for errors and `--help`). */
export function describeRule(rule: OptionRule): string {
  switch (rule.type) {
    case 'enum':
      return rule.values.map((v) => `'${v}'`).join(' | ');
    case 'boolean':
      return 'true | false';
    case 'number': {
      const parts: string[] = [rule.integer ? 'an integer' : 'a number'];
      if (rule.min !== undefined) parts.push(`${rule.exclusiveMin ? '>' : '≥'} ${rule.min}`);
      if (rule.max !== undefined) parts.push(`≤ ${rule.max}`);
      return parts.join(' ');
    }
    case 'enumOrNumber':
      return `${rule.values.map((v) => `'${v}'`).join(' | ')} | a number ${rule.exclusiveMin ? '>' : '≥'} ${rule.min}`;
    case 'subset':
      return `a list of ${rule.values.join(', ')}`;
    case 'enumOrStrings':
      return `${rule.values.map((v) => `'${v}'`).join(' | ')} | a list of ${rule.describe}`;
    case 'strings':
      return `a list of ${rule.describe}`;
  }
}

/** The rule of `group.key`, or undefined. */
export function ruleOf(path: string): OptionRule | undefined {
  const [g, k] = path.split('.');
  const group = (SCHEMA as Record<string, Record<string, OptionRule>>)[g];
  return group?.[k];
}

/** Check one value; returns an error message or null. */
function check(rule: OptionRule, value: unknown): string | null {
  const bad = `expected ${describeRule(rule)}`;
  switch (rule.type) {
    case 'enum':
      return typeof value === 'string' && rule.values.includes(value) ? null : bad;
    case 'boolean':
      return typeof value === 'boolean' ? null : bad;
    case 'number':
    case 'enumOrNumber': {
      if (rule.type === 'enumOrNumber' && typeof value === 'string') return rule.values.includes(value) ? null : bad;
      if (typeof value !== 'number' || !Number.isFinite(value)) return bad;
      if (rule.type === 'number' && rule.integer && !Number.isInteger(value)) return bad;
      if (rule.min !== undefined && (rule.exclusiveMin ? value <= rule.min : value < rule.min)) return bad;
      if (rule.type === 'number' && rule.max !== undefined && value > rule.max) return bad;
      return null;
    }
    case 'subset':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && rule.values.includes(v)) && new Set(value).size === value.length ? null : bad;
    case 'enumOrStrings':
      if (typeof value === 'string') return rule.values.includes(value) ? null : bad;
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && rule.pattern.test(v)) ? null : bad;
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && rule.pattern.test(v)) ? null : bad;
  }
}

/** Where a bare key lives (only when unique across groups). */
function groupsOfKey(key: string): (keyof PipelineOptions)[] {
  return GROUPS.filter((g) => Object.prototype.hasOwnProperty.call(SCHEMA[g], key));
}

/**
 * Flatten an override object into `group.key → value`, validating the keys. Accepts `group.key`,
 * unique bare keys and `{group: {key: value}}`.
 * @param source names the input in errors (e.g. `overrides`, `preset textrank`)
 */
export function normaliseOverrides(overrides: Record<string, unknown> | OptionOverrides | undefined, source = 'overrides'): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (overrides === undefined || overrides === null) return out;
  if (typeof overrides !== 'object' || Array.isArray(overrides)) throw usageError(`options: ${source} must be an object of option: value`);
  const valid = () => `valid options: ${optionKeys().join(', ')}`;
  for (const [key, value] of Object.entries(overrides)) {
    if ((GROUPS as string[]).includes(key)) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw usageError(`options: ${source}: "${key}" is an option group and takes an object, e.g. {"${key}": {"${Object.keys(SCHEMA[key as keyof PipelineOptions])[0]}": ...}}`);
      }
      for (const [inner, v] of Object.entries(value)) {
        if (!Object.prototype.hasOwnProperty.call(SCHEMA[key as keyof PipelineOptions], inner)) {
          throw usageError(`options: ${source}: unknown option "${key}.${inner}"; valid options in ${key}: ${Object.keys(SCHEMA[key as keyof PipelineOptions]).join(', ')}`);
        }
        out.set(`${key}.${inner}`, v);
      }
      continue;
    }
    const dot = key.indexOf('.');
    if (dot >= 0) {
      if (!ruleOf(key) || key.indexOf('.', dot + 1) >= 0) throw usageError(`options: ${source}: unknown option "${key}"; ${valid()}`);
      out.set(key, value);
      continue;
    }
    const groups = groupsOfKey(key);
    if (groups.length === 0) throw usageError(`options: ${source}: unknown option "${key}"; ${valid()}`);
    if (groups.length > 1) throw usageError(`options: ${source}: "${key}" is ambiguous; use one of ${groups.map((g) => `${g}.${key}`).join(', ')}`);
    out.set(`${groups[0]}.${key}`, value);
  }
  return out;
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Apply validated `group.key → value` pairs to a mutable options object. */
function applyFlat(target: PipelineOptions, flat: Map<string, unknown>, source: string): void {
  for (const [path, value] of flat) {
    const rule = ruleOf(path)!;
    const problem = check(rule, value);
    if (problem) throw usageError(`options: ${source}: bad value for ${path}: ${JSON.stringify(value)} (${problem})`);
    const [g, k] = path.split('.');
    (target[g as keyof PipelineOptions] as unknown as Record<string, unknown>)[k] = Array.isArray(value) ? [...value] : value;
  }
}

/**
 * Apply overrides to a base option set (validated; the base is not modified). Used by presets.ts and
 * by {@link resolveOptions}.
 */
export function applyOverrides(base: Readonly<PipelineOptions>, overrides: Record<string, unknown> | OptionOverrides | undefined, source = 'overrides'): PipelineOptions {
  const out = clone(base) as PipelineOptions;
  applyFlat(out, normaliseOverrides(overrides, source), source);
  return out;
}

/** Freeze options with their preset name. */
export function freezeOptions(options: PipelineOptions, preset: string): ResolvedOptions {
  return deepFreeze({ preset, ...clone(options) });
}

/**
 * Default preset of the CLI (`filmkw tag`) and the library: `filmkw`, the best measured system (module
 * header); the paper's full model is `textrank+w+g+r`.
 */
export const DEFAULT_PRESET = 'filmkw';

/**
 * Resolve a preset (name or alias, case-insensitive; default {@link DEFAULT_PRESET}) plus overrides
 * into validated, frozen options. Unknown preset, unknown key or bad value: FilmkwError('USAGE') that
 * lists the valid presets, keys or values.
 */
export function resolveOptions(preset: string = DEFAULT_PRESET, overrides?: Record<string, unknown> | OptionOverrides): ResolvedOptions {
  const found = findPreset(preset);
  if (!found) throw usageError(`options: unknown preset "${preset}"; valid presets: ${listPresets().join(', ')}`);
  const base = applyOverrides(DEFAULT_OPTIONS, found.overrides, `preset ${found.name}`);
  return freezeOptions(applyOverrides(base, overrides, 'overrides'), found.name);
}

/**
 * Parse a CLI `key=value` override: the value is read as JSON when it parses (numbers, booleans,
 * arrays), else as a plain string — so `graph.window=3`, `semantic.enabled=true`,
 * `candidates.posFilter=["n","v"]`, `rank.algorithm=positionrank` all work.
 */
export function parseOverride(assignment: string): [string, unknown] {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw usageError(`options: expected key=value, got ${JSON.stringify(assignment)}; valid options: ${optionKeys().join(', ')}`);
  const key = assignment.slice(0, eq).trim();
  const raw = assignment.slice(eq + 1).trim();
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a bare string
  }
  return [key, value];
}

/** One line per option: `group.key  values  (default: …)`, for `--help` and the README. */
export function describeOptions(defaults: Readonly<PipelineOptions> = DEFAULT_OPTIONS): string[] {
  return optionKeys().map((path) => {
    const [g, k] = path.split('.');
    const value = (defaults[g as keyof PipelineOptions] as unknown as Record<string, unknown>)[k];
    return `${path}: ${describeRule(ruleOf(path)!)} (default ${JSON.stringify(value)})`;
  });
}

export type { EntityKind };
