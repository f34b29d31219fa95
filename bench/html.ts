/**
 * Main-text extraction: accuracy and speed of our extractor (src/html/maintext.ts, seed 000) and of the
 * anchor (Mozilla Readability over linkedom, bench/readability-anchor.ts) on the same real pages.
 *
 *   node --import tsx bench/html.ts [--sets cwced,magic,douban] [--decay 0.34] [--stop-at current|child]
 *                                   [--sweep] [--no-anchor] [--no-trim] [--no-hidden]
 *                                   [--details FILE] [--repeat N] [--warmup N] [--median] [--no-cut] [--cut-ab]
 *
 * Page sets (../shared/data/html, or $FILMKW_DATA/html; skipped with a message when absent):
 * - cwced: the 69 pages of the Chinese Web Content Extraction Dataset, ground truth cleaned/*.txt,
 *   author/*.txt, date/*.txt;
 * - magic: the 53 Chinese article pages of the magic-html benchmark, ground truth base_zh_subset.json;
 * - douban: the 2 served Douban review pages, ground truth derived_review_text.json (div.review-content).
 * Judge: src/html/judge.ts (all body lines present, at most one extra sentence ≤ 10% of the body; title
 * lines optional). Pages are decoded once (src/html/decode.ts) and the decode time is not counted;
 * pages/s is pages / summed extraction time, single thread. `--sweep` adds the T sweep 0.20–0.50 and the
 * stop-at comparison (ours only). `--no-cut` parses whole pages (no script/style pre-scan,
 * src/html/rawtext.ts): the same output, the speed before the pre-scan. `--repeat N` times N runs per
 * page and extractor (their mean, or their median with `--median`); `--warmup N` first runs each
 * extractor N times on the page untimed (JIT warm: with few pages, e.g. `--sets douban`, the first, cold
 * runs otherwise dominate the figure). `--cut-ab` adds, for ours only, the time with the pre-scan
 * against without it, run interleaved page by page (3 warm-up runs, then --repeat runs of each, default
 * 15; per-page medians): by page set with the default threshold, and by the share of the page that
 * script/style text holds when every page is cut (`cutMinShare: 0`). Prints a markdown section.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeHtml } from '../src/html/decode.js';
import { extractMainText, type MainTextOptions } from '../src/html/maintext.js';
import { readabilityExtract } from './readability-anchor.js';
import { judgeBody } from '../src/html/judge.js';
import { normalizeDate } from '../src/html/meta.js';
import { cutRawText } from '../src/html/rawtext.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const HTML_DIR = join(process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data'), 'html');

interface Page {
  set: string;
  id: string;
  html: string;
  gold: string;
  author?: string;
  date?: string;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const flag = (name: string): boolean => process.argv.includes(name);

function loadSets(sets: string[]): Page[] {
  const pages: Page[] = [];
  const dec = (p: string, id: string): string => decodeHtml(readFileSync(p), { path: id }).html;
  if (sets.includes('cwced')) {
    const d = join(HTML_DIR, 'immortal-autumn+Chinese-Web-Content-Extraction-Dataset');
    for (const f of readdirSync(join(d, 'original')).filter((x) => x.endsWith('.html')).sort()) {
      const b = f.replace(/\.html$/, '.txt');
      const rd = (sub: string): string | undefined => {
        const p = join(d, sub, b);
        if (!existsSync(p)) return undefined;
        const t = readFileSync(p, 'utf8').trim();
        return t && !/^UNKN/i.test(t) ? t : undefined;
      };
      pages.push({ set: 'cwced', id: f, html: dec(join(d, 'original', f), f), gold: readFileSync(join(d, 'cleaned', b), 'utf8'), author: rd('author'), date: rd('date') });
    }
  }
  if (sets.includes('magic')) {
    const d = join(HTML_DIR, 'opendatalab+magic-html', 'benchmark', 'data', 'article');
    const gt = JSON.parse(readFileSync(join(d, 'base_zh_subset.json'), 'utf8')) as Record<string, { url: string; content: string }>;
    for (const h of Object.keys(gt).sort()) {
      const p = join(d, 'htmls', `${h}.html`);
      if (existsSync(p)) pages.push({ set: 'magic', id: h.slice(0, 12), html: dec(p, h), gold: gt[h]!.content });
    }
  }
  if (sets.includes('douban')) {
    const d = join(HTML_DIR, 'YPdeHQQ+python');
    const gt = JSON.parse(readFileSync(join(d, 'derived_review_text.json'), 'utf8')) as Record<string, { text: string }>;
    for (const f of Object.keys(gt).sort()) pages.push({ set: 'douban', id: f, html: dec(join(d, f), f), gold: gt[f]!.text });
  }
  return pages;
}

interface Row {
  ok: number;
  n: number;
  ms: number;
  recall: number;
  precision: number;
  failed: number;
}
const emptyRow = (): Row => ({ ok: 0, n: 0, ms: 0, recall: 0, precision: 0, failed: 0 });

function dateMatches(got: string | undefined, gold: string): boolean {
  if (!got) return false;
  const g = normalizeDate(gold);
  const n = normalizeDate(got);
  if (g && n) return g.slice(0, 10) === n.slice(0, 10);
  // partial ground truth ("2003-5", "2018"): prefix of the normalised date
  const parts = gold.split(/[-/ ]/).map((x) => x.padStart(2, '0'));
  return !!n && n.startsWith(parts.join('-'));
}

/** Mean of the run times, or their median with `--median` (robust to GC pauses and other jobs' bursts). */
function summarize(times: number[], median: boolean): number {
  if (!median) return times.reduce((a, b) => a + b, 0) / times.length;
  const s = [...times].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

function run(pages: Page[], opts: MainTextOptions, anchor: boolean, repeat: number, details: string[] | null, warmup = 0, median = false) {
  const ours = new Map<string, Row>();
  const anc = new Map<string, Row>();
  const meta = { author: 0, authorN: 0, date: 0, dateN: 0, ancAuthor: 0, ancDate: 0 };
  const row = (m: Map<string, Row>, s: string): Row => {
    if (!m.has(s)) m.set(s, emptyRow());
    return m.get(s)!;
  };
  for (const p of pages) {
    // ours
    let text = '';
    let title = '';
    let author: string | undefined;
    let date: string | undefined;
    let topic = '';
    const r = row(ours, p.set);
    r.n++;
    for (let k = 0; k < warmup; k++) {
      try {
        extractMainText(p.html, opts);
      } catch {
        /* timed below */
      }
    }
    const times: number[] = [];
    for (let k = 0; k < repeat; k++) {
      const t0 = performance.now();
      try {
        const x = extractMainText(p.html, opts);
        text = x.text;
        title = x.title;
        author = x.author;
        date = x.date;
        topic = x.meta.topic;
      } catch {
        text = '';
      }
      times.push(performance.now() - t0);
    }
    r.ms += summarize(times, median);
    if (!text) r.failed++;
    // anchor
    let atext = '';
    let atitle = '';
    let aauthor: string | undefined;
    let adate: string | undefined;
    if (anchor) {
      const a = row(anc, p.set);
      a.n++;
      for (let k = 0; k < warmup; k++) {
        try {
          readabilityExtract(p.html);
        } catch {
          /* timed below */
        }
      }
      const atimes: number[] = [];
      for (let k = 0; k < repeat; k++) {
        const t1 = performance.now();
        try {
          const x = readabilityExtract(p.html);
          atext = x?.text ?? '';
          atitle = x?.title ?? '';
          aauthor = x?.author;
          adate = x?.date;
        } catch {
          atext = '';
        }
        atimes.push(performance.now() - t1);
      }
      a.ms += summarize(atimes, median);
      if (!atext) a.failed++;
    }
    const optional = [title, atitle].filter(Boolean);
    const v = judgeBody(text, p.gold, { optional });
    r.ok += v.ok ? 1 : 0;
    r.recall += v.recall;
    r.precision += v.precision;
    let av: ReturnType<typeof judgeBody> | null = null;
    if (anchor) {
      const a = row(anc, p.set);
      av = judgeBody(atext, p.gold, { optional });
      a.ok += av.ok ? 1 : 0;
      a.recall += av.recall;
      a.precision += av.precision;
    }
    if (p.author) {
      meta.authorN++;
      if (author && author.replace(/\s+/g, '') === p.author.replace(/\s+/g, '')) meta.author++;
      if (aauthor && aauthor.replace(/\s+/g, '') === p.author.replace(/\s+/g, '')) meta.ancAuthor++;
    }
    if (p.date && /\d{4}/.test(p.date)) {
      meta.dateN++;
      if (dateMatches(date, p.date)) meta.date++;
      if (dateMatches(adate, p.date)) meta.ancDate++;
    }
    details?.push(
      `${p.set}\t${p.id}\tours=${v.ok ? 'OK' : 'FAIL'} ${v.reason} r=${v.recall.toFixed(2)} p=${v.precision.toFixed(2)} topic=${topic}` +
        (av ? `\tanchor=${av.ok ? 'OK' : 'FAIL'} ${av.reason} r=${av.recall.toFixed(2)} p=${av.precision.toFixed(2)}` : '') +
        (p.author || p.date ? `\tauthor=${author ?? '-'}|${p.author ?? '-'} date=${date ?? '-'}|${p.date ?? '-'}` : ''),
    );
  }
  return { ours, anc, meta };
}

/** `--cut-ab`: uncut / cut time ratios, interleaved page by page (ours only). */
function cutAB(pages: Page[], opts: MainTextOptions, repeat: number): string[] {
  const med = (a: number[]): number => summarize(a, true);
  const time = (html: string, o: MainTextOptions): number => {
    const t0 = performance.now();
    try {
      extractMainText(html, o);
    } catch {
      /* same either way */
    }
    return performance.now() - t0;
  };
  /** Per page: [median ms with `a`, median ms with `b`]. */
  const pair = (html: string, a: MainTextOptions, b: MainTextOptions): [number, number] => {
    for (let k = 0; k < 3; k++) for (const o of [a, b]) time(html, o);
    const ta: number[] = [];
    const tb: number[] = [];
    for (let k = 0; k < repeat; k++) {
      if (k % 2) {
        ta.push(time(html, a));
        tb.push(time(html, b));
      } else {
        tb.push(time(html, b));
        ta.push(time(html, a));
      }
    }
    return [med(ta), med(tb)];
  };
  const uncut = { ...opts, cutRawText: false };
  const out = [
    '',
    `### Script/style pre-scan: time without / with it (ours only, interleaved page by page, ${repeat} runs each, per-page medians)`,
    '',
    '| page set | pages | cut by default | uncut / default, set time | uncut / default, median page |',
    '|---|---:|---:|---:|---:|',
  ];
  const share = new Map<Page, number>();
  for (const p of pages) share.set(p, cutRawText(p.html).chars / Math.max(1, p.html.length));
  for (const set of [...new Set(pages.map((p) => p.set))]) {
    const ps = pages.filter((p) => p.set === set);
    let sa = 0;
    let sb = 0;
    const ratios: number[] = [];
    for (const p of ps) {
      const [a, b] = pair(p.html, opts, uncut);
      sa += a;
      sb += b;
      ratios.push(b / a);
    }
    const cut = ps.filter((p) => share.get(p)! >= (opts.cutMinShare ?? 0.5)).length;
    out.push(`| ${set} | ${ps.length} | ${cut} | ${(sb / sa).toFixed(2)} | ${med(ratios).toFixed(2)} |`);
  }
  out.push('', '| script/style share of the page | pages | uncut / cut (every page cut), summed time |', '|---|---:|---:|');
  const bounds: [number, number, string][] = [[0.9, 2, '≥ 0.9'], [0.7, 0.9, '0.7–0.9'], [0.5, 0.7, '0.5–0.7'], [0.3, 0.5, '0.3–0.5'], [0.1, 0.3, '0.1–0.3'], [0, 0.1, '< 0.1']];
  for (const [lo, hi, label] of bounds) {
    const ps = pages.filter((p) => share.get(p)! >= lo && share.get(p)! < hi);
    if (!ps.length) continue;
    let sa = 0;
    let sb = 0;
    for (const p of ps) {
      const [a, b] = pair(p.html, { ...opts, cutMinShare: 0 }, uncut);
      sa += a;
      sb += b;
    }
    out.push(`| ${label} | ${ps.length} | ${(sb / sa).toFixed(2)} |`);
  }
  return out;
}

const pct = (a: number, n: number): string => (n ? `${((100 * a) / n).toFixed(1)}%` : '–');

function main(): void {
  const sets = (arg('--sets') ?? 'cwced,magic,douban').split(',');
  const anchor = !flag('--no-anchor');
  const repeat = Number(arg('--repeat') ?? 1);
  const warmup = Number(arg('--warmup') ?? 0);
  const opts: MainTextOptions = {};
  if (arg('--decay')) opts.decay = Number(arg('--decay'));
  if (arg('--stop-at')) opts.stopAt = arg('--stop-at') as 'current' | 'child';
  if (flag('--no-trim')) opts.trimMetaLines = false;
  if (flag('--no-hidden')) opts.pruneHidden = false;
  if (flag('--no-cut')) opts.cutRawText = false;
  const out: string[] = ['## Main-text extraction (seed 000) vs Readability', ''];
  if (!existsSync(HTML_DIR)) {
    out.push(`Skipped: needs ../shared/data/html (or $FILMKW_DATA/html).`);
    process.stdout.write(out.join('\n') + '\n');
    return;
  }
  const pages = loadSets(sets);
  const details: string[] | null = arg('--details') ? [] : null;
  const { ours, anc, meta } = run(pages, opts, anchor, repeat, details, warmup, flag('--median'));
  out.push(`Command: \`node --import tsx bench/html.ts${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}\` — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, single thread, decode time excluded.`, '');
  out.push('| page set | pages | ours exact | Readability exact | ours recall / precision | Readability recall / precision | ours pages/s | Readability pages/s | speed-up |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const total = emptyRow();
  const totalA = emptyRow();
  for (const s of sets) {
    const r = ours.get(s);
    if (!r) continue;
    const a = anc.get(s) ?? emptyRow();
    for (const [t, x] of [[total, r], [totalA, a]] as const) {
      t.ok += x.ok;
      t.n += x.n;
      t.ms += x.ms;
      t.recall += x.recall;
      t.precision += x.precision;
    }
    out.push(
      `| ${s} | ${r.n} | ${r.ok} (${pct(r.ok, r.n)}) | ${anchor ? `${a.ok} (${pct(a.ok, a.n)})` : '–'} | ${(r.recall / r.n).toFixed(3)} / ${(r.precision / r.n).toFixed(3)} | ` +
        `${anchor ? `${(a.recall / a.n).toFixed(3)} / ${(a.precision / a.n).toFixed(3)}` : '–'} | ${((1000 * r.n) / r.ms).toFixed(1)} | ${anchor ? ((1000 * a.n) / a.ms).toFixed(1) : '–'} | ${anchor ? `${(a.ms / r.ms).toFixed(1)}×` : '–'} |`,
    );
  }
  out.push(
    `| **all** | ${total.n} | ${total.ok} (${pct(total.ok, total.n)}) | ${anchor ? `${totalA.ok} (${pct(totalA.ok, totalA.n)})` : '–'} | ${(total.recall / total.n).toFixed(3)} / ${(total.precision / total.n).toFixed(3)} | ` +
      `${anchor ? `${(totalA.recall / totalA.n).toFixed(3)} / ${(totalA.precision / totalA.n).toFixed(3)}` : '–'} | ${((1000 * total.n) / total.ms).toFixed(1)} | ${anchor ? ((1000 * totalA.n) / totalA.ms).toFixed(1) : '–'} | ${anchor ? `${(totalA.ms / total.ms).toFixed(1)}×` : '–'} |`,
  );
  if (meta.authorN || meta.dateN) {
    out.push('', `Stated metadata on CWCED (pages with a known value): author exact ${meta.author}/${meta.authorN} (${pct(meta.author, meta.authorN)}), date (day) ${meta.date}/${meta.dateN} (${pct(meta.date, meta.dateN)}); Readability byline ${meta.ancAuthor}/${meta.authorN}, publishedTime ${meta.ancDate}/${meta.dateN}.`);
  }
  if (flag('--sweep')) {
    out.push('', '### Decay threshold T and the node returned at the stop (ours only, exact accuracy on all pages)', '', '| T | stop at current node | stop at child (printed pseudo-code) |', '|---:|---:|---:|');
    for (let t = 0.2; t <= 0.5001; t += 0.02) {
      const c = run(pages, { ...opts, decay: t, stopAt: 'current' }, false, 1, null).ours;
      const h = run(pages, { ...opts, decay: t, stopAt: 'child' }, false, 1, null).ours;
      const sum = (m: Map<string, Row>): [number, number] => [...m.values()].reduce<[number, number]>((acc, x) => [acc[0] + x.ok, acc[1] + x.n], [0, 0]);
      const [co, cn] = sum(c);
      const [ho, hn] = sum(h);
      out.push(`| ${t.toFixed(2)} | ${co}/${cn} (${pct(co, cn)}) | ${ho}/${hn} (${pct(ho, hn)}) |`);
    }
  }
  if (flag('--cut-ab')) out.push(...cutAB(pages, opts, arg('--repeat') ? repeat : 15));
  if (details) writeFileSync(arg('--details')!, details.join('\n') + '\n');
  process.stdout.write(out.join('\n') + '\n');
}

main();
