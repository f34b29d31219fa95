/**
 * SVG charts of P, R and F1 against K for a group of systems, drawn with vega-lite (compiled to vega and
 * rendered headless with `renderer: 'none'`), plus a small-multiples chart of a parameter sweep.
 *
 * Design: one SVG per group with three panels side by side (Precision, Recall, F1), K on the x axis,
 * the score on the y axis (0 to a rounded-up maximum shared by the panels so they compare at a glance),
 * one coloured line with point markers per system (a palette of dark, well separated colours — no pale
 * tones, so no system fades into the background — plus a distinct dash pattern and marker shape per
 * system so the chart also reads in greyscale), and a legend below. Systems with (nearly) identical
 * scores would hide each other, so each system's points are dodged by a few hundredths of a K step
 * (the axis still marks whole K). `emphasis` draws chosen systems (e.g. the best one) thicker. Fonts
 * are generic sans-serif with a CJK fallback so labels such as 唢呐 render where the viewer has a CJK
 * font.
 */
import type { TopLevelSpec } from 'vega-lite';
import { importOptional } from '../util/optional.js';
import type { ScoresByK } from './metrics.js';

/** One line in a chart. */
export interface ChartSeries {
  label: string;
  scores: ScoresByK;
}

/** Options of {@link prfChartSvg}. */
export interface PrfChartOptions {
  /** Chart title. */
  title: string;
  /**
   * Subtitle (dataset, averaging).
   * @default ''
   */
  subtitle: string;
  /**
   * Width of one panel in pixels.
   * @default 260
   */
  panelWidth: number;
  /**
   * Height of one panel in pixels.
   * @default 220
   */
  panelHeight: number;
  /**
   * Labels of the systems drawn with a thicker line (e.g. the best system).
   * @default []
   */
  emphasis: readonly string[];
}

export const DEFAULT_PRF_CHART_OPTIONS: Readonly<Omit<PrfChartOptions, 'title'>> = Object.freeze({
  subtitle: '',
  panelWidth: 260,
  panelHeight: 220,
  emphasis: Object.freeze([]) as readonly string[],
});

/**
 * Dark, well separated colours (ColorBrewer Dark2 and Set1 without their yellows, then Tableau's dark
 * tones): every one reads on white and none is a pale tint.
 */
const PALETTE = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#a6761d', '#e41a1c', '#377eb8', '#4d4d4d', '#984ea3', '#8c564b', '#17becf'];
/** Horizontal dodge between neighbouring systems, in K units (all systems together span at most MAX_SPREAD). */
const DODGE = 0.08;
const MAX_SPREAD = 0.5;

const FONT = 'Helvetica, Arial, "Noto Sans CJK SC", "Noto Sans SC", "WenQuanYi Micro Hei", sans-serif';
const METRICS = [
  ['p', 'Precision'],
  ['r', 'Recall'],
  ['f1', 'F1'],
] as const;
const DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [4, 4], [1, 3], [10, 2], [3, 3, 1, 3], [12, 4], [5, 2, 1, 2]];

function dashes(labels: readonly string[], emphasised: ReadonlySet<string>): number[][] {
  if (emphasised.size === 0) return labels.map((_, i) => DASHES[i % DASHES.length]);
  let next = 1;
  return labels.map((l) => (emphasised.has(l) ? DASHES[0] : DASHES[1 + ((next++ - 1) % (DASHES.length - 1))]));
}

function yMax(values: number[]): number {
  const max = Math.max(0.1, ...values);
  return Math.min(1, Math.ceil(max * 10 + 0.25) / 10);
}

/** Build the vega-lite spec of a P/R/F1-against-K chart (exported for tests). */
export function prfChartSpec(series: readonly ChartSeries[], partial: Partial<PrfChartOptions> & { title: string }): TopLevelSpec {
  const options: PrfChartOptions = { ...DEFAULT_PRF_CHART_OPTIONS, ...partial };
  const rows: { system: string; metric: string; k: number; kx: number; value: number; emphasis: 'no' | 'yes' }[] = [];
  const emphasised = new Set(options.emphasis);
  series.forEach((s, i) => {
    const step = series.length > 1 ? Math.min(DODGE, MAX_SPREAD / (series.length - 1)) : 0;
    const dodge = (i - (series.length - 1) / 2) * step;
    for (const [k, prf] of Object.entries(s.scores)) {
      for (const [key, name] of METRICS) rows.push({ system: s.label, metric: name, k: Number(k), kx: Number(k) + dodge, value: prf[key], emphasis: emphasised.has(s.label) ? 'yes' : 'no' });
    }
  });
  const ks = [...new Set(rows.map((r) => r.k))].sort((a, b) => a - b);
  const labels = series.map((s) => s.label);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: options.title, subtitle: options.subtitle || undefined, anchor: 'start', fontSize: 15, subtitleFontSize: 11 },
    data: { values: rows },
    config: {
      font: FONT,
      axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
      legend: { labelFontSize: 11, titleFontSize: 12, orient: 'bottom', columns: Math.min(4, labels.length), symbolStrokeWidth: 2.5, labelLimit: 320 },
      header: { labelFontSize: 13, labelFontWeight: 'bold', title: null },
      view: { stroke: '#cccccc' },
      background: 'white',
    },
    facet: { column: { field: 'metric', type: 'nominal', sort: METRICS.map((m) => m[1]), header: { title: null } } },
    spec: {
      width: options.panelWidth,
      height: options.panelHeight,
      encoding: {
        x: { field: 'kx', type: 'quantitative', title: 'K (keywords returned)', scale: { domain: [(ks[0] ?? 1) - 0.35, (ks.at(-1) ?? 5) + 0.35], nice: false }, axis: { values: ks, format: 'd' } },
        y: { field: 'value', type: 'quantitative', title: 'score (macro average)', scale: { domain: [0, yMax(rows.map((r) => r.value))] }, axis: { format: '.2f' } },
        color: { field: 'system', type: 'nominal', title: 'system', sort: labels, scale: { domain: labels, range: labels.map((_, i) => PALETTE[i % PALETTE.length]) } },
        // emphasised systems solid, the others dashed (the first system solid when none is emphasised)
        strokeDash: { field: 'system', type: 'nominal', sort: labels, scale: { domain: labels, range: dashes(labels, emphasised) } },
      },
      layer: [
        {
          mark: { type: 'line' },
          encoding: { strokeWidth: { field: 'emphasis', type: 'ordinal', sort: ['no', 'yes'], scale: { domain: ['no', 'yes'], range: [1.8, 3.6] }, legend: null } },
        },
        { mark: { type: 'point', filled: true, size: 45, opacity: 0.95 }, encoding: { shape: { field: 'system', type: 'nominal', sort: labels } } },
      ],
    },
    resolve: { scale: { y: 'shared' } },
  } as TopLevelSpec;
}

