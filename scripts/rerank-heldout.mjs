#!/usr/bin/env node
// The one look at a held-out set for re-ranker variants (ANALYSIS.md §9): macro F1@1..5 of each system,
// ΔF1@K of every system against the first one with the 95 % paired bootstrap interval (eval/compare.ts
// compareRuns, 2,000 resamples, seed 1), where the gold keywords land (eval/placement.ts), and the
// counts of the candidate defects of issue 24 item 3 (below), all on the same documents in one process.
//
//   node scripts/rerank-heldout.mjs --gold FILE [--format csl] [--kg FILE] [--film-field F] [--title-field F]
//        --system NAME=[MODEL.json][@KEY=VALUE,…] [--system …]… [--placement] [--defects] [--ceiling] [--json]
//
// A system is the preset filmkw-rerank with the option overrides after @ and the model MODEL.json (from
// `npm run train:rerank -- … --out MODEL.json`; empty: the committed models/rerank.json). The first
// system is the one the others are compared with. --kg: default $FILMKW_KG, else the merged KG cached for this
// code by scripts/merged-kg.mjs ($TMPDIR/filmkw-merged-<fingerprint>.fkg, built when absent).
// --film-field / --title-field (jsonl): each document's film and title are given to the extractor as its
// context (extract(text, { film, title }), as `filmkw eval` does); absent: no context.
// --ceiling: macro F1@1..5 of a perfect ordering of the re-ranker's pool (every scored candidate that
// matches a gold keyword first) and of every candidate, per system: what a better model could reach
// with these candidates (the overlap rule between phrases and their words is not applied).
//
// --defects counts, per system (the subsets are fixed by the document and the first system's tokens):
//   filmStopPart  gold keywords with a film-domain stop word (stopwords-film.txt, not nodejieba's list) as a
//                 proper part (中国电影, 第四代导演): where they land
//   entityPart    gold keywords the first system segments into ≥ 2 tokens one of which names a KG entity
//                 (山村 邮递员[E]): where they land
//   shortOut      top-K outputs that are not gold but a proper part of a gold keyword of the document (堀越
//                 for 堀越二郎, 天鸣 for 游天鸣)
//   traditional   gold keywords of the documents written in traditional script (more than 1 % of their
//                 ideographs, and at least 3, change under opencc t→cn): where they land
//   castVerb      top-K outputs that are a cast-list verb (饰演, 扮演, 主演 …; phrases.ts CAST_VERBS)
// Needs a build (npm run build). Deterministic.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureMergedKg } from './merged-kg.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fail = (msg, code = 2) => {
  process.stderr.write(`filmkw: rerank-heldout: ${msg}\n`);
  process.exit(code);
};
if (!existsSync(join(root, 'dist', 'index.js'))) fail('dist/ is missing: run npm run build first');
const mod = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
let args;
try {
  args = parseArgs({ options: { gold: { type: 'string' }, format: { type: 'string' }, kg: { type: 'string' }, system: { type: 'string', multiple: true }, placement: { type: 'boolean' }, defects: { type: 'boolean' }, ceiling: { type: 'boolean' }, json: { type: 'boolean' }, 'film-field': { type: 'string' }, 'title-field': { type: 'string' } } }).values;
} catch (err) {
  fail(err.message);
}
if (!args.gold) fail('--gold FILE is required');
if (!args.system || args.system.length === 0) fail('at least one --system NAME=[MODEL][@KEY=VALUE,…]');

const { createExtractor } = await mod('pipeline/extract.js');
const { parseOverride } = await mod('pipeline/options.js');
const { parseRerankModel } = await mod('pipeline/rerank-model.js');
const { loadKg } = await mod('kg/load.js');
const { readGold } = await mod('eval/readers.js');
const { evaluate, createMatcher, resolveEvalOptions, distinctKeys, normalizeKeyword, foldTraditional } = await mod('eval/metrics.js');
const { compareRuns } = await mod('eval/compare.js');
const { PLACES, placeOf } = await mod('eval/placement.js');
const { filmOnlyStopwords } = await mod('pipeline/candidates.js');
const { CAST_VERBS } = await mod('pipeline/phrases.js');

