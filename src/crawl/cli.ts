/**
 * Command glue of `filmkw crawl`, `filmkw crawl testweb` and `filmkw crawl eval` (registered in
 * src/cli/commands/crawl.ts): flag parsing and validation, KG loading, progress line on a TTY, summary.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkUntrustedKey, usageError } from '../errors.js';
import type { KgView } from '../kg/model.js';
import { crawl, resolveSeeds, type CrawlProgress } from './crawler.js';
import { resolveCrawlOptions, type CrawlOptions } from './options.js';
import { crawlResources } from './resources.js';

/** Default shared data folder: $FILMKW_DATA, else ../shared/data next to the working directory. */
export function defaultDataDir(): string {
  return resolve(process.env.FILMKW_DATA ?? join('..', 'shared', 'data'));
}

/** The numeric flags, parsed and checked by their commander argParsers (src/cli/commands/crawl.ts); their ranges by resolveCrawlOptions. */
const NUMBER_FLAGS = ['maxPages', 'maxDepth', 'delayMs', 'concurrency', 'threshold'] as const;

/** Builds the option overrides of `filmkw crawl` flags (validated by resolveCrawlOptions). */
export function crawlOverrides(flags: Record<string, unknown>): Partial<CrawlOptions> {
  const o: Record<string, unknown> = {};
  for (const kv of (flags.set as string[] | undefined) ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw usageError(`crawl: --set expects key=value, got ${JSON.stringify(kv)}`);
    const key = kv.slice(0, i);
    checkUntrustedKey(key, 'crawl: --set');
    const raw = kv.slice(i + 1);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    o[key] = value;
  }
  if (flags.mode !== undefined) o.mode = flags.mode;
  for (const k of NUMBER_FLAGS) if (typeof flags[k] === 'number') o[k] = flags[k];
  if (flags.contact !== undefined) o.contact = flags.contact;
  if (flags.allowHost) o.allowHosts = flags.allowHost;
  if (flags.denyHost) o.denyHosts = flags.denyHost;
  return o as Partial<CrawlOptions>;
}

/** The KG of the topic library: import sources, a snapshot/csv dir, or the bundled demo KG (--kg with --kg-source: a conflict declared on the command). */
export async function crawlKg(flags: { kg?: string; kgSource?: string[] }, say: (m: string) => void): Promise<KgView> {
  if (flags.kgSource?.length) {
    const { importSources } = await import('../kg/import.js');
    say(`crawl: importing the KG from ${flags.kgSource.join(' ')}`);
    return (await importSources(flags.kgSource, { builder: { minePlayed: false }, tagger: null })).store;
  }
  const { loadKg } = await import('../kg/load.js');
  return loadKg({ kg: flags.kg, onWarning: say });
}

function progressLine(p: CrawlProgress): string {
  const hr = p.fetched ? ((100 * p.relevant) / p.fetched).toFixed(1) : '0.0';
  return `crawl: ${p.fetched} pages, ${p.relevant} relevant (harvest ${hr}%), frontier ${p.frontier}, ${p.errors} errors, ${p.pagesPerSec.toFixed(0)} pages/s`;
}

export async function runCrawlCommand(flags: Record<string, unknown>): Promise<void> {
  const seedsArg = flags.seeds as string[] | undefined;
  if (!seedsArg?.length) throw usageError('crawl: --seeds <url…|file> is required');
  if (typeof flags.out !== 'string' || flags.out === '') throw usageError('crawl: --out <dir> is required');
  if (flags.via !== undefined) {
    let v: URL | undefined;
    try {
      v = new URL(String(flags.via));
    } catch {
      v = undefined;
    }
    if (!v || v.protocol !== 'http:' || v.pathname !== '/') throw usageError(`crawl: --via must be http://HOST:PORT, got ${JSON.stringify(flags.via)}`);
  }
  const options = resolveCrawlOptions(crawlOverrides(flags));
  const seeds = resolveSeeds(seedsArg);
  const say = (m: string) => process.stderr.write(`${m}\n`);
  if (!flags.via && !options.contact) say('crawl: warning: no --contact: the User-Agent names no way for a site operator to reach you');
  const kg = await crawlKg(flags as { kg?: string; kgSource?: string[] }, say);
  const tty = process.stderr.isTTY === true;
  const summary = await crawl(
    {
      seeds,
      out: flags.out,
      ...(flags.via ? { via: String(flags.via) } : {}),
      resume: flags.resume === true,
      ...(tty ? { onProgress: (p: CrawlProgress) => process.stderr.write(`\r\x1b[2K${progressLine(p)}`) } : {}),
    },
    options,
    crawlResources(kg, options),
  );
  if (tty) process.stderr.write('\n');
  if (flags.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  say(
    `${progressLine(summary)}; ${summary.seconds.toFixed(1)} s, stopped by ${summary.stoppedBy}` +
      `${summary.replayed ? `, ${summary.replayed} replayed from the journal` : ''}` +
      `${summary.inFlight.length ? `, ${summary.inFlight.length} request in flight at the kill made again (${summary.inFlight.join(' ')})` : ''}` +
      `; ${summary.saved} saved${summary.evicted ? `, ${summary.evicted} frontier entries dropped` : ''}` +
      `; library ${summary.library} terms (+${summary.dtfl.length} learned); output in ${flags.out}`,
  );
}

export async function runTestWebCommand(flags: { out: string; data?: string }): Promise<void> {
  if (existsSync(flags.out) && readdirSync(flags.out).length > 0) throw usageError(`crawl testweb: ${flags.out} is not empty; choose a new --out`);
  const { buildTestWeb, loadTestWebInputs } = await import('./testweb.js');
  const inputs = await loadTestWebInputs(flags.data ?? defaultDataDir(), (m) => process.stderr.write(`${m}\n`));
  const r = buildTestWeb(inputs, flags.out);
  process.stderr.write(
    `crawl testweb: ${r.pages} pages (${r.real} real, ${r.generated} generated; ${r.relevant} relevant), ${r.edges} links; ` +
      `manifest.tsv, gold.tsv, seeds.tsv and graph.tsv in ${flags.out}\n`,
  );
}

export async function runCrawlEvalCommand(flags: { web?: string; data?: string; out: string; maxPages: number }): Promise<void> {
  const maxPages = flags.maxPages;
  const { runCrawlEval } = await import('./eval.js');
  await runCrawlEval({ web: flags.web, data: flags.data ?? defaultDataDir(), out: flags.out, maxPages, say: (m) => process.stderr.write(`${m}\n`) });
}
