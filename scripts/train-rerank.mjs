#!/usr/bin/env node
// Trains the re-ranker of the preset filmkw-rerank (npm run train:rerank; src/eval/rerank-train.ts) on
// the annotated training file and writes models/rerank.json with the file's sha256.
//   --gold FILE   training file (default $FILMKW_DATA/annotated/film-train.jsonl, FILMKW_DATA defaults to
//                 ../shared/data next to the repo). Train on film-train only: film-dev is for choosing.
//   --kg FILE     the merged KG snapshot (default $FILMKW_KG, else $TMPDIR/filmkw-merged.fkg, built from
//                 the three Douban sources when absent, as npm run experiments does)
//   --out FILE    where to write the model (default models/rerank.json; an existing file other than the
//                 default is not overwritten without --force)
//   --cv          also print 5-fold cross-validated macro F1@1..5 on the training file
//   --check       train, write nothing, and compare with the model at --out (default models/rerank.json):
//                 exit 0 when byte-identical, 1 when not (the committed model reproduces from a fresh clone)
// Deterministic: the same file, KG and code give the same model byte for byte.
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const data = resolve(process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data'));
const fail = (msg) => {
  process.stderr.write(`filmkw: train-rerank: ${msg}\n`);
  process.exit(2);
};
let args;
try {
  args = parseArgs({ options: { gold: { type: 'string' }, kg: { type: 'string' }, out: { type: 'string' }, cv: { type: 'boolean' }, force: { type: 'boolean' }, check: { type: 'boolean' } } }).values;
} catch (err) {
  fail(err.message);
}
const gold = resolve(args.gold ?? join(data, 'annotated', 'film-train.jsonl'));
const defaultOut = join(root, 'models', 'rerank.json');
const out = resolve(args.out ?? defaultOut);
if (!existsSync(gold)) fail(`${gold}: no such file (set --gold or FILMKW_DATA)`);
if (args.check && !existsSync(out)) fail(`${out}: no such model to check`);
if (!args.check && out !== defaultOut && existsSync(out) && !args.force) fail(`${out} exists; pass --force to overwrite it`);
if (!existsSync(join(root, 'dist', 'index.js'))) fail('dist/ is missing: run npm run build first');

let kgPath = args.kg ?? process.env.FILMKW_KG ?? join(tmpdir(), 'filmkw-merged.fkg');
if (!existsSync(kgPath)) {
  if (args.kg || process.env.FILMKW_KG) fail(`${kgPath}: no such KG snapshot`);
  const kgData = join(data, 'kg');
  process.stderr.write(`train-rerank: building the merged KG ${kgPath}\n`);
  const r = spawnSync(process.execPath, [join(root, 'bin', 'filmkw'), 'kg', 'import', '--out', kgPath,
    `openkg:${join(kgData, 'openkg-douban-movie')}`, `kgqa:${join(kgData, 'douban-kgqa-small')}`, `douban-csv:${join(kgData, 'douban-movies-2065')}`], { stdio: 'inherit' });
  if (r.status !== 0) fail('building the merged KG failed');
}

const mod = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
const { loadKg } = await mod('kg/load.js');
const { readGold } = await mod('eval/readers.js');
const train = await mod('eval/rerank-train.js');
const kg = await loadKg({ kg: kgPath });
const docs = readGold(gold);
const started = Date.now();
const table = train.trainingTable(docs, kg);
const rows = table.reduce((a, d) => a + d.items.length, 0);
const positives = table.reduce((a, d) => a + d.items.filter((i) => i.label).length, 0);
process.stderr.write(`train-rerank: ${docs.length} documents, ${rows} candidates, ${positives} of ${docs.reduce((a, d) => a + d.gold.length, 0)} gold keywords among them\n`);
const params = { ...train.DEFAULT_TREE_PARAMETERS };
let cv;
// --check of a model trained with --cv recomputes its CV figures (they are part of the file)
const existing = args.check ? JSON.parse(readFileSync(out, 'utf8')) : null;
if (args.cv || existing?.training?.crossValidatedF1) {
  cv = train.crossValidate(table, params).f1.map((x) => Number(x.toFixed(4)));
  process.stderr.write(`train-rerank: 5-fold CV macro F1@1..5 ${cv.join(' ')}\n`);
}
const model = train.fitDocuments(table, params);
const digest = train.fileDigest(gold);
const training = { file: basename(gold), sha256: digest.sha256, bytes: digest.bytes, documents: docs.length, candidates: rows, positives, kgContentHash: kg.contentHash, preset: train.RERANK_PRESET, pool: train.presetPool(), parameters: params };
if (cv) training.crossValidatedF1 = cv;
const json = JSON.stringify({ version: model.version, features: model.features, base: model.base, training, trees: model.trees.map((t) => ({ feature: t.feature, threshold: t.threshold, left: t.left, right: t.right, value: t.value })) });
if (args.check) {
  const same = readFileSync(out, 'utf8') === `${json}\n`;
  process.stderr.write(`train-rerank: ${out} ${same ? 'is byte-identical to the trained model' : 'differs from the trained model (training file, KG or code changed)'}\n`);
  process.exit(same ? 0 : 1);
}
const tmp = `${out}.tmp-${process.pid}`;
writeFileSync(tmp, `${json}\n`);
renameSync(tmp, out);
process.stderr.write(`train-rerank: wrote ${out} (${model.trees.length} trees, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
