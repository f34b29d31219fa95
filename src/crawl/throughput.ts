/**
 * Crawl throughput under real-world timing (issue 27): a generated web of `hosts` sites served by the
 * replay server with a latency per request, crawled at several concurrencies with a per-host delay, and
 * compared with the politeness bound Σ_hosts 1/delay (no crawler that keeps one request per host and
 * `delay` between their starts can go faster) and with the concurrency bound concurrency / mean latency.
 * The web: every host has `pages` film pages, each linking the next two pages of its host and one page of
 * the next host, so every host has work from the start to the end of a crawl. The server is
 * `filmkw replay --latency` in its own process, as a user runs it: its latencies do not wait for the
 * crawler's CPU work.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawl, type CrawlResources } from './crawler.js';
import { resolveCrawlOptions } from './options.js';
import { inputError } from '../errors.js';
import type { ReplayLatency } from './replay.js';

/** Writes the generated web (pages + manifest.tsv) into `dir`; returns the manifest path and the seeds (each host's front page). */
export function writeThroughputWeb(dir: string, hosts: number, pages: number): { manifest: string; seeds: string[] } {
  const url = (h: number, p: number) => `http://site${h}.example/${p === 0 ? '' : `film/${p}`}`;
  const lines = ['url\tfile\tlabel'];
  mkdirSync(join(dir, 'p'), { recursive: true });
  for (let h = 0; h < hosts; h++) {
    for (let p = 0; p < pages; p++) {
      const links = [url(h, (p + 1) % pages), url(h, (p + 2) % pages), url((h + 1) % hosts, (p + 3) % pages)];
      const title = `站点${h}的第${p}部电影`;
      const body =
        `<html><head><title>${title}</title></head><body><h1>${title}</h1><div class="info">导演: 某人 主演: 某人 类型: 剧情 上映日期: 2020 片长: 120分钟</div>` +
        `<div class="summary"><p>这部电影的剧情简介：影片讲述了一个故事，导演和编剧合作，主演表演出色，票房很好，影评很多，豆瓣评分很高。</p></div>` +
        `<ul>${links.map((l, i) => `<li><a href="${l}">相关电影${i}</a></li>`).join('')}</ul></body></html>`;
      const file = join('p', `${h}-${p}.html`);
      writeFileSync(join(dir, file), body);
      lines.push(`${url(h, p)}\t${file}\tgenerated`);
    }
  }
  const manifest = join(dir, 'manifest.tsv');
  writeFileSync(manifest, `${lines.join('\n')}\n`);
  return { manifest, seeds: [...Array(hosts).keys()].map((h) => url(h, 0)) };
}

export interface ThroughputRow {
  concurrency: number;
  fetched: number;
  seconds: number;
  pagesPerSec: number;
  /** Pages per second once every host has answered a first time (start-up excluded: robots.txt and a first page per host). */
  steadyPagesPerSec: number;
  /** Σ_hosts 1000/delayMs. */
  politenessBound: number;
  /** concurrency / mean latency (s). */
  concurrencyBound: number;
  /** Most requests in flight at once, overall and for one host, as the server saw them. */
  maxInFlight: number;
  maxHostInFlight: number;
}

/** `filmkw replay` in a child process; resolves its URL and a stop function that resolves its last stderr line. */
function replayProcess(manifest: string, latency: ReplayLatency): Promise<{ url: string; stop: () => Promise<string> }> {
  const bin = fileURLToPath(new URL('../../bin/filmkw', import.meta.url));
  const args = [bin, 'replay', manifest, '--port', '0', '--latency', `${latency.minMs}-${latency.maxMs}`, ...(latency.perHost ? ['--per-host'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/u.exec(out);
      if (m) resolve({ url: m[1]!, stop: async () => (child.kill('SIGTERM'), await exited, err.trim().split('\n').pop() ?? '') });
    });
    void exited.then(() => reject(inputError(`crawl eval: the replay server ended early: ${err.trim()}`)));
  });
}

