/**
 * A worker thread of the off-topic seed sweep (sweep.ts runSeedSweepInWorkers): it imports the evaluation
 * KG, serves the test web with its own replay server and runs its share of the sweep's configurations,
 * each crawl sequential (concurrency 1) as in the rest of the evaluation; it posts progress lines and then
 * its rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { evalKg, readGold } from './eval.js';
import { resolveCrawlOptions } from './options.js';
import { startReplay } from './replay.js';
import { crawlResources } from './resources.js';
import { runSeedSweep, SWEEP_CONFIGS, tunnelSeeds } from './sweep.js';

const job = workerData as { web: string; data: string; maxPages: number; configs: number[] };
const say = (m: string) => parentPort!.postMessage({ say: m });
const res = crawlResources(await evalKg(job.data), resolveCrawlOptions());
// the extractor loads its lexicons on first use: before the first crawl
res.keywords?.('电影导演', 1);
const gold = readGold(join(job.web, 'gold.tsv'));
const server = await startReplay([join(job.web, 'manifest.tsv')]);
const work = mkdtempSync(join(tmpdir(), 'filmkw-sweep-'));
try {
  const rows = await runSeedSweep({
    seeds: tunnelSeeds(job.web, gold),
    gold,
    via: server.url,
    work,
    maxPages: job.maxPages,
    configs: job.configs.map((i) => SWEEP_CONFIGS[i]!),
    resources: (o) => (o.dynamicLibrary === 'feedback' ? res : { ...res, keywords: undefined }),
    say,
  });
  parentPort!.postMessage({ rows });
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