/** Render a vega-lite spec to an SVG string. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const what = 'experiments: drawing the charts';
  const [vega, { compile }] = await Promise.all([
    importOptional<typeof import('vega')>('vega', what),
    importOptional<typeof import('vega-lite')>('vega-lite', what),
  ]);
  const compiled = compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** SVG chart of P, R and F1 against K, one line per system. */
export async function prfChartSvg(series: readonly ChartSeries[], options: Partial<PrfChartOptions> & { title: string }): Promise<string> {
  return renderSvg(prfChartSpec(series, options));
}

/** One point of a sweep chart: F1 at a K for one value of one parameter. */
export interface SweepPoint {
  parameter: string;
  value: string;
  /** Order of the value along its axis. */
  order: number;
  k: number;
  f1: number;
  /** True for the value of the base configuration. */
  isBase: boolean;
}

/** Longest value label (characters) drawn level under the axis; longer ones are slanted. */
const LEVEL_LABEL_CHARS = 8;

/**
 * Small multiples: F1@K (one line per K) against each swept parameter's values, one panel per parameter
 * whose x axis is titled with the option's name (`graph.window`) and shows every value label whole.
 */
export function sweepChartSpec(points: readonly SweepPoint[], title: string, subtitle = ''): TopLevelSpec {
  const parameters = [...new Set(points.map((p) => p.parameter))];
  const ks = [...new Set(points.map((p) => p.k))].sort((a, b) => a - b);
  const panel = (parameter: string) => {
    const long = points.some((p) => p.parameter === parameter && p.value.length > LEVEL_LABEL_CHARS);
    return {
      width: 200,
      height: 140,
      transform: [{ filter: { field: 'parameter', equal: parameter } }],
      encoding: {
        x: { field: 'value', type: 'ordinal', sort: { field: 'order' }, title: parameter, axis: { labelAngle: long ? -35 : 0, labelLimit: 0, titleFontWeight: 'bold' } },
        y: { field: 'f1', type: 'quantitative', title: 'F1 (macro)', scale: { zero: false }, axis: { format: '.2f' } },
        color: { field: 'kLabel', type: 'nominal', title: 'metric', sort: ks.map((k) => `F1@${k}`), scale: { domain: ks.map((k) => `F1@${k}`), range: ks.map((_, i) => PALETTE[i % PALETTE.length]) } },
      },
      layer: [
        { mark: { type: 'line', strokeWidth: 1.5 } },
        { mark: { type: 'point', filled: true, size: 30 } },
        {
          mark: { type: 'point', shape: 'diamond', size: 90, filled: false, color: 'black', strokeWidth: 1.2 },
          transform: [{ filter: 'datum.isBase' }],
          encoding: { color: { value: 'black' } },
        },
      ],
    };
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle: subtitle || undefined, anchor: 'start', fontSize: 15, subtitleFontSize: 11 },
    data: { values: points.map((p) => ({ ...p, kLabel: `F1@${p.k}` })) },
    config: {
      font: FONT,
      axis: { labelFontSize: 10, titleFontSize: 11, gridColor: '#e6e6e6' },
      legend: { orient: 'bottom', labelFontSize: 11, titleFontSize: 12 },
      view: { stroke: '#cccccc' },
      background: 'white',
    },
    concat: parameters.map(panel),
    columns: 3,
    spacing: { row: 24, column: 18 },
    resolve: { scale: { x: 'independent', y: 'shared', color: 'shared' } },
  } as TopLevelSpec;
}

export async function sweepChartSvg(points: readonly SweepPoint[], title: string, subtitle = ''): Promise<string> {
  return renderSvg(sweepChartSpec(points, title, subtitle));
}
