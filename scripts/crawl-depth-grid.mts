// How the crawler's default depth budget was chosen (issue 27; eval/crawl/ANALYSIS.md "Off-topic seeds"):
// crawls of the test web with option overrides, reported per configuration, either on the four seed sets of
// the results table (harvest at 1,000 pages: the data D was chosen on) or on the off-topic seed sweep (seeds
// from which a film page is reached, harvest, at 500 pages: the held-out check). Concurrency 1, so the
// figures are deterministic.
//
//   node --import tsx scripts/crawl-depth-grid.mts --web DIR [--sweep] [--data DIR] CONFIG_JSON…
//
// DIR is a built test web (`filmkw crawl testweb --out DIR`, or the one `crawl eval --web DIR` builds);
// each CONFIG_JSON is an object of crawl options, e.g. '{"depthBudget":0,"maxDepth":8}' '{"depthBudget":3}'.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { crawl } from '../src/crawl/crawler.js';
import { readGold } from '../src/crawl/eval.js';
import { resolveCrawlOptions } from '../src/crawl/options.js';
import { startReplay } from '../src/crawl/replay.js';
import { crawlResources } from '../src/crawl/resources.js';
import { tunnelSeeds } from '../src/crawl/sweep.js';
import { importSources } from '../src/kg/import.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { web: { type: 'string' }, sweep: { type: 'boolean', default: false }, data: { type: 'string' } },
});
if (!values.web || positionals.length === 0) {
  process.stderr.write('crawl-depth-grid: usage: --web DIR [--sweep] [--data DIR] CONFIG_JSON…\n');
  process.exit(2);
}
const web = resolve(values.web);
const configs = positionals.map((p) => {
  try {
    return JSON.parse(p) as Record<string, unknown>;
  } catch {
    process.stderr.write(`crawl-depth-grid: not a JSON object of crawl options: ${p}\n`);
    process.exit(2);
  }
});
const gold = readGold(join(web, 'gold.tsv'));
const kgDir = join(resolve(values.data ?? join(ROOT, '..', 'shared', 'data')), 'kg');
const kg = (
  await importSources(
    [`douban-csv:${join(kgDir, 'douban-movies-2065')}`, `kgqa:${join(kgDir, 'douban-kgqa-small')}`, `openkg:${join(kgDir, 'openkg-douban-movie')}`],
    { builder: { minePlayed: false }, tagger: null },
  )
).store;
const resources = crawlResources(kg, resolveCrawlOptions());
const server = await startReplay([join(web, 'manifest.tsv')]);

/** Whether each fetched page (in fetch order) of a crawl's index is a film page of the gold list. */
async function crawlOnce(seeds: string[], maxPages: number, overrides: Record<string, unknown>): Promise<boolean[]> {
  const o = resolveCrawlOptions({ maxPages, concurrency: 1, ...overrides } as never);
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-depth-grid-'));
  try {
    const res = o.dynamicLibrary === 'feedback' ? resources : { ...resources, keywords: undefined };
    await crawl({ seeds, out: join(dir, 'o'), via: server.url }, o, res);
    const lines = readFileSync(join(dir, 'o', 'index.jsonl'), 'utf8').trim().split('\n');
    return lines.map((l) => {
      const r = JSON.parse(l) as { url: string; finalUrl?: string };
      return gold.relevant.get(r.finalUrl ?? r.url) === true || gold.relevant.get(r.url) === true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (hits: number, n: number) => (n === 0 ? '0.0' : ((100 * hits) / n).toFixed(1));

/** Harvest at 1,000 pages on each seed set of the results table. */
async function seedSets(overrides: Record<string, unknown>): Promise<string> {
  const sets = new Map<string, string[]>();
  for (const line of readFileSync(join(web, 'seeds.tsv'), 'utf8').split('\n').slice(1)) {
    const [set, url] = line.split('\t');
    if (set && url) sets.set(set, [...(sets.get(set) ?? []), url]);
  }
  const cells: string[] = [];
  for (const [set, seeds] of sets) {
    const rel = await crawlOnce(seeds, 1000, overrides);
    cells.push(`${set} ${pct(rel.filter(Boolean).length, rel.length)}`);
  }
  return cells.join(' | ');
}

/** The off-topic seed sweep: seeds reaching a film page in 500 pages, harvest, and the fetches before the
 * first film page (median over the seeds that reach one), as results.md's sweep table counts them. */
async function sweep(overrides: Record<string, unknown>): Promise<string> {
  const seeds = tunnelSeeds(web, gold);
  let reached = 0;
  let fetched = 0;
  let relevant = 0;
  const firsts: number[] = [];
  for (const seed of seeds) {
    const rel = await crawlOnce([seed.url], 500, overrides);
    fetched += rel.length;
    relevant += rel.filter(Boolean).length;
    if (rel.includes(true)) {
      reached += 1;
      firsts.push(rel.indexOf(true));
    }
  }
  firsts.sort((a, b) => a - b);
  const mid = firsts.length / 2;
  const median = firsts.length === 0 ? '-' : String(firsts.length % 2 ? firsts[Math.floor(mid)] : (firsts[mid - 1]! + firsts[mid]!) / 2);
  return `reached ${reached}/${seeds.length} · harvest ${pct(relevant, fetched)} · first film page after ${median} fetches (median)`;
}

try {
  for (const c of configs) process.stdout.write(`${JSON.stringify(c)}\t${values.sweep ? await sweep(c) : await seedSets(c)}\n`);
} finally {
  await server.close();
}
