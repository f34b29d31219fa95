#!/usr/bin/env node
// Trains the re-ranker of the preset filmkw-rerank (npm run train:rerank; src/eval/rerank-train.ts) on
// the annotated training file and writes models/rerank.json with the file's sha256.
//   --gold FILE   training file (default $FILMKW_DATA/annotated/film-train.jsonl, FILMKW_DATA defaults to
//                 ../shared/data next to the repo); repeat it to train on several files together (their documents
//                 in the order given, e.g. film-train then film-train-b; ids must be distinct across them).
//                 Never film-dev: film-dev is for choosing.
//   --kg FILE     the merged KG snapshot (default $FILMKW_KG, else $TMPDIR/filmkw-merged.fkg, built from
//                 the three Douban sources and the demo KG when absent, as npm run experiments does)
//   --out FILE    where to write the model (default models/rerank.json; an existing file other than the
//                 default is not overwritten without --force)
//   --cv          also print 5-fold cross-validated macro F1@1..5 on the training file (always done, and
//                 recorded in the model, when the recipe is written to models/rerank.json)
//   --check       train, write nothing, and compare with the model at --out (default models/rerank.json):
//                 exit 0 when byte-identical, 1 when not (the committed model reproduces from a fresh clone)
// Variants of the recipe (ANALYSIS.md §7; with any of them or --grouped nothing is written unless --out is given):
//   --pool N      train and score only the N best candidates by the graph score (run with rerank.pool=N; a pool
//                 above the preset's reads the candidates with rerank.pool=N, as --set rerank.pool=N does)
//   --trees N --depth N --rate X   tree parameters (--depth at most 12, rerank-model.ts MAX_TREE_DEPTH: the scorer
//                 stores every tree as a complete binary tree of 2^depth leaves)
//   --drop F,G    features set to 0 (as if absent; names of rerank.ts RERANK_FEATURES)
//   --with F,G    optional features to compute and train on (rerank.ts, after RERANK_CORE_FEATURE_COUNT:
//                 positionRank); the model lists them when its trees use them, and --compare's recipe
//                 has them set to 0
//   --set K=V     an option override of the preset when the candidates are read (repeatable, e.g.
//                 --set phrases.maxTokens=2); a model trained so is used with the same overrides
//   --grouped     cross-validate with folds by film (the gold file's "film" field; a document without one is
//                 its own group), not by document index
//   --compare     also cross-validate the committed recipe (or, with --base-drop F,G, it without those
//                 features) on the same folds and print ΔF1@1..5 variant − recipe with the 95 % paired
//                 bootstrap interval (eval/compare.ts compareRuns)
// Deterministic: the same file, KG and code give the same model byte for byte.
// Errors are one `filmkw: train-rerank: …` line with the exit codes of README "Exit codes" (src/errors.ts EXIT):
// 2 usage (bad flag, --depth above the cap), 3 input (missing or bad gold file, KG or model to check), 7 output
// (--out not writable); every check that needs no training runs before the training.
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const data = resolve(process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data'));
if (!existsSync(join(root, 'dist', 'index.js'))) {
  process.stderr.write('filmkw: train-rerank: dist/ is missing: run npm run build first\n');
  process.exit(2); // usage: the exit codes themselves live in dist/errors.js
}
const mod = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
const { EXIT, FilmkwError, writeFailureReason } = await mod('errors.js');
/** Ends with one line (a library message may start with the command's name or hold a line break). */
const fail = (msg, code = EXIT.USAGE) => {
  process.stderr.write(`filmkw: train-rerank: ${String(msg).replace(/^train-rerank: /u, '').replace(/\s*\n\s*/gu, ' ')}\n`);
  process.exit(code);
};
/** One line for an error, as src/cli/main.ts prints it: a FilmkwError exits with its own code, any other with `code`. */
const failWith = (err, code = EXIT.INTERNAL) => {
  if (err instanceof FilmkwError) fail(err.message, err.exitCode);
  fail(code === EXIT.INTERNAL ? `internal error (please report): ${err?.message ?? err}` : err?.message ?? String(err), code);
};
const cannotWrite = (path, err) => fail(`cannot write ${path} (${writeFailureReason(err.code, path) ?? err.code ?? err.message})`, EXIT.OUTPUT);
let args;
try {
  args = parseArgs({ options: { gold: { type: 'string', multiple: true }, kg: { type: 'string' }, out: { type: 'string' }, cv: { type: 'boolean' }, force: { type: 'boolean' }, check: { type: 'boolean' },
    pool: { type: 'string' }, trees: { type: 'string' }, depth: { type: 'string' }, rate: { type: 'string' }, drop: { type: 'string' }, with: { type: 'string' }, 'base-drop': { type: 'string' },
    set: { type: 'string', multiple: true }, grouped: { type: 'boolean' }, compare: { type: 'boolean' } } }).values;
} catch (err) {
  fail(err.message);
}
try {
  await main();
} catch (err) {
  failWith(err);
}

/** Everything after the flags; a thrown error ends as one line (failWith). */
async function main() {
  const golds = (args.gold ?? [join(data, 'annotated', 'film-train.jsonl')]).map((g) => resolve(g));
  const defaultOut = join(root, 'models', 'rerank.json');
  const out = resolve(args.out ?? defaultOut);
  for (const gold of golds) if (!existsSync(gold)) fail(`${gold}: no such file (set --gold or FILMKW_DATA)`, EXIT.INPUT);
  if (new Set(golds).size < golds.length) fail('--gold names the same file twice');
  const { MAX_TREE_DEPTH, zeroRerankModel } = await mod('pipeline/rerank-model.js');
  const number = (name, integer) => {
    if (args[name] === undefined) return undefined;
    const v = Number(args[name]);
    if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) fail(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(args[name])}`);
    return v;
  };
  const list = (name) => (args[name] === undefined ? [] : args[name].split(',').map((f) => f.trim()).filter(Boolean));
  const variant = { pool: number('pool', true), trees: number('trees', true), depth: number('depth', true), rate: number('rate', false), drop: list('drop'), with: list('with') };
  if (variant.depth > MAX_TREE_DEPTH) fail(`--depth ${variant.depth}: at most ${MAX_TREE_DEPTH} (every tree is scored as a complete binary tree of 2^depth leaves; the committed depth is 4)`);
  for (const kv of args.set ?? []) if (kv.indexOf('=') <= 0) fail(`--set ${kv}: expected key=value`);
  const isVariant = args.grouped || golds.length > 1 || (args.set ?? []).length > 0 || Object.values(variant).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (isVariant && args.check) fail('--check compares the committed recipe: drop the variant flags, --grouped and a second --gold');
  if (isVariant && !args.out && !args.cv && !args.compare) fail('a variant without --cv, --compare or --out does nothing');

  const kgPath = args.kg ?? process.env.FILMKW_KG ?? join(tmpdir(), 'filmkw-merged.fkg');
  if (!existsSync(kgPath) && (args.kg || process.env.FILMKW_KG)) fail(`${kgPath}: no such KG snapshot`, EXIT.INPUT);
  // the model to compare with (--check), or the output checked writable, before any training
  let existing = null;
  if (args.check) {
    if (!existsSync(out)) fail(`${out}: no such model to check`, EXIT.INPUT);
    try {
      existing = JSON.parse(readFileSync(out, 'utf8'));
    } catch (err) {
      fail(`${out}: not a model to check (${err instanceof SyntaxError ? `invalid JSON: ${err.message}` : err.code ?? err.message})`, EXIT.INPUT);
    }
  } else if (!isVariant || args.out) {
    const { assertNotAnInput } = await mod('util/files.js');
    assertNotAnInput('train-rerank', '--out', out, [...golds, kgPath]);
    if (existsSync(out) && statSync(out).isDirectory()) cannotWrite(out, { code: 'EISDIR' });
    if (out !== defaultOut && existsSync(out) && !args.force) fail(`${out} exists; pass --force to overwrite it`);
    const probe = `${out}.tmp-${process.pid}`;
    try {
      closeSync(openSync(probe, 'wx'));
      rmSync(probe);
    } catch (err) {
      cannotWrite(out, err);
    }
  }

  const { loadKg } = await mod('kg/load.js');
  const { readGold, decodeText } = await mod('eval/readers.js');
  const train = await mod('eval/rerank-train.js');
  const { parseOverride } = await mod('pipeline/options.js');
  const overrides = {};
  for (const kv of args.set ?? []) {
    try {
      const [key, value] = parseOverride(kv);
      overrides[key] = value;
    } catch (err) {
      failWith(err, EXIT.USAGE);
    }
  }
  // the options and feature names, before the KG is loaded
  let presetPool;
  try {
    presetPool = train.presetPool(overrides);
    train.restrictTable([], { drop: [...variant.drop, ...list('base-drop')] });
    zeroRerankModel(variant.with);
  } catch (err) {
    failWith(err, EXIT.USAGE);
  }
  // a pool above the preset's: the candidates are read with that pool (a smaller one is cut from the table)
  if (variant.pool > presetPool) {
    overrides['rerank.pool'] = variant.pool;
    presetPool = variant.pool;
  }
  const pool = variant.pool ?? presetPool;
  const docs = [];
  // per file: its documents and its lines (the "film" field of --grouped)
  const files = golds.map((gold) => {
    const read = readGold(gold);
    docs.push(...read);
    return { gold, docs: read };
  });
  const seen = new Map();
  for (const { gold, docs: read } of files) {
    for (const d of read) {
      if (seen.has(d.id)) fail(`${gold}:${d.line}: id ${JSON.stringify(d.id)} is also in ${seen.get(d.id)}`, EXIT.INPUT);
      seen.set(d.id, `${basename(gold)}:${d.line}`);
    }
  }
  if (!existsSync(kgPath)) {
    const kgData = join(data, 'kg');
    process.stderr.write(`train-rerank: building the merged KG ${kgPath}\n`);
    const r = spawnSync(process.execPath, [join(root, 'bin', 'filmkw'), 'kg', 'import', '--out', kgPath,
      `openkg:${join(kgData, 'openkg-douban-movie')}`, `kgqa:${join(kgData, 'douban-kgqa-small')}`, `douban-csv:${join(kgData, 'douban-movies-2065')}`, 'demo'], { stdio: 'inherit' });
    if (r.status !== 0) fail('building the merged KG failed', r.status || EXIT.INTERNAL);
  }
  const kg = await loadKg({ kg: kgPath });
  const started = Date.now();
  let table;
  try {
    table = train.trainingTable(docs, kg, overrides, variant.with);
  } catch (err) {
    failWith(err, EXIT.USAGE);
  }
  const rows = table.reduce((a, d) => a + d.items.length, 0);
  const positives = table.reduce((a, d) => a + d.items.filter((i) => i.label).length, 0);
  process.stderr.write(`train-rerank: ${docs.length} documents${files.length > 1 ? ` (${files.map((f) => `${basename(f.gold)} ${f.docs.length}`).join(' + ')})` : ''}, ${rows} candidates, ${positives} of ${docs.reduce((a, d) => a + d.gold.length, 0)} gold keywords among them\n`);
  const recipe = { ...train.DEFAULT_TREE_PARAMETERS };
  const params = { ...recipe, ...(variant.trees ? { trees: variant.trees } : {}), ...(variant.depth ? { depth: variant.depth } : {}), ...(variant.rate ? { rate: variant.rate } : {}) };
  let variantTable;
  try {
    variantTable = train.restrictTable(table, { pool, drop: variant.drop });
  } catch (err) {
    failWith(err, EXIT.USAGE);
  }
  let foldOf;
  if (args.grouped) {
    // the "film" of each document's line (readGold checked every line); none, or not a string: its own group
    foldOf = train.filmFolds(files.flatMap(({ gold, docs: read }) => {
      const lines = decodeText(readFileSync(gold)).replace(/^\uFEFF/u, '').split(/\r?\n/u);
      return read.map((d) => {
        const o = JSON.parse(lines[d.line - 1]);
        return Object.hasOwn(o, 'film') && typeof o.film === 'string' ? o.film : d.id;
      });
    }));
  }
  const fmt4 = (x) => x.toFixed(4);
  let cv;
  // --check of a model trained with --cv recomputes its CV figures (they are part of the file), and so
  // does the recipe written to the default path: models/rerank.json records them, so a plain
  // `npm run train:rerank` rewrites the committed file byte for byte
  if (args.cv || args.compare || existing?.training?.crossValidatedF1 || (!isVariant && out === resolve(defaultOut))) {
    const run = train.crossValidate(variantTable, params, 5, foldOf);
    cv = run.f1.map((x) => Number(x.toFixed(4)));
    process.stderr.write(`train-rerank: 5-fold CV${args.grouped ? ' (folds by film)' : ''} macro F1@1..5 ${cv.join(' ')}\n`);
    if (args.compare) {
      const { compareRuns } = await mod('eval/compare.js');
      let baseTable;
      try {
        baseTable = train.restrictTable(Object.keys(overrides).length > 0 ? train.trainingTable(docs, kg) : table, { drop: [...list('base-drop'), ...variant.with] });
      } catch (err) {
        failWith(err, EXIT.USAGE);
      }
      const base = train.crossValidate(baseTable, recipe, 5, foldOf);
      process.stderr.write(`train-rerank: the recipe${args['base-drop'] ? ` without ${args['base-drop']}` : ''}, same folds: macro F1@1..5 ${base.f1.map(fmt4).join(' ')}\n`);
      const ids = docs.map((d) => d.id);
      const golds = docs.map((d) => d.gold);
      for (let k = 1; k <= 5; k++) {
        const c = compareRuns(ids, golds, { result: base.result, predictions: base.predicted }, { result: run.result, predictions: run.predicted }, { k });
        process.stderr.write(`train-rerank: ΔF1@${k} ${c.meanDelta >= 0 ? '+' : ''}${fmt4(c.meanDelta)} [${fmt4(c.ci95[0])}, ${fmt4(c.ci95[1])}], ${c.better} better / ${c.worse} worse\n`);
      }
    }
  }
  if (isVariant && !args.out) process.exit(0);
  const model = train.fitDocuments(variantTable, params);
  // one file: its name, sha256 and size (the committed model's fields); several: the list of them
  const digests = golds.map((gold) => ({ file: basename(gold), ...train.fileDigest(gold) }));
  const training = { ...(digests.length === 1 ? digests[0] : { files: digests }), documents: docs.length, candidates: variantTable.reduce((a, d) => a + d.items.length, 0), positives: variantTable.reduce((a, d) => a + d.items.filter((i) => i.label).length, 0), kgContentHash: kg.contentHash, preset: train.RERANK_PRESET, pool, parameters: params };
  if (variant.drop.length > 0) training.dropped = variant.drop;
  if (Object.keys(overrides).length > 0) training.overrides = overrides;
  if (cv && !args.grouped) training.crossValidatedF1 = cv;
  const json = JSON.stringify({ version: model.version, features: model.features, base: model.base, training, trees: model.trees.map((t) => ({ feature: t.feature, threshold: t.threshold, left: t.left, right: t.right, value: t.value })) });
  if (args.check) {
    const same = readFileSync(out, 'utf8') === `${json}\n`;
    process.stderr.write(`train-rerank: ${out} ${same ? 'is byte-identical to the trained model' : 'differs from the trained model (training file, KG or code changed)'}\n`);
    process.exit(same ? 0 : 1);
  }
  const tmp = `${out}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, `${json}\n`);
    renameSync(tmp, out);
  } catch (err) {
    rmSync(tmp, { force: true });
    cannotWrite(out, err);
  }
  process.stderr.write(`train-rerank: wrote ${out} (${model.trees.length} trees, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}