const systems = args.system.map((spec) => {
  const eq = spec.indexOf('=');
  if (eq <= 0) fail(`--system ${spec}: expected NAME=[MODEL][@KEY=VALUE,…]`);
  const name = spec.slice(0, eq);
  const [model, options] = spec.slice(eq + 1).split('@');
  let overrides;
  try {
    overrides = Object.fromEntries((options ? options.split(',') : []).map(parseOverride));
  } catch (err) {
    fail(`--system ${spec}: ${err.message}`);
  }
  let rerankModel;
  if (model) {
    try {
      rerankModel = parseRerankModel(JSON.parse(readFileSync(model, 'utf8')), model);
    } catch (err) {
      fail(`${model}: ${err.message}`, 3);
    }
  }
  return { name, model: model || '(committed)', overrides, rerankModel };
});
let kgPath = args.kg ?? process.env.FILMKW_KG;
if (kgPath === undefined) {
  try {
    kgPath = ensureMergedKg({ log: (s) => process.stderr.write(`rerank-heldout: ${s}\n`) }).path;
  } catch (err) {
    fail(`${err.message} (set --kg or FILMKW_KG)`, err.exitCode);
  }
} else if (!existsSync(kgPath)) fail(`${kgPath}: no such KG snapshot (set --kg or FILMKW_KG)`, 3);
/** The value of `f()`, or one line (the error's message) and exit `code`. */
const orFail = async (f, code) => {
  try {
    return await f();
  } catch (err) {
    return fail(String(err?.message ?? err).replace(/\s*\n\s*/gu, ' '), code);
  }
};
const kg = await orFail(() => loadKg({ kg: kgPath }), 3);
const docs = await orFail(() => readGold(args.gold, { format: args.format ?? 'jsonl', filmField: args['film-field'] ?? '', titleField: args['title-field'] ?? '' }), 3);
const evalOptions = resolveEvalOptions({});
const matcher = createMatcher(evalOptions);
const K = 5;
const RANKED = 1000;
const filmStop = [...filmOnlyStopwords()].filter((w) => w.length >= 2);
const cast = new Set(CAST_VERBS);

/** Whether a text is in traditional script (see the header). */
function traditional(text) {
  const folded = foldTraditional(text);
  let ideographs = 0;
  let changed = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x4e00 && c <= 0x9fff) {
      ideographs++;
      if (folded.charCodeAt(i) !== c) changed++;
    }
  }
  return changed >= 3 && changed > ideographs / 100;
}

/** Macro F1@1..5 of an evaluation result. */
const macroOf = (result) => Object.fromEntries([1, 2, 3, 4, 5].map((k) => [k, result.macro[String(k)].f1]));

/**
 * The candidates in a perfect order: for each distinct gold keyword (file order) the first candidate that
 * matches it, then the others as listed (surfaces; at most K needed beyond the gold).
 */
function perfectOrder(gold, candidates) {
  const keys = candidates.map((c) => matcher.key(c.text));
  const used = new Set();
  for (const g of distinctKeys(gold, matcher.key)) {
    const at = keys.findIndex((k, i) => !used.has(i) && matcher.matches(k, g));
    if (at >= 0) used.add(at);
  }
  const rest = candidates.map((_, i) => i).filter((i) => !used.has(i)).slice(0, K);
  return [...used, ...rest].map((i) => candidates[i].text);
}

/** Macro F1@1..5 of the documents' prediction lists. */
const macroF1 = (lists) => macroOf(evaluate(docs.map((d, i) => ({ id: d.id, gold: d.gold, predicted: lists[i] })), evalOptions));

