/**
 * Crawl throughput under real-world latency (issue 27), the section `npm run crawl-eval` also writes into
 * eval/crawl/results.md, without the rest of that evaluation (about two minutes instead of an hour): a
 * generated web of 24 hosts served by `filmkw replay --latency 100-300` in its own process, crawled by the
 * default crawler at concurrency 1, 4, 8, 16 with 1 s per host, as a ratio to the politeness bound
 * (Σ over hosts of 1/delay) and to the concurrency bound (src/crawl/throughput.ts). The topic library
 * is the one of `crawl eval` (the three Douban KG sources of ../shared/data/kg, or $FILMKW_DATA/kg).
 *
 *   node --import tsx bench/crawl-throughput.ts [--concurrency 8[,16…]]      (npm run bench -- crawl-throughput)
 *
 * Needs `npm run build` (the replay server is bin/filmkw). Prints a skip section without the shared data.
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { THROUGHPUT_SETUP } from '../src/crawl/eval.js';
import { resolveCrawlOptions } from '../src/crawl/options.js';
import { crawlResources } from '../src/crawl/resources.js';
import { measureThroughput, throughputTable } from '../src/crawl/throughput.js';
import { importSources } from '../src/kg/import.js';
import { root } from './_cli.js';

const kgDir = join(process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data'), 'kg');
const i = process.argv.indexOf('--concurrency');
const concurrencies = i > 0 ? (process.argv[i + 1] ?? '').split(',').map(Number) : THROUGHPUT_SETUP.concurrencies;
const out = (s: string) => process.stdout.write(`${s}\n`);

out('## bench/crawl-throughput.ts (issue 27)\n');
if (!existsSync(join(kgDir, 'douban-movies-2065'))) {
  out('_skipped: needs ../shared/data/kg_');
} else {
  const kg = (await importSources([`douban-csv:${join(kgDir, 'douban-movies-2065')}`, `kgqa:${join(kgDir, 'douban-kgqa-small')}`, `openkg:${join(kgDir, 'openkg-douban-movie')}`], { builder: { minePlayed: false }, tagger: null })).store;
  const res = crawlResources(kg, resolveCrawlOptions());
  // the extractor loads its lexicon on first use: before any crawl is timed
  res.keywords?.('电影导演', 1);
  const load0 = loadavg()[0]!.toFixed(1);
  const rows = await measureThroughput({ ...THROUGHPUT_SETUP, concurrencies, res, say: (m) => process.stderr.write(`${m}\n`) });
  out(`${new Date().toISOString().slice(0, 16)} UTC, load average ${load0} at the start and ${loadavg()[0]!.toFixed(1)} at the end (2 cores shared with other jobs: compare the ratios, not the rates).\n`);
  out(throughputTable(rows, THROUGHPUT_SETUP).replace(/^## .*\n\n/u, ''));
}
