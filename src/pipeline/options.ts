/**
 * The full option set of the extraction pipeline (spec §1.4 and §6), one frozen default object, and the
 * resolver that turns a preset plus overrides into validated, frozen options — once, at the entry
 * point. Stages receive their group and never restate a default.
 *
 * Every open choice of the paper (王芳, 刘嘉恩, 李晶 2022) is an option here. Presets (presets.ts) are
 * data: a preset is a set of overrides on {@link DEFAULT_OPTIONS}, and an experiment is a preset plus
 * further overrides.
 *
 * Each stage owns its group: the options type (allowed values as `as const` lists the types derive
 * from), the frozen defaults and the validation rules live in the stage's module (graph.ts, rank.ts,
 * candidates.ts, …); this module composes them. How each default was chosen — the paper's value where
 * it states one, else measured on film-dev and held to csl-dev, with the figures — is in
 * eval/results/film-dev/ANALYSIS.md §3 ("Defaults"); the preset `filmkw` is explained in its §1 and
 * §4–6, and `filmkw-rerank` (the best measured system and the default, {@link DEFAULT_PRESET}) in §7.
 *
 * Override keys (untyped input from CLI flags and experiment files) are validated strictly: `group.key`
 * (`graph.window`), a bare key when it is unique across groups (`window`), or a group with an object
 * value (`{graph: {window: 3}}`). An unknown key or a bad value is a FilmkwError('USAGE') that lists
 * the valid keys or values.
 */
import type { EntityKind } from '../kg/model.js';
import { usageError, checkUntrustedKey } from '../errors.js';
import { checkRule, describeRule, type OptionRule, type OptionRules } from '../util/option-rules.js';
import { DEFAULT_GRAPH_OPTIONS, DEFAULT_SEMANTIC_OPTIONS, GRAPH_OPTION_RULES, SEMANTIC_OPTION_RULES, type GraphOptions, type SemanticOptions } from './graph.js';
import { DEFAULT_KG_MATCH_OPTIONS, KG_MATCH_OPTION_RULES, type KgMatchOptions } from './kg-match.js';
import { DEFAULT_RANK_OPTIONS, RANK_OPTION_RULES, type RankOptions } from './rank.js';
import { DEFAULT_TITLE_POLICY_OPTIONS, TITLE_POLICY_OPTION_RULES, type TitlePolicyOptions } from '../lexicon/title-policy.js';
import { DEFAULT_PRIOR_OPTIONS, PRIOR_OPTION_RULES, type PriorOptions } from './idf.js';
import { findPreset, listPresets } from './presets.js';
import { CANDIDATE_OPTION_RULES, DEFAULT_CANDIDATE_OPTIONS, type CandidateOptions } from './candidates.js';
import { DEFAULT_PHRASE_OPTIONS, PHRASE_OPTION_RULES, type PhraseOptions } from './phrases.js';
import { DEFAULT_RERANK_OPTIONS, RERANK_OPTION_RULES, type RerankOptions } from './rerank.js';
import { DEFAULT_LEXICON_OPTIONS, LEXICON_OPTION_RULES, type LexiconOptions } from './segment.js';
import { DEFAULT_OUTPUT_OPTIONS, OUTPUT_OPTION_RULES, type OutputOptions } from './output.js';
import type { PipelineOptions, ResolvedOptions, OptionOverrides } from './option-types.js';

export type { OptionRule };
export type { GraphOptions, SemanticOptions, KgMatchOptions, RankOptions, TitlePolicyOptions, CandidateOptions, PriorOptions, PhraseOptions, RerankOptions, LexiconOptions, OutputOptions };
export type { PipelineOptions, ResolvedOptions, OptionOverrides };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/**
 * The defaults: each stage's frozen defaults (spec §1.4 recommendations, β measured; see the module
 * header), composed and frozen. A stage module owns its group's type, defaults and validation rules.
 */
export const DEFAULT_OPTIONS: Readonly<PipelineOptions> = deepFreeze({
  lexicon: DEFAULT_LEXICON_OPTIONS,
  candidates: DEFAULT_CANDIDATE_OPTIONS as CandidateOptions,
  kgMatch: DEFAULT_KG_MATCH_OPTIONS,
  titles: DEFAULT_TITLE_POLICY_OPTIONS,
  graph: DEFAULT_GRAPH_OPTIONS,
  semantic: DEFAULT_SEMANTIC_OPTIONS,
  rank: DEFAULT_RANK_OPTIONS,
  prior: DEFAULT_PRIOR_OPTIONS,
  phrases: DEFAULT_PHRASE_OPTIONS,
  rerank: DEFAULT_RERANK_OPTIONS,
  output: DEFAULT_OUTPUT_OPTIONS,
} satisfies PipelineOptions);

