/**
 * Experiments as data: a config (eval/configs/*.json) lists groups of systems to compare — the paper's
 * Fig. 5 (TextRank and PositionRank, each with and without the MKG) and Fig. 6 (the ablation ladder
 * TextRank, +W, +W+G, +W+G+R), the nodejieba baselines — and one-factor-at-a-time sweeps around a base
 * configuration. Each system is a preset plus option overrides, or a named baseline. This module
 * validates configs, runs every distinct system once over the gold documents, and assembles the
 * results object written to results.json (rendering and file output are in the CLI).
 *
 * Assumptions:
 * - Systems rank; the evaluator asks for `2 × max K` keywords (so deduplication after normalisation
 *   can still fill K slots) and cuts at each K.
 * - A system that appears in several groups (same preset/baseline and same overrides) runs once.
 * - A sweep axis varies one option (or one bundle of options) with everything else at the base.
 */
import { readFileSync } from 'node:fs';
import type { KgView } from '../kg/model.js';
import { inputError, usageError } from '../errors.js';
import { resolveEvalOptions, type EvalOptions, type EvalResult, type ScoresByK } from './metrics.js';
import type { GoldDocument } from './readers.js';
import { evaluateSystem, type EvalSystem, type SystemEvaluation } from './systems.js';
import { compareRuns, type Comparison } from './compare.js';
import { canonicalJson } from '../util/canonical-json.js';

/** A system in a config: a preset with overrides, or a baseline. */
export interface SystemSpec {
  /** Name shown in tables and charts. */
  label: string;
  preset?: string;
  overrides?: Record<string, unknown>;
  baseline?: string;
}

export interface GroupSpec {
  id: string;
  title: string;
  /** Sentence shown under the title in results.md. */
  description?: string;
  systems: SystemSpec[];
  /** Draw a P/R/F1-against-K chart. @default true */
  chart?: boolean;
  /** Write each system's predictions to predictions/<group>.jsonl. @default true */
  predictions?: boolean;
  /**
   * Compare each system with the previous one (paired: documents better/worse, ΔF1@max K with a
   * bootstrap interval, words gained and lost), for ablation ladders. @default false
   */
  compareSteps?: boolean;
}

/** Defaults of a group's optional switches (frozen). */
export const GROUP_DEFAULTS: Readonly<Required<Pick<GroupSpec, 'chart' | 'predictions' | 'compareSteps'>>> = Object.freeze({ chart: true, predictions: true, compareSteps: false });

export interface SweepVariant {
  label: string;
  overrides: Record<string, unknown>;
}

/** One axis: either `key` + `values` (shorthand) or explicit `variants`. */
export interface SweepAxisSpec {
  name: string;
  key?: string;
  values?: unknown[];
  variants?: SweepVariant[];
}

export interface SweepSpec {
  id: string;
  title: string;
  description?: string;
  base: { label: string; preset: string; overrides?: Record<string, unknown> };
  axes: SweepAxisSpec[];
}

export interface ExperimentConfig {
  name: string;
  description?: string;
  /** Evaluator options (ks, precisionDenominator, …). */
  eval?: Partial<EvalOptions>;
  groups: GroupSpec[];
  sweeps: SweepSpec[];
}

function fail(file: string, path: string, message: string): never {
  throw usageError(`${file}: ${path}: ${message}`);
}

function checkKeys(file: string, path: string, obj: unknown, allowed: string[], required: string[] = []): Record<string, unknown> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) fail(file, path, 'expected an object');
  const o = obj as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (key === '$comment') continue;
    if (!allowed.includes(key)) fail(file, path, `unknown key "${key}" (valid: ${allowed.join(', ')})`);
  }
  for (const key of required) if (o[key] === undefined) fail(file, path, `missing "${key}"`);
  return o;
}

const isString = (x: unknown): x is string => typeof x === 'string' && x.length > 0;
function checkOverrides(file: string, path: string, x: unknown): Record<string, unknown> {
  if (x === undefined) return {};
  if (x === null || typeof x !== 'object' || Array.isArray(x)) fail(file, path, 'overrides must be an object of option: value');
  return x as Record<string, unknown>;
}

