/**
 * Writes the outputs of `filmkw experiments` into a directory: results.json (machine-readable, with the
 * full resolved options of every system), results.md (tables), charts/*.svg (P, R and F1 against K per
 * figure, F1 against each swept option), report.html (every chart on one page) and predictions/<group>.jsonl (each document's gold and every
 * system's top K, for error analysis). Files are written whole; an unwritable directory is an OUTPUT
 * error (exit 7).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FilmkwError } from '../errors.js';
import { prfChartSvg, sweepChartSvg, type SweepPoint } from './charts.js';
import { DEFAULT_PRESET } from '../pipeline/options.js';
import { systemKey, type ExperimentConfig, type ResultsJson, type SystemRun } from './experiments.js';
import { resultsHtml, resultsMarkdown } from './report.js';
import { distinctKeys, normalizeKeyword } from './metrics.js';
import type { GoldDocument } from './readers.js';

function write(path: string, content: string): void {
  try {
    writeFileSync(path, content);
  } catch (err) {
    throw new FilmkwError('OUTPUT', `experiments: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
}

function mkdir(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (err) {
    throw new FilmkwError('OUTPUT', `experiments: cannot create directory ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
}

/** Files written, relative to the output directory. */
export interface WrittenFiles {
  files: string[];
}

/** Write results.json, results.md, the charts and the per-group predictions. */
export async function writeExperimentOutputs(
  dir: string,
  results: ResultsJson,
  config: ExperimentConfig,
  runs: Map<string, SystemRun>,
  docs: readonly GoldDocument[],
  options: { predictions?: boolean; /** Called with each path before it is written (refuses inputs). */ beforeWrite?: (path: string) => void } = {},
): Promise<WrittenFiles> {
  mkdir(dir);
  const files: string[] = [];
  const put = (rel: string, content: string) => {
    options.beforeWrite?.(join(dir, rel));
    write(join(dir, rel), content);
    files.push(rel);
  };
  const lastK = results.eval.ks.at(-1)!;
  const charts = await writeCharts(dir, results, new Set(config.groups.filter((g) => g.chart !== false).map((g) => g.id)), put);

  const predictionGroups = options.predictions === false ? [] : config.groups.filter((g) => g.predictions !== false);
  if (predictionGroups.length > 0) mkdir(join(dir, 'predictions'));
  for (const g of predictionGroups) {
    const lines = docs.map((d, i) => {
      const systems: Record<string, string[]> = {};
      for (const s of g.systems) {
        const run = runs.get(systemKey(s))!;
        // The evaluated top K: distinct after normalisation, first K.
        systems[s.label] = distinctKeys(run.predictions[i], normalizeKeyword).slice(0, lastK);
      }
      return JSON.stringify({ id: d.id, gold: d.gold, systems });
    });
    put(`predictions/${g.id}.jsonl`, lines.join('\n') + '\n');
  }

  put('results.json', JSON.stringify(results, null, 2) + '\n');
  put('results.md', resultsMarkdown(results, charts));
  return { files };
}

/**
 * The charts of a run: charts/<id>.svg for each group in `chartGroups` and each sweep, and report.html
 * with all of them on one page (report.ts resultsHtml). Returns the charts' paths for results.md.
 */
async function writeCharts(dir: string, results: ResultsJson, chartGroups: ReadonlySet<string>, put: (rel: string, content: string) => void): Promise<{ groups: Record<string, string>; sweeps: Record<string, string> }> {
  const subtitle = `${results.dataset.name} · ${results.dataset.docs} documents · KG: ${results.kg ? results.kg.source : 'none'} · macro average`;
  const charts = { groups: {} as Record<string, string>, sweeps: {} as Record<string, string> };
  const svgs = { groups: {} as Record<string, string>, sweeps: {} as Record<string, string> };
  const groups = results.groups.filter((g) => chartGroups.has(g.id));
  if (groups.length === 0 && results.sweeps.length === 0) return charts;
  mkdir(join(dir, 'charts'));
  for (const rg of groups) {
    // the product's default system (the default preset without overrides) is drawn thicker
    const emphasis = rg.systems.filter((s) => s.preset === DEFAULT_PRESET && (!s.overrides || Object.keys(s.overrides).length === 0)).map((s) => s.label);
    svgs.groups[rg.id] = await prfChartSvg(rg.systems.map((s) => ({ label: s.label, scores: s.macro })), { title: rg.title, subtitle, emphasis });
    charts.groups[rg.id] = `charts/${rg.id}.svg`;
    put(charts.groups[rg.id], svgs.groups[rg.id]);
  }
  for (const sw of results.sweeps) {
    const points: SweepPoint[] = sw.points.flatMap((p) =>
      results.eval.ks.map((k) => ({ parameter: p.axis, value: p.value, order: 0, k, f1: p.system.macro[k].f1, isBase: p.isBase })),
    );
    // Keep each axis's values in config order.
    const seenOrder = new Map<string, number>();
    for (const pt of points) {
      const key = `${pt.parameter}\u0000${pt.value}`;
      if (!seenOrder.has(key)) seenOrder.set(key, seenOrder.size);
      pt.order = seenOrder.get(key)!;
    }
    svgs.sweeps[sw.id] = await sweepChartSvg(points, `${sw.title}: F1 against each option`, `${subtitle} · base: ${sw.base.label} (diamond)`);
    charts.sweeps[sw.id] = `charts/${sw.id}.svg`;
    put(charts.sweeps[sw.id], svgs.sweeps[sw.id]);
  }
  put('report.html', resultsHtml(results, svgs));
  return charts;
}

/**
 * Re-draw the charts, report.html and results.md of a finished run in `dir` from its results.json (no
 * system is run again), with the titles and descriptions of `config` (by group and sweep id): what
 * `npm run experiments:charts` does after a change to the charts or to the config's wording.
 */
export async function redrawExperimentOutputs(dir: string, config: ExperimentConfig): Promise<WrittenFiles> {
  let results: ResultsJson;
  try {
    results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ResultsJson;
  } catch (err) {
    throw new FilmkwError('INPUT', `experiments: cannot read ${join(dir, 'results.json')} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  const worded = new Map<string, { title: string; description?: string }>([...config.groups, ...config.sweeps].map((x) => [x.id, x]));
  for (const part of [...results.groups, ...results.sweeps]) {
    const w = worded.get(part.id);
    if (w) Object.assign(part, { title: w.title, description: w.description });
  }
  const files: string[] = [];
  const put = (rel: string, content: string) => {
    write(join(dir, rel), content);
    files.push(rel);
  };
  const charts = await writeCharts(dir, results, new Set(config.groups.filter((g) => g.chart !== false).map((g) => g.id)), put);
  put('results.json', JSON.stringify(results, null, 2) + '\n');
  put('results.md', resultsMarkdown(results, charts));
  return { files };
}
