/**
 * `filmkw glossary [TERM...] [--json]`: the explain terms and the re-ranker's features in plain words
 * (src/pipeline/glossary.ts, the same sentences as the viewer's tooltips and the README's table).
 */
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { FEATURE_GLOSSARY, TERM_GLOSSARY } from '../../pipeline/glossary.js';

interface Entry {
  name: string;
  /** `term` (of the explain output) or `feature` (of the re-ranker; `idf` and `phrase` are both). */
  type: 'term' | 'feature';
  label: string;
  means: string;
}

/** Every entry: the explain terms first, then the features. */
function entries(): Entry[] {
  return [
    ...Object.entries(TERM_GLOSSARY).map(([name, t]): Entry => ({ name, type: 'term', label: t.label, means: t.means })),
    ...Object.entries(FEATURE_GLOSSARY).map(([name, g]): Entry => ({ name, type: 'feature', label: name, means: g.means })),
  ];
}

export function runGlossary(terms: string[], flags: { json?: boolean }): void {
  const all = entries();
  const matching = (t: string) => all.filter((e) => e.name === t || e.label === t);
  const unknown = terms.filter((t) => matching(t).length === 0);
  if (unknown.length > 0) throw usageError(`glossary: unknown term ${unknown.map((t) => JSON.stringify(t)).join(', ')} (known: ${[...new Set(all.map((e) => e.name))].join(', ')})`);
  const shown = terms.length > 0 ? [...new Set(terms.flatMap(matching))] : all;
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(shown)}\n`);
    return;
  }
  const name = (e: Entry) => (e.type === 'feature' ? `${e.label} (feature)` : e.label);
  const width = Math.max(...shown.map((e) => name(e).length));
  process.stdout.write(shown.map((e) => `${name(e).padEnd(width)}  ${e.means}\n`).join(''));
}

/** Registers `filmkw glossary`. */
export function registerGlossary(program: Command): void {
  program
    .command('glossary')
    .description('the terms of --explain and the re-ranker\'s features in plain words (as the viewer\'s tooltips and the README)')
    .argument('[term...]', 'only these terms or features (e.g. bias titleMarks); default: all')
    .option('--json', 'print [{"name", "type": "term"|"feature", "label", "means"}] on one line', false)
    .action((terms: string[], flags: { json?: boolean }) => runGlossary(terms, flags));
}