function checkSystem(file: string, path: string, raw: unknown): SystemSpec {
  const o = checkKeys(file, path, raw, ['label', 'preset', 'overrides', 'baseline'], ['label']);
  if (!isString(o.label)) fail(file, `${path}.label`, 'must be a non-empty string');
  if ((o.preset === undefined) === (o.baseline === undefined)) fail(file, path, 'give exactly one of "preset" or "baseline"');
  if (o.preset !== undefined && !isString(o.preset)) fail(file, `${path}.preset`, 'must be a non-empty string');
  if (o.baseline !== undefined && !isString(o.baseline)) fail(file, `${path}.baseline`, 'must be a non-empty string');
  if (o.baseline !== undefined && o.overrides !== undefined) fail(file, path, 'a baseline takes no overrides');
  const spec: SystemSpec = { label: o.label };
  if (o.preset !== undefined) {
    spec.preset = o.preset as string;
    spec.overrides = checkOverrides(file, `${path}.overrides`, o.overrides);
  } else spec.baseline = o.baseline as string;
  return spec;
}

/** Validate an untyped config object; every problem names the file and the JSON path. */
export function parseExperimentConfig(raw: unknown, file = 'config'): ExperimentConfig {
  const o = checkKeys(file, '$', raw, ['name', 'description', 'eval', 'groups', 'sweeps'], ['name']);
  if (!isString(o.name)) fail(file, '$.name', 'must be a non-empty string');
  let evalOptions: Partial<EvalOptions> | undefined;
  if (o.eval !== undefined) {
    try {
      resolveEvalOptions(o.eval as Record<string, unknown>);
    } catch (err) {
      fail(file, '$.eval', (err as Error).message);
    }
    evalOptions = o.eval as Partial<EvalOptions>;
  }
  const groupsRaw = o.groups ?? [];
  if (!Array.isArray(groupsRaw)) fail(file, '$.groups', 'must be an array');
  const ids = new Set<string>();
  const uniqueId = (path: string, id: unknown) => {
    if (!isString(id) || !/^[a-z0-9][a-z0-9-]*$/.test(id)) fail(file, path, 'id must be lower-case letters, digits and dashes');
    if (ids.has(id)) fail(file, path, `duplicate id "${id}"`);
    ids.add(id);
    return id;
  };
  const groups = groupsRaw.map((g, i): GroupSpec => {
    const path = `$.groups[${i}]`;
    const go = checkKeys(file, path, g, ['id', 'title', 'description', 'systems', 'chart', 'predictions', 'compareSteps'], ['id', 'title', 'systems']);
    if (!Array.isArray(go.systems) || go.systems.length === 0) fail(file, `${path}.systems`, 'must be a non-empty array');
    const systems = go.systems.map((s, j) => checkSystem(file, `${path}.systems[${j}]`, s));
    const labels = new Set<string>();
    systems.forEach((s, j) => {
      if (labels.has(s.label)) fail(file, `${path}.systems[${j}].label`, `duplicate label "${s.label}" in the group`);
      labels.add(s.label);
    });
    for (const key of ['chart', 'predictions', 'compareSteps'] as const) {
      if (go[key] !== undefined && typeof go[key] !== 'boolean') fail(file, `${path}.${key}`, 'must be true or false');
    }
    return {
      id: uniqueId(`${path}.id`, go.id),
      title: String(go.title),
      description: go.description === undefined ? undefined : String(go.description),
      systems,
      chart: (go.chart as boolean | undefined) ?? GROUP_DEFAULTS.chart,
      predictions: (go.predictions as boolean | undefined) ?? GROUP_DEFAULTS.predictions,
      compareSteps: (go.compareSteps as boolean | undefined) ?? GROUP_DEFAULTS.compareSteps,
    };
  });
  const sweepsRaw = o.sweeps ?? [];
  if (!Array.isArray(sweepsRaw)) fail(file, '$.sweeps', 'must be an array');
  const sweeps = sweepsRaw.map((s, i): SweepSpec => {
    const path = `$.sweeps[${i}]`;
    const so = checkKeys(file, path, s, ['id', 'title', 'description', 'base', 'axes'], ['id', 'title', 'base', 'axes']);
    const bo = checkKeys(file, `${path}.base`, so.base, ['label', 'preset', 'overrides'], ['label', 'preset']);
    if (!isString(bo.label) || !isString(bo.preset)) fail(file, `${path}.base`, 'label and preset must be non-empty strings');
    if (!Array.isArray(so.axes) || so.axes.length === 0) fail(file, `${path}.axes`, 'must be a non-empty array');
    const axes = so.axes.map((a, j): SweepAxisSpec => {
      const ap = `${path}.axes[${j}]`;
      const ao = checkKeys(file, ap, a, ['name', 'key', 'values', 'variants'], ['name']);
      if (!isString(ao.name)) fail(file, `${ap}.name`, 'must be a non-empty string');
      if ((ao.variants === undefined) === (ao.key === undefined)) fail(file, ap, 'give either "key" + "values" or "variants"');
      if (ao.key !== undefined) {
        if (!isString(ao.key)) fail(file, `${ap}.key`, 'must be a non-empty string');
        if (!Array.isArray(ao.values) || ao.values.length === 0) fail(file, `${ap}.values`, 'must be a non-empty array');
        return { name: ao.name, key: ao.key, values: ao.values };
      }
      if (!Array.isArray(ao.variants) || ao.variants.length === 0) fail(file, `${ap}.variants`, 'must be a non-empty array');
      const variants = ao.variants.map((v, k) => {
        const vo = checkKeys(file, `${ap}.variants[${k}]`, v, ['label', 'overrides'], ['label', 'overrides']);
        if (!isString(vo.label)) fail(file, `${ap}.variants[${k}].label`, 'must be a non-empty string');
        return { label: vo.label, overrides: checkOverrides(file, `${ap}.variants[${k}].overrides`, vo.overrides) };
      });
      return { name: ao.name, variants };
    });
    return {
      id: uniqueId(`${path}.id`, so.id),
      title: String(so.title),
      description: so.description === undefined ? undefined : String(so.description),
      base: { label: bo.label, preset: bo.preset, overrides: checkOverrides(file, `${path}.base.overrides`, bo.overrides) },
      axes,
    };
  });
  if (groups.length === 0 && sweeps.length === 0) fail(file, '$', 'the config has no groups and no sweeps');
  return { name: o.name, description: o.description === undefined ? undefined : String(o.description), eval: evalOptions, groups, sweeps };
}

