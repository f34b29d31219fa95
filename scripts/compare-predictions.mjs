#!/usr/bin/env node
// Paired comparison of the same systems in two `filmkw experiments` result directories (e.g. the committed
// eval/results/film-dev before and after a KG change): for each system present in both, ΔF1@K (after −
// before) with the 95 % paired bootstrap interval and the documents better / worse (src/eval/compare.ts
// compareRuns, 2,000 resamples, seed 1), from their predictions/*.jsonl. Build first (it reads dist/).
//   node scripts/compare-predictions.mjs BEFORE_DIR AFTER_DIR [--k 5] [--system NAME]...
// Without --system, every system of both directories. Prints one Markdown table row per system.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const mod = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
const { evaluate } = await mod('eval/metrics.js');
const { compareRuns } = await mod('eval/compare.js');

const args = process.argv.slice(2);
const dirs = [];
const systems = [];
let k = 5;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--k') k = Number(args[++i]);
  else if (args[i] === '--system') systems.push(args[++i]);
  else dirs.push(args[i]);
}
if (dirs.length !== 2 || !Number.isInteger(k) || k < 1) {
  process.stderr.write('usage: node scripts/compare-predictions.mjs BEFORE_DIR AFTER_DIR [--k 5] [--system NAME]...\n');
  process.exit(2);
}

/** id → {gold, systems} of every predictions/*.jsonl of a results directory. */
function predictions(dir) {
  const p = join(dir, 'predictions');
  if (!existsSync(p)) {
    process.stderr.write(`compare-predictions: ${p}: no such directory\n`);
    process.exit(3);
  }
  const docs = new Map();
  for (const f of readdirSync(p).filter((x) => x.endsWith('.jsonl')).sort()) {
    for (const line of readFileSync(join(p, f), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const r = JSON.parse(line);
      const d = docs.get(r.id) ?? { gold: r.gold, systems: {} };
      Object.assign(d.systems, r.systems);
      docs.set(r.id, d);
    }
  }
  return docs;
}

const [a, b] = dirs.map(predictions);
const ids = [...a.keys()].filter((id) => b.has(id));
const names = systems.length ? systems : Object.keys(a.get(ids[0]).systems).filter((s) => s in b.get(ids[0]).systems);
const run = (docs, name) => {
  const preds = ids.map((id) => docs.get(id).systems[name] ?? []);
  return { result: evaluate(ids.map((id, i) => ({ id, gold: docs.get(id).gold, predicted: preds[i] })), { ks: [k] }), predictions: preds };
};
const f = (x) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(4);
process.stdout.write(`| system | F1@${k} before | F1@${k} after | ΔF1@${k} [95 % CI] | b / w |\n|---|---:|---:|---|---:|\n`);
for (const name of names) {
  if (!ids.every((id) => name in a.get(id).systems && name in b.get(id).systems)) continue;
  const ra = run(a, name);
  const rb = run(b, name);
  const c = compareRuns(ids, ids.map((id) => a.get(id).gold), ra, rb, { k });
  const before = ra.result.macro[String(k)].f1;
  const after = rb.result.macro[String(k)].f1;
  process.stdout.write(`| ${name} | ${before.toFixed(4)} | ${after.toFixed(4)} | ${f(c.meanDelta)} [${f(c.ci95[0])}, ${f(c.ci95[1])}] | ${c.better} / ${c.worse} |\n`);
}