/** Crawls the generated web once per concurrency (default mode, `maxPages` pages, `delayMs` per host). */
export async function measureThroughput(a: { hosts: number; pages: number; latency: ReplayLatency; delayMs: number; maxPages: number; concurrencies: readonly number[]; res: CrawlResources; say: (m: string) => void }): Promise<ThroughputRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-throughput-'));
  const rows: ThroughputRow[] = [];
  try {
    const { manifest, seeds } = writeThroughputWeb(dir, a.hosts, a.pages);
    for (const concurrency of a.concurrencies) {
      const server = await replayProcess(manifest, a.latency);
      let stopped = '';
      try {
        const o = resolveCrawlOptions({ concurrency, delayMs: a.delayMs, maxPages: a.maxPages, maxDepth: 1000 });
        const s = await crawl({ seeds, out: join(dir, `c${concurrency}`), via: server.url }, o, a.res);
        stopped = await server.stop();
        const m = /at most (\d+) at once \((\d+) for one host\)/u.exec(stopped);
        const times = readFileSync(join(dir, `c${concurrency}`, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => Date.parse((JSON.parse(l) as { time: string }).time));
        const k = Math.min(a.hosts, times.length - 1);
        const row: ThroughputRow = {
          concurrency,
          fetched: s.fetched,
          seconds: s.seconds,
          pagesPerSec: s.pagesPerSec,
          steadyPagesPerSec: (times.length - 1 - k) / Math.max(1e-3, (times[times.length - 1]! - times[k]!) / 1000),
          politenessBound: (a.hosts * 1000) / a.delayMs,
          concurrencyBound: concurrency / ((a.latency.minMs + a.latency.maxMs) / 2000),
          maxInFlight: Number(m?.[1] ?? NaN),
          maxHostInFlight: Number(m?.[2] ?? NaN),
        };
        rows.push(row);
        a.say(`crawl eval: throughput at concurrency ${concurrency}: ${row.pagesPerSec.toFixed(1)} pages/s, ${row.steadyPagesPerSec.toFixed(1)} after start-up (bound ${Math.min(row.politenessBound, row.concurrencyBound).toFixed(1)}), ${row.maxInFlight} in flight at most`);
      } finally {
        if (!stopped) await server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The throughput section of results.md. */
export function throughputTable(rows: readonly ThroughputRow[], setup: { hosts: number; pages: number; latency: ReplayLatency; delayMs: number; maxPages: number }): string {
  const bound = rows[0]?.politenessBound ?? NaN;
  const at8 = rows.find((r) => r.concurrency === 8);
  return [
    `## Throughput under real-world latency (${setup.hosts} hosts, ${setup.latency.minMs}–${setup.latency.maxMs} ms per answer, ${setup.delayMs} ms per host)`,
    '',
    `A generated web of ${setup.hosts} hosts × ${setup.pages} film pages (src/crawl/throughput.ts) served by \`filmkw replay\` with a latency drawn per request from ${setup.latency.minMs}–${setup.latency.maxMs} ms; the default (focused) crawler, ${setup.maxPages} pages from every host's front page, delayMs ${setup.delayMs} (the real-web default). Politeness bound = Σ over hosts of 1/delay = ${bound.toFixed(1)} pages/s; concurrency bound = concurrency / mean latency. "After start-up": from the ${setup.hosts}th page on (once every host has answered its robots.txt and a first page), the rate the bounds describe; "overall" includes the start-up. Wall-clock pages/s on a shared machine: a ratio to the bound, not an absolute speed.`,
    '',
    '| concurrency | pages/s overall | pages/s after start-up | politeness bound | concurrency bound | after start-up ÷ min(bounds) | most in flight (server) | most per host |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.concurrency} | ${r.pagesPerSec.toFixed(1)} | ${r.steadyPagesPerSec.toFixed(1)} | ${r.politenessBound.toFixed(1)} | ${r.concurrencyBound.toFixed(1)} | ${(r.steadyPagesPerSec / Math.min(r.politenessBound, r.concurrencyBound)).toFixed(2)} | ${r.maxInFlight} | ${r.maxHostInFlight} |`),
    '',
    ...(at8 ? [`Target: at concurrency 8, ≥ 0.8 × the politeness bound (${(0.8 * at8.politenessBound).toFixed(1)} pages/s): after start-up ${at8.steadyPagesPerSec.toFixed(1)} (${at8.steadyPagesPerSec >= 0.8 * at8.politenessBound ? 'met' : 'NOT met'}), overall ${at8.pagesPerSec.toFixed(1)} (${at8.pagesPerSec >= 0.8 * at8.politenessBound ? 'met' : 'NOT met'}).`, ''] : []),
  ].join('\n');
}