/** Read and validate a config file. */
export function readExperimentConfig(path: string, displayName = path): ExperimentConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw inputError(`${displayName}: cannot read experiment config (${(err as Error).message})`, err);
  }
  return parseExperimentConfig(raw, displayName);
}

/** Variants of a sweep axis, shorthand expanded (`key` + `values` → one variant per value). */
export function axisVariants(axis: SweepAxisSpec): SweepVariant[] {
  if (axis.variants) return axis.variants;
  return (axis.values ?? []).map((v) => ({ label: typeof v === 'string' ? v : JSON.stringify(v), overrides: { [axis.key!]: v } }));
}

/** What makes a system distinct (label excluded). */
export const systemKey = (s: SystemSpec): string =>
  s.baseline !== undefined ? `baseline:${s.baseline}` : `preset:${s.preset}:${canonicalJson(s.overrides ?? {})}`;

/** Builds the system of a spec (injected: the CLI binds it to the real pipeline and baselines). */
export type SystemFactory = (spec: SystemSpec) => Promise<EvalSystem>;

/** Result of running one system. */
export interface SystemRun {
  key: string;
  preset?: string;
  overrides?: Record<string, unknown>;
  baseline?: string;
  /** The system's fully resolved options. */
  options: Readonly<Record<string, unknown>>;
  result: EvalResult;
  predictions: string[][];
  seconds: number;
}

/** Every system of a config (groups first, then each sweep's base and variants), one entry per label use. */
export interface PlannedSystem {
  spec: SystemSpec;
  key: string;
  /** Where it appears: group id or `sweep-id/axis/value`. */
  uses: string[];
}

export interface SweepEntry {
  sweep: string;
  axis: string;
  value: string;
  order: number;
  isBase: boolean;
  spec: SystemSpec;
}