/** How each option is validated and described: the stages' rules, by group. */
const SCHEMA: { [G in keyof PipelineOptions]: OptionRules<PipelineOptions[G]> } = {
  lexicon: LEXICON_OPTION_RULES,
  candidates: CANDIDATE_OPTION_RULES,
  kgMatch: KG_MATCH_OPTION_RULES,
  titles: TITLE_POLICY_OPTION_RULES,
  graph: GRAPH_OPTION_RULES,
  semantic: SEMANTIC_OPTION_RULES,
  rank: RANK_OPTION_RULES,
  prior: PRIOR_OPTION_RULES,
  phrases: PHRASE_OPTION_RULES,
  rerank: RERANK_OPTION_RULES,
  output: OUTPUT_OPTION_RULES,
};

const GROUPS = Object.keys(SCHEMA) as (keyof PipelineOptions)[];

/** Every option as `group.key`, in schema order. */
export function optionKeys(): string[] {
  return GROUPS.flatMap((g) => Object.keys(SCHEMA[g]).map((k) => `${g}.${k}`));
}

export { describeRule };

/** The rule of `group.key`, or undefined. */
export function ruleOf(path: string): OptionRule | undefined {
  const [g, k] = path.split('.');
  // own properties only: `__proto__.toString` or `rank.constructor` must not find Object.prototype's
  if (!Object.prototype.hasOwnProperty.call(SCHEMA, g)) return undefined;
  const group = (SCHEMA as unknown as Record<string, Record<string, OptionRule>>)[g];
  return Object.prototype.hasOwnProperty.call(group, k) ? group[k] : undefined;
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
    checkUntrustedKey(key, `options: ${source}`);
    if ((GROUPS as string[]).includes(key)) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw usageError(`options: ${source}: "${key}" is an option group and takes an object, e.g. {"${key}": {"${Object.keys(SCHEMA[key as keyof PipelineOptions])[0]}": ...}}`);
      }
      for (const [inner, v] of Object.entries(value)) {
        checkUntrustedKey(`${key}.${inner}`, `options: ${source}`);
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
    const problem = checkRule(rule, value);
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
 * Default preset of the CLI (`filmkw tag`, `serve`, `tag --queue`) and the library: `filmkw-rerank`, the
 * best measured system (presets.ts; eval/results/film-dev/ANALYSIS.md §7). `filmkw` is the previous
 * default; the paper's full model is `textrank+w+g+r`.
 */
export const DEFAULT_PRESET = 'filmkw-rerank';

/**
 * Resolve a preset (name or alias, case-insensitive; default {@link DEFAULT_PRESET}) plus overrides
 * into validated, frozen options. Unknown preset, unknown key or bad value: FilmkwError('USAGE') that
 * lists the valid presets, keys or values.
 */
export function resolveOptions(preset: string = DEFAULT_PRESET, overrides?: Record<string, unknown> | OptionOverrides): ResolvedOptions {
  const found = findPreset(preset);
  if (!found) throw usageError(`options: unknown preset "${preset}"; valid presets: ${listPresets().join(', ')}`);
  const base = applyOverrides(DEFAULT_OPTIONS, found.overrides, `preset ${found.name}`);
  const options = applyOverrides(base, overrides, 'overrides');
  checkCombination(options, found.name);
  return freezeOptions(options, found.name);
}

/**
 * Options that are valid alone but do nothing together are refused rather than silently ignored:
 * `output.scoreScale` rescales graph scores; under the re-ranker the score is σ(logit), already between
 * 0 and 1, and is not rescaled.
 */
function checkCombination(o: PipelineOptions, preset: string): void {
  if (o.rerank.enabled && o.output.scoreScale !== 'raw') {
    throw usageError(
      `options: output.scoreScale=${o.output.scoreScale} does not apply under the re-ranker (rerank.enabled, as in the preset ${preset}): its scores are σ(logit), already between 0 and 1, and keep their order; rescale graph scores with another preset (e.g. --preset filmkw)`,
    );
  }
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
  checkUntrustedKey(key, 'options: --set');
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
