#!/usr/bin/env node
// Trains the re-ranker of the preset filmkw-rerank (npm run train:rerank; src/eval/rerank-train.ts) and writes
// models/rerank.json with the training files' sha256 and the recipe (src/eval/rerank-train.ts RERANK_RECIPE).
//   --gold FILE   training file, repeatable (default $FILMKW_DATA/annotated/film-train.jsonl and film-train-b.jsonl,
//                 FILMKW_DATA defaults to ../shared/data next to the repo): their documents together, in the order
//                 given; ids must be distinct across them. Never film-dev: film-dev is for choosing.
//   --film-field F --title-field F   the fields of each document's context (default doubanId, title; a field that
//                 no record of a file has gives that file's documents no context)
//   --corpus-stats FILE|none   corpus statistics of the corpus features (default models/corpus-stats.tsv, built by
//                 npm run corpus:stats)
//   --context-dropout P --corpus-dropout Q   shares of the documents trained on without their context / with
//                 the corpus features off (default the recipe's)
//   --kg FILE     the merged KG snapshot (default $FILMKW_KG, else the merged KG of the three Douban sources
//                 and the demo KG cached for this code by scripts/merged-kg.mjs, $TMPDIR/filmkw-merged-<fingerprint>.fkg,
//                 built when absent, as npm run experiments does)
//   --out FILE    where to write the model (default models/rerank.json; an existing file other than the
//                 default is not overwritten without --force)
//   --cv          also print 5-fold cross-validated macro F1@1..5 (always done, and recorded in the model, when
//                 the recipe is written to models/rerank.json): the held-out documents read with their context,
//                 without it, and without context and corpus statistics; folds by document, and by film
//   --check       train, write nothing, and compare with the model at --out (default models/rerank.json):
//                 exit 0 when byte-identical, 1 when not (the committed model reproduces from a fresh clone)
// Variants of the recipe (ANALYSIS.md §7–8; with any of them or --grouped nothing is written unless --out is given):
//   --pool N      train and score only the N best candidates by the graph score (run with rerank.pool=N; a pool
//                 above the preset's reads the candidates with rerank.pool=N, as --set rerank.pool=N does)
//   --trees N --depth N --rate X   tree parameters (--depth at most 12, rerank-model.ts MAX_TREE_DEPTH: the scorer
//                 stores every tree as a complete binary tree of 2^depth leaves)
//   --drop F,G    features set to 0 (as if absent; names of rerank-features.ts RERANK_FEATURES, or `context` /
//                 `corpus` for those families)
//   --with F,G    further optional features to compute and train on (positionRank); the model lists them when its
//                 trees use them, and --compare's recipe has them set to 0
//   --set K=V     an option override of the preset when the candidates are read (repeatable, e.g.
//                 --set phrases.maxTokens=2); a model trained so is used with the same overrides
//   --grouped     cross-validate with folds by film (the gold file's "film" field; a document without one is
//                 its own group), not by document index
//   --compare     also cross-validate the committed recipe (or, with --base-drop F,G, it without those
//                 features) on the same folds and print ΔF1@1..5 variant − recipe with the 95 % paired
//                 bootstrap interval (eval/compare.ts compareRuns), with and without the context
// Deterministic: the same files, KG, table and code give the same model byte for byte.
// Errors are one `filmkw: train-rerank: …` line with the exit codes of README "Exit codes" (src/errors.ts EXIT):
// 2 usage (bad flag, --depth above the cap), 3 input (missing or bad gold file, KG, table or model to check),
// 7 output (--out not writable); every check that needs no training runs before the training.
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
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
    set: { type: 'string', multiple: true }, grouped: { type: 'boolean' }, compare: { type: 'boolean' },
    'film-field': { type: 'string' }, 'title-field': { type: 'string' }, 'corpus-stats': { type: 'string' }, 'context-dropout': { type: 'string' }, 'corpus-dropout': { type: 'string' } } }).values;
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
  const train = await mod('eval/rerank-train.js');
  const recipe = train.RERANK_RECIPE;
  const golds = (args.gold ?? recipe.gold.map((f) => join(data, 'annotated', f))).map((g) => resolve(g));
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
  const share = (name, fallback) => {
    if (args[name] === undefined) return fallback;
    const v = Number(args[name]);
    if (args[name].trim() === '' || !Number.isFinite(v) || v < 0 || v > 1) fail(`--${name} must be a share from 0 to 1, got ${JSON.stringify(args[name])}`);
    return v;
  };
  const list = (name) => (args[name] === undefined ? [] : args[name].split(',').map((f) => f.trim()).filter(Boolean));
  const families = { context: train.CONTEXT_FEATURES, corpus: train.CORPUS_FEATURES };
  const features = (name) => list(name).flatMap((f) => (Object.hasOwn(families, f) ? families[f] : [f]));
  const variant = { pool: number('pool', true), trees: number('trees', true), depth: number('depth', true), rate: number('rate', false), drop: features('drop'), with: list('with') };
  const dropout = { context: share('context-dropout', recipe.dropout.context), corpus: share('corpus-dropout', recipe.dropout.corpus), seed: recipe.dropout.seed };
  if (variant.depth > MAX_TREE_DEPTH) fail(`--depth ${variant.depth}: at most ${MAX_TREE_DEPTH} (every tree is scored as a complete binary tree of 2^depth leaves; the committed depth is 4)`);
  for (const kv of args.set ?? []) if (kv.indexOf('=') <= 0) fail(`--set ${kv}: expected key=value`);
  const recipeFlags = ['context-dropout', 'corpus-dropout', 'corpus-stats', 'film-field', 'title-field'];
  const isVariant = args.grouped || (args.set ?? []).length > 0 || recipeFlags.some((f) => args[f] !== undefined) || Object.values(variant).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (isVariant && args.check) fail('--check compares the committed recipe: drop the variant flags and --grouped');
  if (isVariant && !args.out && !args.cv && !args.compare) fail('a variant without --cv, --compare or --out does nothing');

  const { mergedKgPath, ensureMergedKg } = await import('./merged-kg.mjs');
  const named = args.kg ?? process.env.FILMKW_KG;
  let kgPath = named;
  if (named === undefined) {
    try {
      kgPath = mergedKgPath({ data });
    } catch (err) {
      fail(err.message, EXIT.INPUT);
    }
  }
  if (!existsSync(kgPath) && named !== undefined) fail(`${kgPath}: no such KG snapshot`, EXIT.INPUT);
  const statsArg = args['corpus-stats'] ?? join(root, 'models', 'corpus-stats.tsv');
  const statsPath = statsArg === 'none' ? null : resolve(statsArg);
  if (statsPath && !existsSync(statsPath)) fail(`${statsPath}: no such corpus statistics (build them with npm run corpus:stats, or pass --corpus-stats none)`, EXIT.INPUT);
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
    assertNotAnInput('train-rerank', '--out', out, [...golds, kgPath, ...(statsPath ? [statsPath] : [])]);
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
  const { loadCorpusStats } = await mod('pipeline/corpus-stats.js');
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
  const optional = [...recipe.optional, ...variant.with];
  // the options and feature names, before the KG is loaded
  let presetPool;
  try {
    presetPool = train.presetPool(overrides);
    train.restrictTable([], { drop: [...variant.drop, ...features('base-drop')] });
    zeroRerankModel(optional);
  } catch (err) {
    failWith(err, EXIT.USAGE);
  }
  // a pool above the preset's: the candidates are read with that pool (a smaller one is cut from the table)
  if (variant.pool > presetPool) {
    overrides['rerank.pool'] = variant.pool;
    presetPool = variant.pool;
  }
  const pool = variant.pool ?? presetPool;
  const filmField = args['film-field'] ?? recipe.filmField;
  const titleField = args['title-field'] ?? recipe.titleField;
  // per file: its documents (with their context when the file has the fields) and its lines (the "film" of --grouped)
  const docs = [];
  const files = golds.map((gold) => {
    const lines = decodeText(readFileSync(gold)).replace(/^\uFEFF/u, '').split(/\r?\n/u);
    const has = (field) => field !== '' && lines.some((l) => l.includes(`"${field}"`));
    const read = readGold(gold, { filmField: has(filmField) ? filmField : '', titleField: has(titleField) ? titleField : '' });
    docs.push(...read);
    return { gold, docs: read, lines };
  });
  const seen = new Map();
  for (const { gold, docs: read } of files) {
    for (const d of read) {
      if (seen.has(d.id)) fail(`${gold}:${d.line}: id ${JSON.stringify(d.id)} is also in ${seen.get(d.id)}`, EXIT.INPUT);
      seen.set(d.id, `${basename(gold)}:${d.line}`);
    }
  }
  let stats = null;
  try {
    stats = statsPath ? loadCorpusStats(statsPath) : null;
  } catch (err) {
    failWith(err, EXIT.INPUT);
  }
  if (named === undefined) {
    try {
      kgPath = ensureMergedKg({ data, log: (s) => process.stderr.write(`train-rerank: ${s}\n`), stdio: 'inherit' }).path;
    } catch (err) {
      fail(err.message, err.exitCode ?? EXIT.INTERNAL);
    }
  }
  const kg = await loadKg({ kg: kgPath });
  // the table's candidates come from the KG it was counted on: a table of another KG still works, but it is not the recipe's
  const statsKg = stats?.header?.kgContentHash;
  if (statsKg && statsKg !== kg.contentHash) process.stderr.write(`train-rerank: WARNING: ${basename(statsPath)} was counted on the KG ${String(statsKg).slice(0, 12)}…, this KG is ${kg.contentHash.slice(0, 12)}…: rebuild it with npm run corpus:stats (same KG) first\n`);
  const started = Date.now();
  let read;
  try {
    read = train.readings(docs, kg, overrides, optional, stats);
  } catch (err) {
    failWith(err, EXIT.USAGE);
  }
  const rows = read.withContext.reduce((a, d) => a + d.items.length, 0);
  const positives = read.withContext.reduce((a, d) => a + d.items.filter((i) => i.label).length, 0);
  const withFilm = docs.filter((d) => d.film !== undefined).length;
  process.stderr.write(`train-rerank: ${docs.length} documents${files.length > 1 ? ` (${files.map((f) => `${basename(f.gold)} ${f.docs.length}`).join(' + ')})` : ''}, ${withFilm} with a film, ${rows} candidates, ${positives} of ${docs.reduce((a, d) => a + d.gold.length, 0)} gold keywords among them\n`);
  const params = { ...train.DEFAULT_TREE_PARAMETERS, ...(variant.trees ? { trees: variant.trees } : {}), ...(variant.depth ? { depth: variant.depth } : {}), ...(variant.rate ? { rate: variant.rate } : {}) };
  const restricted = (r, v) => ({ withContext: train.restrictTable(r.withContext, v), withoutContext: train.restrictTable(r.withoutContext, v), bare: train.restrictTable(r.bare, v) });
  let readingsOf;
  try {
    readingsOf = restricted(read, { pool, drop: variant.drop });
  } catch (err) {
    failWith(err, EXIT.USAGE);
  }
  const trainTable = train.dropoutTable(readingsOf, dropout);
  // the "film" of each document's line (readGold checked every line); none, or not a string: its own group
  const films = files.flatMap(({ docs: fileDocs, lines }) =>
    fileDocs.map((d) => {
      const o = JSON.parse(lines[d.line - 1]);
      return Object.hasOwn(o, 'film') && typeof o.film === 'string' ? o.film : d.id;
    }),
  );
  const fmt4 = (x) => x.toFixed(4);
  const evals = (r) => [r.withContext, r.withoutContext, r.bare];
  const READ_AS = ['with context', 'without context', 'without context or corpus statistics'];
  /** The CV of the variant, printed: F1@1..5 per reading of the held-out documents. */
  const crossValidated = (foldOf, scheme) => {
    const runs = train.crossValidateOn(trainTable, evals(readingsOf), params, 5, foldOf);
    runs.forEach((run, i) => process.stderr.write(`train-rerank: 5-fold CV${scheme} macro F1@1..5 ${READ_AS[i]}: ${run.f1.map(fmt4).join(' ')}\n`));
    return runs;
  };
  const round = (runs) => ({ withContext: runs[0].f1.map((x) => Number(x.toFixed(4))), withoutContext: runs[1].f1.map((x) => Number(x.toFixed(4))), bare: runs[2].f1.map((x) => Number(x.toFixed(4))) });
  let cv;
  let cvByFilm;
  // --check of a model trained with --cv recomputes its CV figures (they are part of the file), and so
  // does the recipe written to the default path: models/rerank.json records them, so a plain
  // `npm run train:rerank` rewrites the committed file byte for byte
  if (args.cv || args.compare || existing?.training?.crossValidatedF1 || (!isVariant && out === resolve(defaultOut))) {
    const foldOf = args.grouped ? train.filmFolds(films) : undefined;
    const runs = crossValidated(foldOf, args.grouped ? ' (folds by film)' : '');
    if (!args.grouped) cv = round(runs);
    if (!isVariant) cvByFilm = round(crossValidated(train.filmFolds(films), ' (folds by film)'));
    if (args.compare) {
      const { compareRuns } = await mod('eval/compare.js');
      let baseReadings;
      try {
        const baseRead = Object.keys(overrides).length > 0 ? train.readings(docs, kg, {}, recipe.optional, stats) : read;
        baseReadings = restricted(baseRead, { drop: [...features('base-drop'), ...variant.with] });
      } catch (err) {
        failWith(err, EXIT.USAGE);
      }
      const base = train.crossValidateOn(train.dropoutTable(baseReadings, recipe.dropout), evals(baseReadings), train.DEFAULT_TREE_PARAMETERS, 5, foldOf);
      const ids = docs.map((d) => d.id);
      const goldLists = docs.map((d) => d.gold);
      for (const [i, what] of [[0, READ_AS[0]], [1, READ_AS[1]]]) {
        process.stderr.write(`train-rerank: the recipe${args['base-drop'] ? ` without ${args['base-drop']}` : ''}, same folds, ${what}: macro F1@1..5 ${base[i].f1.map(fmt4).join(' ')}\n`);
        for (let k = 1; k <= 5; k++) {
          const c = compareRuns(ids, goldLists, { result: base[i].result, predictions: base[i].predicted }, { result: runs[i].result, predictions: runs[i].predicted }, { k });
          process.stderr.write(`train-rerank: ${what}: ΔF1@${k} ${c.meanDelta >= 0 ? '+' : ''}${fmt4(c.meanDelta)} [${fmt4(c.ci95[0])}, ${fmt4(c.ci95[1])}], ${c.better} better / ${c.worse} worse\n`);
        }
      }
    }
  }
  if (isVariant && !args.out) process.exit(0);
  const model = train.fitDocuments(trainTable, params);
  // one file: its name, sha256 and size; several: the list of them
  const digests = golds.map((gold) => ({ file: basename(gold), ...train.fileDigest(gold) }));
  const training = {
    ...(digests.length === 1 ? digests[0] : { files: digests }),
    documents: docs.length,
    candidates: trainTable.reduce((a, d) => a + d.items.length, 0),
    positives: trainTable.reduce((a, d) => a + d.items.filter((i) => i.label).length, 0),
    kgContentHash: kg.contentHash,
    preset: train.RERANK_PRESET,
    pool,
    parameters: params,
    context: { filmField, titleField, documentsWithFilm: withFilm },
    corpusStats: stats ? { file: basename(statsPath), sha256: stats.contentHash, documents: stats.docs } : null,
    dropout,
  };
  if (variant.drop.length > 0) training.dropped = variant.drop;
  if (Object.keys(overrides).length > 0) training.overrides = overrides;
  if (cv) training.crossValidatedF1 = cv;
  if (cvByFilm) training.crossValidatedF1ByFilm = cvByFilm;
  const json = JSON.stringify({ version: model.version, features: model.features, base: model.base, training, trees: model.trees.map((t) => ({ feature: t.feature, threshold: t.threshold, left: t.left, right: t.right, value: t.value })) });
  if (args.check) {
    const same = readFileSync(out, 'utf8') === `${json}\n`;
    process.stderr.write(`train-rerank: ${out} ${same ? 'is byte-identical to the trained model' : 'differs from the trained model (training files, KG, corpus statistics or code changed)'}\n`);
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
