/**
 * Plain-text and Markdown rendering of evaluation results: the `filmkw eval` table and the tables of
 * results.md written by `filmkw experiments`. Pure functions of the results; numbers are printed with
 * a fixed number of decimals so regenerated files diff cleanly.
 */
import type { EvalResult, ScoresByK } from './metrics.js';

/** Format a score in [0, 1] with `digits` decimals. */
export const fmt = (x: number, digits = 4): string => x.toFixed(digits);

/** Sorted K values of a score table. */
export const ksOf = (scores: ScoresByK): number[] => Object.keys(scores).map(Number).sort((a, b) => a - b);

/** JSON shape printed by `filmkw eval --json`. */
export interface EvalJson {
  system: string;
  docs: number;
  macro: ScoresByK;
  micro: ScoresByK;
}

/** The `eval --json` object (per-document scores left out). */
export function evalJson(system: string, result: EvalResult): EvalJson {
  return { system, docs: result.docs, macro: result.macro, micro: result.micro };
}

/** Readable table for `filmkw eval` without --json. */
export function evalTable(system: string, result: EvalResult, gold = ''): string {
  const rows = [
    `system: ${system}`,
    `gold:   ${gold ? `${gold}, ` : ''}${result.docs} documents`,
    '',
    '  K │ macro P  macro R  macro F1 │ micro P  micro R  micro F1',
    '────┼────────────────────────────┼───────────────────────────',
  ];
  for (const k of ksOf(result.macro)) {
    const m = result.macro[k];
    const u = result.micro[k];
    rows.push(`${String(k).padStart(3)} │ ${fmt(m.p)}   ${fmt(m.r)}   ${fmt(m.f1)}   │ ${fmt(u.p)}   ${fmt(u.r)}   ${fmt(u.f1)}`);
  }
  return rows.join('\n') + '\n';
}

/** Escape a cell for a Markdown table. */
export const mdCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown table. */
export function mdTable(header: string[], rows: string[][], align: ('l' | 'r')[] = []): string {
  const sep = header.map((_, i) => ((align[i] ?? (i === 0 ? 'l' : 'r')) === 'r' ? '---:' : ':---'));
  return [header, sep, ...rows].map((r) => `| ${r.map(mdCell).join(' | ')} |`).join('\n') + '\n';
}

/** One row of a results table. */
export interface ResultRow {
  label: string;
  macro: ScoresByK;
  micro: ScoresByK;
}

/**
 * Table of one metric (p, r or f1, macro) at every K, one row per system; the best value of each
 * column is bold. A last column gives the micro value at the largest K for reference.
 */
export function metricTable(rows: readonly ResultRow[], metric: 'p' | 'r' | 'f1', name: string): string {
  if (rows.length === 0) return '';
  const ks = ksOf(rows[0].macro);
  const lastK = ks.at(-1)!;
  const best = ks.map((k) => Math.max(...rows.map((r) => r.macro[k][metric])));
  const header = ['system', ...ks.map((k) => `${name}@${k}`), `micro ${name}@${lastK}`];
  const body = rows.map((r) => [
    r.label,
    ...ks.map((k, i) => (r.macro[k][metric] === best[i] && rows.length > 1 ? `**${fmt(r.macro[k][metric])}**` : fmt(r.macro[k][metric]))),
    fmt(r.micro[lastK][metric]),
  ]);
  return mdTable(header, body);
}

/** Row of a sweep table. */
export interface SweepRow {
  parameter: string;
  value: string;
  isBase: boolean;
  macro: ScoresByK;
}

/** Sweep table: F1@K for each value of each parameter, with the change in F1 at the largest K vs the base. */
export function sweepTable(rows: readonly SweepRow[], baseF1AtLastK: number): string {
  if (rows.length === 0) return '';
  const ks = ksOf(rows[0].macro);
  const lastK = ks.at(-1)!;
  const header = ['parameter', 'value', ...ks.map((k) => `F1@${k}`), `ΔF1@${lastK}`];
  const body = rows.map((r) => {
    const delta = r.macro[lastK].f1 - baseF1AtLastK;
    return [
      r.parameter,
      r.isBase ? `**${r.value}** (base)` : r.value,
      ...ks.map((k) => fmt(r.macro[k].f1)),
      r.isBase ? '—' : `${delta >= 0 ? '+' : '−'}${fmt(Math.abs(delta))}`,
    ];
  });
  return mdTable(header, body, ['l', 'l']);
}
