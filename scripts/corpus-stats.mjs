#!/usr/bin/env node
// Builds the corpus statistics shipped with the package, models/corpus-stats.tsv (npm run corpus:stats; README
// "Corpus statistics", models/README.md): `filmkw corpus build` over the unannotated film texts of ../shared/data
// (the Douban long reviews of the 19 films and of 百鸟朝凤, the short comments on 197 films, the synopses of the
// two KG sources), with every annotated text (film-dev, film-train, film-train-b) excluded by id and by text,
// on the merged KG ($FILMKW_KG, else the merged KG of the three Douban sources and the demo KG cached for this
// code by scripts/merged-kg.mjs, $TMPDIR/filmkw-merged-<fingerprint>.fkg, built when absent, as npm run
// experiments and train:rerank do).
//   --out FILE    another path (default models/corpus-stats.tsv)
//   --check       build into a temporary file and compare with the committed table byte for byte (exit 0 / 1)
// The same data, KG and code give the same bytes.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureMergedKg } from './merged-kg.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const data = resolve(process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data'));
const fail = (msg, code = 2) => {
  process.stderr.write(`filmkw: corpus-stats: ${msg}\n`);
  process.exit(code);
};
let args;
try {
  args = parseArgs({ options: { out: { type: 'string' }, check: { type: 'boolean' } } }).values;
} catch (err) {
  fail(err.message);
}
const committed = join(root, 'models', 'corpus-stats.tsv');
const scratch = args.check ? mkdtempSync(join(tmpdir(), 'filmkw-corpus-stats-')) : null;
const out = scratch ? join(scratch, 'corpus-stats.tsv') : resolve(args.out ?? committed);
const texts = join(data, 'texts');
const kgData = join(data, 'kg');
const annotated = ['film-dev', 'film-train', 'film-train-b'].map((f) => join(data, 'annotated', `${f}.jsonl`));
for (const f of [texts, kgData, ...annotated]) if (!existsSync(f)) fail(`${f}: missing (the statistics are built from ../shared/data; set FILMKW_DATA)`, 3);
const filmkw = (argv, stdio = 'inherit') => spawnSync(process.execPath, [join(root, 'bin', 'filmkw'), ...argv], { stdio });
let kg = process.env.FILMKW_KG;
if (kg === undefined) {
  try {
    kg = ensureMergedKg({ data, log: (s) => process.stderr.write(`corpus-stats: ${s}\n`), stdio: 'inherit' }).path;
  } catch (err) {
    fail(err.message, err.exitCode);
  }
} else if (!existsSync(kg)) fail(`FILMKW_KG=${kg}: no such KG snapshot`, 3);
const sources = [
  `${join(texts, 'douban-long-reviews-19films', 'reviews.jsonl')}::film-field=doubanSubjectId`,
  `${join(texts, 'douban-reviews-bainiaochaofeng', 'douban_reviews.json')}::format=jsonl,text-field=review_full,film=10831445`,
  `${join(texts, 'douban-short-comments-197films', 'douban_movie_reviews.csv')}::text-field=Review,film-field=URL`,
  `${join(kgData, 'douban-kgqa-small', 'small_movie_info.txt')}::format=jsonl,text-field=summary,id-field=id,film-field=id,id-prefix=syn-`,
  `${join(kgData, 'douban-movies-2065', 'douban_all_movies.csv')}::text-field=summary,id-field=movie_id,film-field=movie_id,id-prefix=syn-`,
];
const r = filmkw(['corpus', 'build', ...sources, ...annotated.flatMap((f) => ['--exclude', f]), '--kg', kg, '--out', out]);
if (r.status !== 0) process.exit(r.status ?? 70);
if (scratch) {
  const same = existsSync(committed) && Buffer.compare(readFileSync(out), readFileSync(committed)) === 0;
  rmSync(scratch, { recursive: true, force: true });
  process.stderr.write(`corpus-stats: ${committed} ${same ? 'is byte-identical to the built table' : 'differs from the built table (data, KG or code changed)'}\n`);
  process.exit(same ? 0 : 1);
}