const results = [];
let subsets = null;
for (const s of systems) {
  const ex = await orFail(() => createExtractor({ preset: 'filmkw-rerank', kg, overrides: s.overrides, ...(s.rerankModel ? { rerankModel: s.rerankModel } : {}) }), 2);
  const predictions = [];
  const placement = Object.fromEntries(PLACES.map((p) => [p, 0]));
  const places = [];
  const trace = [];
  const ideal = { pool: [], all: [] };
  for (const d of docs) {
    let list = [];
    let tokens = null;
    let entityWords = null;
    const keywords = ex.extract(d.text, {
      topK: RANKED,
      film: d.film,
      title: d.title,
      candidates: (l) => (list = l),
      inspect: subsets === null ? (t) => ((tokens = t.tokens), (entityWords = new Set(t.doc.words.filter((_, i) => t.entities?.[i]?.length > 0)))) : undefined,
    });
    const words = keywords.map((w) => w.word);
    predictions.push(words.slice(0, 2 * K));
    const ranked = distinctKeys(words, matcher.key);
    const candidates = list.map((c) => ({ key: matcher.key(c.text), scored: c.scored }));
    const byGold = new Map();
    for (const g of distinctKeys(d.gold, matcher.key)) {
      const p = placeOf(g, ranked, candidates, keywords.length >= RANKED, K, matcher);
      placement[p]++;
      byGold.set(g, p);
    }
    places.push(byGold);
    trace.push({ tokens, entityWords });
    if (args.ceiling) {
      ideal.pool.push(perfectOrder(d.gold, list.filter((c) => c.scored)));
      ideal.all.push(perfectOrder(d.gold, list));
    }
  }
  const result = evaluate(docs.map((d, i) => ({ id: d.id, gold: d.gold, predicted: predictions[i] })), evalOptions);
  const ceiling = args.ceiling ? Object.fromEntries(Object.entries(ideal).map(([name, lists]) => [name, macroF1(lists)])) : undefined;
  // the defect subsets, from the first system's tokens
  subsets ??= docs.map((d, i) => {
    const gold = distinctKeys(d.gold, matcher.key);
    const { tokens, entityWords } = trace[i];
    const entityPart = gold.filter((g) => {
      const at = d.text.indexOf(g);
      if (at < 0 || !tokens) return false;
      const covering = tokens.filter((t) => t.end > at && t.start < at + g.length);
      return covering.length >= 2 && covering.some((t) => entityWords.has(t.word));
    });
    return {
      gold,
      filmStopPart: gold.filter((g) => filmStop.some((w) => g !== w && g.includes(w))),
      entityPart,
      traditional: traditional(d.text) ? gold : [],
    };
  });
  const defects = { filmStopPart: {}, entityPart: {}, traditional: {}, shortOut: 0, castVerb: 0 };
  docs.forEach((d, i) => {
    for (const name of ['filmStopPart', 'entityPart', 'traditional']) {
      for (const g of subsets[i][name]) defects[name][places[i].get(g)] = (defects[name][places[i].get(g)] ?? 0) + 1;
    }
    const top = distinctKeys(predictions[i], matcher.key).slice(0, K);
    for (const p of top) {
      if (cast.has(p)) defects.castVerb++;
      if (!subsets[i].gold.includes(p) && subsets[i].gold.some((g) => g.length > p.length && g.includes(p))) defects.shortOut++;
    }
  });
  results.push({ system: s.name, model: s.model, overrides: s.overrides, macro: macroOf(result), result, predictions, placement, defects, ceiling });
}

const ids = docs.map((d) => d.id);
const golds = docs.map((d) => d.gold);
const base = results[0];
for (const r of results.slice(1)) {
  r.delta = [1, 2, 3, 4, 5].map((k) => {
    const c = compareRuns(ids, golds, base, r, { k });
    return { k, delta: c.meanDelta, ci95: c.ci95, better: c.better, worse: c.worse };
  });
}
const f4 = (x) => x.toFixed(4);
const sign = (x) => `${x >= 0 ? '+' : '−'}${f4(Math.abs(x))}`;
if (args.json) {
  process.stdout.write(`${JSON.stringify({ gold: args.gold, docs: docs.length, systems: results.map(({ result, predictions, ...r }) => r) })}\n`);
} else {
  const out = [`${args.gold}: ${docs.length} documents`];
  for (const r of results) {
    out.push(`${r.system} (${r.model}${Object.keys(r.overrides).length ? ` @ ${Object.entries(r.overrides).map(([k, v]) => `${k}=${v}`).join(',')}` : ''}): F1@1..5 ${Object.values(r.macro).map(f4).join(' / ')}`);
    for (const d of r.delta ?? []) out.push(`  ΔF1@${d.k} ${sign(d.delta)} [${sign(d.ci95[0])}, ${sign(d.ci95[1])}], ${d.better} b / ${d.worse} w`);
    if (r.ceiling) out.push(`  ceiling (perfect order) F1@1..5: pool ${Object.values(r.ceiling.pool).map(f4).join(' / ')}; every candidate ${Object.values(r.ceiling.all).map(f4).join(' / ')}`);
    if (args.placement) out.push(`  placement (K = ${K}): ${PLACES.map((p) => `${p} ${r.placement[p]}`).join(', ')}`);
    if (args.defects) {
      const show = (o) => Object.entries(o).map(([p, n]) => `${p} ${n}`).join(', ') || 'none';
      out.push(`  defects: filmStopPart {${show(r.defects.filmStopPart)}}; entityPart {${show(r.defects.entityPart)}}; traditional {${show(r.defects.traditional)}}; shortOut ${r.defects.shortOut}; castVerb ${r.defects.castVerb}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