/** Expand a sweep into concrete systems. The base is listed once per axis (flagged isBase) if a variant equals it. */
export function expandSweep(sweep: SweepSpec): SweepEntry[] {
  const baseOverrides = sweep.base.overrides ?? {};
  const baseKey = systemKey({ label: '', preset: sweep.base.preset, overrides: baseOverrides });
  const out: SweepEntry[] = [];
  for (const axis of sweep.axes) {
    axisVariants(axis).forEach((v, order) => {
      const spec: SystemSpec = { label: `${sweep.base.label} · ${axis.name}=${v.label}`, preset: sweep.base.preset, overrides: { ...baseOverrides, ...v.overrides } };
      out.push({ sweep: sweep.id, axis: axis.name, value: v.label, order, isBase: systemKey(spec) === baseKey, spec });
    });
  }
  return out;
}

/** Distinct systems of a config, in first-use order. */
export function planSystems(config: ExperimentConfig): PlannedSystem[] {
  const byKey = new Map<string, PlannedSystem>();
  const add = (spec: SystemSpec, use: string) => {
    const key = systemKey(spec);
    const p = byKey.get(key);
    if (p) p.uses.push(use);
    else byKey.set(key, { spec, key, uses: [use] });
  };
  for (const g of config.groups) for (const s of g.systems) add(s, g.id);
  for (const sw of config.sweeps) {
    add({ label: sw.base.label, preset: sw.base.preset, overrides: sw.base.overrides ?? {} }, `${sw.id}/base`);
    for (const e of expandSweep(sw)) add(e.spec, `${sw.id}/${e.axis}=${e.value}`);
  }
  return [...byKey.values()];
}

/** Progress callbacks (the CLI prints them on stderr). */
export interface ExperimentProgress {
  systemStart?(index: number, total: number, planned: PlannedSystem): void;
  document?(done: number, total: number): void;
  systemDone?(index: number, total: number, planned: PlannedSystem, run: SystemRun): void;
}

/** Keep only the groups and sweeps whose id is listed (`--only`); unknown ids are usage errors. */
export function selectParts(config: ExperimentConfig, only: readonly string[] | undefined, file = 'config'): ExperimentConfig {
  if (!only || only.length === 0) return config;
  const ids = [...config.groups.map((g) => g.id), ...config.sweeps.map((s) => s.id)];
  for (const id of only) if (!ids.includes(id)) throw usageError(`experiments: --only: unknown part "${id}" in ${file} (valid: ${ids.join(', ')})`);
  return { ...config, groups: config.groups.filter((g) => only.includes(g.id)), sweeps: config.sweeps.filter((s) => only.includes(s.id)) };
}

/**
 * Run every distinct system of a config once, one after the other (each system is built, run over all
 * documents and closed before the next is built). A system that cannot be built fails the whole run.
 */
export async function runExperiments(config: ExperimentConfig, docs: readonly GoldDocument[], factory: SystemFactory, progress: ExperimentProgress = {}, kg?: KgView): Promise<Map<string, SystemRun>> {
  const evalOptions = resolveEvalOptions((config.eval ?? {}) as Record<string, unknown>);
  const plan = planSystems(config);
  const runs = new Map<string, SystemRun>();
  const byOptions = new Map<string, SystemRun>();
  for (let i = 0; i < plan.length; i++) {
    const planned = plan[i];
    progress.systemStart?.(i, plan.length, planned);
    const system = await factory(planned.spec);
    // A sweep value equal to the base (e.g. window=5 when 5 is the default) resolves to the same options:
    // reuse that run instead of extracting again.
    const optionsKey = canonicalJson(system.options);
    const same = byOptions.get(optionsKey);
    let evaluation: SystemEvaluation;
    try {
      evaluation = same
        ? { result: same.result, predictions: same.predictions, seconds: same.seconds }
        : await evaluateSystem(system, docs, evalOptions, evalOptions.kgAliases ? kg : undefined, (done, total) => progress.document?.(done, total));
    } finally {
      await system.close();
    }
    const run: SystemRun = {
      key: planned.key,
      preset: planned.spec.preset,
      overrides: planned.spec.overrides,
      baseline: planned.spec.baseline,
      options: system.options,
      result: evaluation.result,
      predictions: evaluation.predictions,
      seconds: evaluation.seconds,
    };
    runs.set(planned.key, run);
    if (!same) byOptions.set(optionsKey, run);
    progress.systemDone?.(i, plan.length, planned, run);
  }
  return runs;
}

