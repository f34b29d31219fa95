/**
 * bench/serve.ts — latency of the viewer (`filmkw serve`, issue 15): a 2,000-character review tagged
 * and drawn, measured in the browser (Debian chromium through playwright-core, one page): from the
 * click on Tag to the first frame after the text view is drawn and the word graph laid out and drawn
 * by sigma.js (the Word graph view is open). Target: under 300 ms once the server is warm. The server
 * runs in this process (src/serve/server.ts), with the bundled demo KG and, when there is one, the
 * merged KG (bench/_cli.ts benchKgPath: FILMKW_BENCH_KG or the merged KG of this code).
 *
 * Texts: the first reviews of texts/douban-long-reviews-19films (FILMKW_DATA, default ../shared/data) with at least 2,000
 * characters, cut to 2,000 (the bundled samples, repeated to 2,000 characters, when the data is absent).
 * 3 warm-up tags, then one tag per review; median, p90 and max, and the split between the request
 * (server extraction + JSON) and the drawing.
 *
 *   npm run build && node --import tsx bench/serve.ts [--reviews N]
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from '../src/html/records.js';
import { VIEWER_CHROMIUM_ARGS } from '../src/serve/browser.js';
import { defaultWebDir, startServer } from '../src/serve/server.js';
import { loadKg } from '../src/kg/load.js';
import { DEFAULT_PRESET } from '../src/pipeline/options.js';
import { benchKgPath } from './_cli.js';

// page.waitForFunction callbacks run in the page (a string would need 'unsafe-eval', which the page's CSP forbids)
declare const window: any;
declare const document: any;

const out = (s = '') => process.stdout.write(`${s}\n`);
const DATA = process.env.FILMKW_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
const REVIEWS = join(DATA, 'texts', 'douban-long-reviews-19films', 'reviews.jsonl');
const SAMPLES = fileURLToPath(new URL('../datasets/samples/reviews.jsonl', import.meta.url));
const LENGTH = 2000;
const TARGET_MS = 300;

function texts(n: number): { texts: string[]; source: string } {
  if (existsSync(REVIEWS)) {
    const list: string[] = [];
    for (const line of readFileSync(REVIEWS, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const t = (JSON.parse(line) as { text?: string }).text ?? '';
      if (t.length >= LENGTH) list.push(t.slice(0, LENGTH));
      if (list.length === n) break;
    }
    return { texts: list, source: `the first ${list.length} reviews of ≥ ${LENGTH} characters of douban-long-reviews-19films, cut to ${LENGTH}` };
  }
  const all = readFileSync(SAMPLES, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text);
  const list: string[] = [];
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let k = i; s.length < LENGTH; k++) s += all[k % all.length];
    list.push(s.slice(0, LENGTH));
  }
  return { texts: list, source: `the bundled samples repeated to ${LENGTH} characters (../shared/data absent)` };
}

type Timing = { totalMs: number; requestMs: number; textMs: number; layoutMs: number; drawMs: number };

async function tagOnce(page: Page, text: string): Promise<Timing & { nodes: number; edges: number }> {
  await page.evaluate('delete window.filmkw.lastTag');
  await page.fill('#text', text);
  await page.click('#run');
  await page.waitForFunction(() => window.filmkw.lastTag !== undefined || !document.getElementById('error').hidden);
  const r = (await page.evaluate('({ t: window.filmkw.lastTag, n: window.filmkw.result.nodes.length, e: window.filmkw.result.edges.length, err: document.getElementById("error").hidden ? null : document.getElementById("error").textContent })')) as {
    t?: Timing;
    n: number;
    e: number;
    err: string | null;
  };
  if (!r.t) throw new Error(`the page showed an error: ${r.err}`);
  if (process.env.FILMKW_BENCH_VERBOSE) process.stderr.write(`${JSON.stringify(r.t)}\n`);
  return { ...r.t, nodes: r.n, edges: r.e };
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x: number) => x.toFixed(0);

async function main(): Promise<void> {
  out('## serve (issue 15: viewer latency, 2,000-character review tagged and drawn)');
  out();
  if (!existsSync(CHROMIUM_PATH)) {
    out(`_skipped: ${CHROMIUM_PATH} is absent (apt-get install chromium)_`);
    return;
  }
  if (!existsSync(`${defaultWebDir()}app.js`)) {
    out('_skipped: dist/web is not built (npm run build)_');
    return;
  }
  const arg = process.argv.indexOf('--reviews');
  const n = arg > 0 ? Number(process.argv[arg + 1]) : 20;
  const { texts: list, source } = texts(n);
  const kgs: { label: string; path?: string }[] = [{ label: 'demo KG' }];
  const merged = benchKgPath();
  if (merged.path && existsSync(merged.path)) kgs.push({ label: `merged KG (${merged.shown})`, path: merged.path });
  out(`Texts: ${source}. Preset \`${DEFAULT_PRESET}\` (default), top 5 with explain, Word graph view open: the time is from the`);
  out('click on Tag to the first frame after the text is marked and the word graph laid out (ForceAtlas2) and drawn');
  out('(sigma.js, WebGL in SwiftShader: software rendering). Server in the bench process, Debian chromium headless,');
  out(`3 warm-up tags first. Target: < ${TARGET_MS} ms. Load average at the start: ${loadavg().map((x) => x.toFixed(1)).join(', ')} (${cpus().length} cores).`);
  out();
  out(`| KG | reviews | words / edges (median) | request median | tagged + drawn median | p90 | max | < ${TARGET_MS} ms |`);
  out('|---|---:|---:|---:|---:|---:|---:|---|');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...VIEWER_CHROMIUM_ARGS] });
  try {
    for (const k of kgs) {
      const kg = await loadKg({ kg: k.path });
      const server = await startServer({ kg, kgLabel: k.label, batch: [], port: 0 });
      const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
      try {
        await page.goto(server.url);
        await page.waitForFunction(() => window.filmkw?.ready === true);
        await page.click('#tabs button[data-view=graph]');
        for (let w = 0; w < 3; w++) await tagOnce(page, list[w % list.length]);
        const rows = [];
        for (const t of list) rows.push(await tagOnce(page, t));
        const total = rows.map((r) => r.totalMs);
        const p90 = quantile(total, 0.9);
        out(
          `| ${k.label} | ${rows.length} | ${quantile(rows.map((r) => r.nodes), 0.5)} / ${quantile(rows.map((r) => r.edges), 0.5)} | ${ms(quantile(rows.map((r) => r.requestMs), 0.5))} ms | ${ms(quantile(total, 0.5))} ms | ${ms(p90)} ms | ${ms(Math.max(...total))} ms | median ${quantile(total, 0.5) < TARGET_MS ? 'met' : 'NOT met'}, p90 ${p90 < TARGET_MS ? 'met' : 'NOT met'} |`,
        );
      } finally {
        await page.close();
        await server.close();
      }
    }
  } finally {
    await browser.close();
  }
}

await main();
