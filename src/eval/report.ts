/**
 * Plain-text and Markdown rendering of evaluation results: the `filmkw eval` table and the tables of
 * results.md written by `filmkw experiments`. Pure functions of the results; numbers are printed with
 * a fixed number of decimals so regenerated files diff cleanly.
 */
import type { EvalOptions, EvalResult, GroupResult, ScoresByK } from './metrics.js';
import type { ResultsJson, ResultStep, ResultSystem } from './experiments.js';

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

/** The macro F1@K of each group, for `filmkw eval --by <field>`. */
export function groupTable(field: string, groups: readonly GroupResult[]): string {
  const ks = groups.length > 0 ? ksOf(groups[0].macro) : [];
  // the group last: its values may be of any display width
  const rows = [`macro F1 by ${field}:`, `   docs │ ${ks.map((k) => `F1@${k}`.padStart(6)).join('  ')} │ ${field}`];
  for (const g of groups) rows.push(`  ${String(g.docs).padStart(5)} │ ${ks.map((k) => fmt(g.macro[k].f1)).join('  ')} │ ${g.group}`);
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

/** Short form of a sha256 hex for tables. */
const shortHash = (h: string): string => h.slice(0, 12);

/** Describe the evaluation protocol in one paragraph (results.md header). */
export function protocolLine(e: EvalOptions): string {
  const parts = [
    `K = ${e.ks.join(', ')}`,
    'macro average of per-document P, R and F1 (eq. 11 of the paper); micro in results.json',
    `precision ÷ ${e.precisionDenominator === 'k' ? 'K' : 'number returned'}`,
    'exact match after NFKC, trim and Latin lower-case; predictions de-duplicated after normalisation',
  ];
  if (e.traditionalSimplified) parts.push('traditional ↔ simplified folded');
  if (e.kgAliases) parts.push('KG aliases match');
  return parts.join('; ');
}

/** Render results.md from results.json (pure; charts are referenced by relative path). */
export function resultsMarkdown(results: ResultsJson, charts: { groups: Record<string, string>; sweeps: Record<string, string> }): string {
  const out: string[] = [];
  const ks = results.eval.ks;
  const lastK = ks.at(-1)!;
  out.push(`# Experiments: ${results.experiment}\n`);
  if (results.description) out.push(`${results.description}\n`);
  out.push(
    [
      `- Gold: \`${results.dataset.name}\` (${results.dataset.format}, ${results.dataset.docs} documents, sha256 \`${shortHash(results.dataset.sha256)}…\`)`,
      results.kg
        ? `- KG: ${results.kg.source} (${results.kg.entities} entities, content hash \`${shortHash(results.kg.contentHash)}…\`)`
        : '- KG: none',
      `- ${results.package.name} ${results.package.version}, run on ${results.date}`,
      `- Protocol: ${protocolLine(results.eval)} (see eval/README.md)`,
      '- Regenerate: `npm run experiments` (full resolved options of every system are in results.json)',
    ].join('\n') + '\n',
  );

  // Summary: every distinct system of the groups, best F1@lastK first.
  // One row per distinct system (same preset and overrides, or same baseline); labels joined with " = ".
  const seen = new Map<string, ResultSystem>();
  for (const g of results.groups) {
    for (const s of g.systems) {
      const key = s.baseline !== undefined ? `b:${s.baseline}` : `p:${s.preset}:${JSON.stringify(s.overrides ?? {})}`;
      const prev = seen.get(key);
      if (!prev) seen.set(key, s);
      else if (!prev.label.split(' = ').includes(s.label)) seen.set(key, { ...prev, label: `${prev.label} = ${s.label}` });
    }
  }
  if (seen.size > 0) {
    const rows = [...seen.values()].sort((a, b) => b.macro[lastK].f1 - a.macro[lastK].f1 || a.label.localeCompare(b.label));
    out.push(`## Summary (macro, K = ${lastK})\n`);
    out.push(
      mdTable(
        ['system', 'kind', `P@${lastK}`, `R@${lastK}`, `F1@${lastK}`, 'best F1@K', 'seconds'],
        rows.map((s) => {
          const bestK = ksOf(s.macro).reduce((a, k) => (s.macro[k].f1 > s.macro[a].f1 ? k : a));
          return [
            s.label,
            s.baseline !== undefined ? 'baseline' : `preset ${s.preset}${s.overrides && Object.keys(s.overrides).length ? ' + overrides' : ''}`,
            fmt(s.macro[lastK].p),
            fmt(s.macro[lastK].r),
            fmt(s.macro[lastK].f1),
            `${fmt(s.macro[bestK].f1)} (K=${bestK})`,
            s.seconds.toFixed(1),
          ];
        }),
        ['l', 'l'],
      ),
    );
  }

  for (const g of results.groups) {
    out.push(`## ${g.title}\n`);
    if (g.description) out.push(`${g.description}\n`);
    if (charts.groups[g.id]) out.push(`![${g.title}: P, R and F1 against K](${charts.groups[g.id]})\n`);
    const rows: ResultRow[] = g.systems.map((s) => ({ label: s.label, macro: s.macro, micro: s.micro }));
    out.push('F1 (macro):\n');
    out.push(metricTable(rows, 'f1', 'F1'));
    out.push('\nPrecision (macro):\n');
    out.push(metricTable(rows, 'p', 'P'));
    out.push('\nRecall (macro):\n');
    out.push(metricTable(rows, 'r', 'R'));
    if (g.steps && g.steps.length > 0) out.push('\n' + stepsMarkdown(g.steps));
    const overrides = g.systems.filter((s) => s.overrides && Object.keys(s.overrides).length > 0);
    if (overrides.length > 0) {
      out.push('\nSystems with overrides:\n');
      out.push(overrides.map((s) => `- ${s.label}: preset \`${s.preset}\` + \`${JSON.stringify(s.overrides)}\``).join('\n') + '\n');
    }
    out.push('');
  }

  for (const sw of results.sweeps) {
    out.push(`## ${sw.title}\n`);
    if (sw.description) out.push(`${sw.description}\n`);
    out.push(`Base: ${sw.base.label} (preset \`${sw.base.preset}\`${sw.base.overrides && Object.keys(sw.base.overrides).length ? ` + \`${JSON.stringify(sw.base.overrides)}\`` : ''}), F1@${lastK} = ${fmt(sw.base.macro[lastK].f1)}. Each row changes one option; everything else stays at the base.\n`);
    if (charts.sweeps[sw.id]) out.push(`![${sw.title}](${charts.sweeps[sw.id]})\n`);
    out.push(sweepTable(sw.points.map((p) => ({ parameter: p.axis, value: p.value, isBase: p.isBase, macro: p.system.macro })), sw.base.macro[lastK].f1));
    // Best value per parameter.
    const axes = [...new Set(sw.points.map((p) => p.axis))];
    out.push(`\nBest value per parameter (by F1@${lastK}; ties keep the base):\n`);
    out.push(
      mdTable(
        ['parameter', 'best value', `F1@${lastK}`, 'Δ vs base', `mean F1@1..${lastK}`],
        axes.map((axis) => {
          const pts = sw.points.filter((p) => p.axis === axis);
          const best = pts.reduce((a, p) => (p.system.macro[lastK].f1 > a.system.macro[lastK].f1 + 1e-12 || (p.isBase && Math.abs(p.system.macro[lastK].f1 - a.system.macro[lastK].f1) <= 1e-12) ? p : a));
          const delta = best.system.macro[lastK].f1 - sw.base.macro[lastK].f1;
          const meanF1 = ks.reduce((acc, k) => acc + best.system.macro[k].f1, 0) / ks.length;
          return [axis, best.isBase ? `${best.value} (base)` : best.value, fmt(best.system.macro[lastK].f1), `${delta >= 0 ? '+' : '−'}${fmt(Math.abs(delta))}`, fmt(meanF1)];
        }),
        ['l', 'l'],
      ),
    );
    out.push('');
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n');
}

const escapeHtml = (t: string): string => t.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;').replace(/"/gu, '&quot;');

/**
 * One HTML page with every chart of an experiment run (`report.html`): the charts' SVG inline, each under
 * its title and description, so the whole run opens in any browser from one file, without the network or
 * a plug-in; the tables stay in results.md. Pure.
 * @param svgs the SVG of each group and sweep chart, by id
 */
export function resultsHtml(results: ResultsJson, svgs: { groups: Record<string, string>; sweeps: Record<string, string> }): string {
  const section = (title: string, description: string | undefined, svg: string | undefined) =>
    svg === undefined ? '' : `<section>\n<h2>${escapeHtml(title)}</h2>\n${description ? `<p>${escapeHtml(description)}</p>\n` : ''}<figure>${svg}</figure>\n</section>\n`;
  const kg = results.kg ? `KG: ${results.kg.source} (${results.kg.entities} entities)` : 'KG: none';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(`Experiments: ${results.experiment} · ${results.dataset.name}`)}</title>`,
    '<style>body{font-family:Helvetica,Arial,"Noto Sans CJK SC",sans-serif;max-width:1000px;margin:24px auto;padding:0 16px;color:#1f2430}h2{margin-top:36px;font-size:18px}p{line-height:1.5;color:#444}figure{margin:12px 0;overflow-x:auto}svg{max-width:none}</style>',
    '</head>',
    '<body>',
    `<h1>${escapeHtml(`Experiments: ${results.experiment}`)}</h1>`,
    results.description ? `<p>${escapeHtml(results.description)}</p>` : '',
    `<p>${escapeHtml(`Gold: ${results.dataset.name} (${results.dataset.docs} documents) · ${kg} · ${results.package.name} ${results.package.version}, run on ${results.date} · protocol: ${protocolLine(results.eval)}. The tables are in results.md next to this page.`)}</p>`,
    ...results.groups.map((g) => section(g.title, g.description, svgs.groups[g.id])),
    ...results.sweeps.map((sw) => section(sw.title, sw.description, svgs.sweeps[sw.id])),
    '</body>',
    '</html>',
  ]
    .filter((l) => l !== '')
    .join('\n') + '\n';
}

const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${fmt(Math.abs(x))}`;
const words = (list: readonly { word: string; docs: number }[], n = 6): string =>
  list.length === 0 ? '—' : list.slice(0, n).map((w) => `${w.word} (${w.docs})`).join(', ');

/** Markdown of the paired step comparisons of a ladder. */
export function stepsMarkdown(steps: readonly ResultStep[]): string {
  const k = steps[0].k;
  const rows = steps.map((s) => [
    `${s.from} → ${s.to}`,
    `${s.better} / ${s.worse} / ${s.same}`,
    `${signed(s.meanDelta)} [${signed(s.ci95[0])}, ${signed(s.ci95[1])}]`,
    words(s.goldGained),
    words(s.goldLost),
    words(s.noiseGained),
  ]);
  return (
    `Step by step (paired, K = ${k}; documents better / worse / unchanged in F1@${k}; mean ΔF1@${k} with a 95% bootstrap interval; ` +
    'words that entered or left the top K, with the number of documents):\n\n' +
    mdTable(['step', 'better / worse / same', `ΔF1@${k} [95% CI]`, 'gold gained', 'gold lost', 'non-gold gained'], rows, ['l', 'l', 'l', 'l', 'l', 'l'])
  );
}