/** results.json shape. */
export interface ResultsJson {
  experiment: string;
  description?: string;
  /** ISO date (YYYY-MM-DD) of the run. */
  date: string;
  package: { name: string; version: string };
  /** Gold file by name only (never an absolute path) and its sha256. */
  dataset: { name: string; format: string; docs: number; sha256: string };
  /** The KG the systems used: a label of its source (e.g. `demo`, a snapshot file name), content hash and size; null = none. */
  kg: { source: string; contentHash: string; entities: number } | null;
  eval: EvalOptions;
  groups: { id: string; title: string; description?: string; systems: ResultSystem[]; steps?: ResultStep[] }[];
  sweeps: {
    id: string;
    title: string;
    description?: string;
    base: ResultSystem;
    points: { axis: string; value: string; isBase: boolean; system: ResultSystem }[];
  }[];
}

/** Paired comparison of a system with the previous one in its group (groups with compareSteps). */
export interface ResultStep extends Comparison {
  from: string;
  to: string;
}

export interface ResultSystem {
  label: string;
  preset?: string;
  overrides?: Record<string, unknown>;
  baseline?: string;
  options: Readonly<Record<string, unknown>>;
  macro: ScoresByK;
  micro: ScoresByK;
  seconds: number;
}

function resultSystem(label: string, run: SystemRun, round: (x: ScoresByK) => ScoresByK): ResultSystem {
  const s: ResultSystem = { label, options: run.options, macro: round(run.result.macro), micro: round(run.result.micro), seconds: Math.round(run.seconds * 100) / 100 };
  if (run.baseline !== undefined) s.baseline = run.baseline;
  else {
    s.preset = run.preset;
    s.overrides = run.overrides ?? {};
  }
  return s;
}

/** Round every score to 6 decimals (stable committed files). */
export function roundScores(scores: ScoresByK): ScoresByK {
  const r = (x: number) => Math.round(x * 1e6) / 1e6;
  return Object.fromEntries(Object.entries(scores).map(([k, v]) => [k, { p: r(v.p), r: r(v.r), f1: r(v.f1) }]));
}

/** Assemble results.json from the runs. */
export function buildResults(
  config: ExperimentConfig,
  runs: Map<string, SystemRun>,
  meta: Pick<ResultsJson, 'date' | 'package' | 'dataset' | 'kg'>,
  docs: readonly Pick<GoldDocument, 'id' | 'gold'>[] = [],
): ResultsJson {
  const get = (spec: SystemSpec) => {
    const run = runs.get(systemKey(spec));
    if (!run) throw new Error(`experiments: no run for ${systemKey(spec)}`);
    return run;
  };
  return {
    experiment: config.name,
    description: config.description,
    ...meta,
    eval: resolveEvalOptions((config.eval ?? {}) as Record<string, unknown>),
    groups: config.groups.map((g) => {
      const out: ResultsJson['groups'][number] = { id: g.id, title: g.title, description: g.description, systems: g.systems.map((s) => resultSystem(s.label, get(s), roundScores)) };
      if (g.compareSteps && docs.length > 0) {
        const k = Math.max(...resolveEvalOptions((config.eval ?? {}) as Record<string, unknown>).ks);
        out.steps = g.systems.slice(1).map((s, i) => {
          const c = compareRuns(docs.map((d) => d.id), docs.map((d) => d.gold), get(g.systems[i]), get(s), { k });
          const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
          return { from: g.systems[i].label, to: s.label, ...c, meanDelta: r6(c.meanDelta), ci95: [r6(c.ci95[0]), r6(c.ci95[1])], worstDocs: c.worstDocs.map((w) => ({ id: w.id, delta: r6(w.delta) })) };
        });
      }
      return out;
    }),
    sweeps: config.sweeps.map((sw) => {
      const baseSpec: SystemSpec = { label: sw.base.label, preset: sw.base.preset, overrides: sw.base.overrides ?? {} };
      return {
        id: sw.id,
        title: sw.title,
        description: sw.description,
        base: resultSystem(sw.base.label, get(baseSpec), roundScores),
        // A point is the base when its resolved options equal the base's (not only its overrides).
        points: expandSweep(sw).map((e) => ({
          axis: e.axis,
          value: e.value,
          isBase: e.isBase || canonicalJson(get(e.spec).options) === canonicalJson(get(baseSpec).options),
          system: resultSystem(e.spec.label, get(e.spec), roundScores),
        })),
      };
    }),
  };
}
