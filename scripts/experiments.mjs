#!/usr/bin/env node
// Regenerates the committed experiment results under eval/results/ (npm run experiments):
//   film-dev     ../shared/data/annotated/film-dev.jsonl with the KG
//   csl-dev      ../shared/data/bench/csl-kg/dev.tsv with the same (film) KG — out of domain
//   csl-dev-nokg the same CSL file with an empty KG
// The KG is $FILMKW_KG if set (a snapshot, or `demo` for the bundled demo KG), else the merged snapshot of
// the three public Douban sources in ../shared/data/kg and the bundled demo KG, cached for this code and
// these sources by scripts/merged-kg.mjs ($TMPDIR/filmkw-merged-<fingerprint>.fkg; built when absent, about
// 10 s; README "Build the knowledge graph"). results.json records which KG (by file name and content
// hash, never by path). Nothing is deleted before the build and the KG are ready.
// Data directory: $FILMKW_DATA (default ../shared/data next to the repo). Extra arguments are passed to
// every `filmkw experiments` run, e.g. `npm run experiments -- --only fig6,baselines`.
// Set FILMKW_RUNS=film-dev,csl-dev to run a subset.
import { existsSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureMergedKg } from './merged-kg.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const data = resolve(process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data'));
const extra = process.argv.slice(2);

const runs = [
  { name: 'film-dev', gold: join(data, 'annotated', 'film-dev.jsonl'), format: 'jsonl', kg: true },
  // CSL: no per-document predictions (1000 documents; the tables are what the generalisation check needs).
  { name: 'csl-dev', gold: join(data, 'bench', 'csl-kg', 'dev.tsv'), format: 'csl', kg: true, extra: ['--no-predictions'] },
  { name: 'csl-dev-nokg', gold: join(data, 'bench', 'csl-kg', 'dev.tsv'), format: 'csl', kg: false, extra: ['--no-predictions'] },
];
const only = process.env.FILMKW_RUNS?.split(',').map((s) => s.trim()).filter(Boolean);

const log = (s) => process.stderr.write(`${s}\n`);

const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  log('experiments: npm run build failed; nothing regenerated');
  process.exit(1);
}

/** The KG snapshot to use (undefined = the bundled demo KG, only when asked for with FILMKW_KG=demo). */
function chooseKg() {
  const asked = process.env.FILMKW_KG;
  if (asked === 'demo') return undefined;
  if (asked) {
    if (!existsSync(asked)) {
      log(`experiments: FILMKW_KG=${asked} does not exist`);
      process.exit(3);
    }
    return asked;
  }
  try {
    return ensureMergedKg({ data, log: (s) => log(`experiments: ${s}`) }).path;
  } catch (err) {
    log(`experiments: ${err.message}; nothing regenerated${err.exitCode === 3 ? ' (or FILMKW_KG=<snapshot>, or FILMKW_KG=demo)' : ''}`);
    process.exit(err.exitCode);
  }
}
const kg = chooseKg();
log(`experiments: KG: ${kg ?? 'bundled demo KG (FILMKW_KG=demo)'}`);

let failed = 0;
for (const run of runs) {
  if (only && !only.includes(run.name)) continue;
  if (!existsSync(run.gold)) {
    log(`experiments: skipping ${run.name}: ${run.gold} not found (set FILMKW_DATA)`);
    continue;
  }
  const out = join(root, 'eval', 'results', run.name);
  // Generated files only (no stale charts from earlier configs); hand-written notes such as ANALYSIS.md stay.
  for (const generated of ['results.json', 'results.md', 'charts', 'predictions']) rmSync(join(out, generated), { recursive: true, force: true });
  const args = ['bin/filmkw', 'experiments', '--gold', run.gold, '--format', run.format, '--out', out];
  if (!run.kg) args.push('--no-kg');
  else if (kg) args.push('--kg', kg);
  args.push(...(run.extra ?? []), ...extra);
  log(`\n== ${run.name} ==`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    log(`experiments: ${run.name} failed (exit ${r.status})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
