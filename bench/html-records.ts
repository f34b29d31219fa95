/**
 * bench/html-records.ts — record extraction from list pages (seed 002), both modes, on the real pages
 * in ../shared/data/html (skipped with a note when absent). Prints a markdown section:
 *   completeness = records found / records on the page, accuracy = correct records / records found
 *   (Douban pages: a record is correct when subject id / title / rating / credits / year / countries /
 *   genres equal the crawler's own record; the 9 Gerapy list pages only have record counts, so only
 *   completeness is given there), and pages/s per mode (rendered: one browser for all pages, launch
 *   time excluded and reported separately).
 *
 *   node --import tsx bench/html-records.ts [--mode structural|rendered|both]
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { recordsOfFile, chromiumAvailable, type PageRecord, type RecordRenderer } from '../src/html/records.js';
import { parseBd, parsePyList } from '../src/html/douban-fields.js';
import { decodeEntities } from '../src/kg/sources/common.js';

const DATA = fileURLToPath(new URL('../../shared/data/html/', import.meta.url));
const out = (s = '') => process.stdout.write(`${s}\n`);

interface Truth {
  /** Expected record count. */
  count: number;
  /** Checks one record; undefined when there is no per-record truth. */
  check?: (r: PageRecord) => boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const credits = (r: PageRecord) => [r.directors, r.actors, r.year, r.countries, r.genres];

function page1Truth(): Truth {
  const items = readFileSync(`${DATA}helloxizhao+douban/items.jl`, 'utf8').trim().split('\n').slice(0, 25).map((l) => JSON.parse(l) as { name: string; director_and_player: string[] });
  const byTitle = new Map(items.map((t) => [t.name, t]));
  return {
    count: 25,
    check: (r) => {
      const t = byTitle.get(r.title ?? '');
      if (!t) return false;
      const w = parseBd(t.director_and_player[0], t.director_and_player[1]);
      return same(credits(r), [w.directors, w.actors, w.year, w.countries, w.genres]);
    },
  };
}

function compositeTruth(): Truth {
  const truth = new Map<string, unknown[]>();
  for (const line of readFileSync(`${DATA}xyxdegithub+douban/top250keyInfor.txt`, 'utf8').split('\n')) {
    const v = parsePyList(line);
    if (v) truth.set(/subject\/(\d+)/.exec(String(v[0]))?.[1] ?? '', v);
  }
  return {
    count: truth.size,
    check: (r) => {
      const t = truth.get(r.subjectId ?? '');
      if (!t) return false;
      const [c, m] = String(t[7]).split('<br/>');
      const w = parseBd(c, m);
      const second = decodeEntities(String(t[3])).replace(/[\s\u00a0/]+/g, ' ').trim();
      return r.title === t[2] && r.rating === Number(t[4]) && (second === '' || r.otherTitles?.[0] === second) && same(credits(r), [w.directors, w.actors, w.year, w.countries, w.genres]);
    },
  };
}

function pages(): { path: string; name: string; truth: Truth }[] {
  const list: { path: string; name: string; truth: Truth }[] = [
    { path: `${DATA}helloxizhao+douban/top250.html`, name: 'Douban Top250 p.1 (served)', truth: page1Truth() },
    { path: `${DATA}xyxdegithub+douban/top250.html`, name: 'Douban Top250 composite (250)', truth: compositeTruth() },
  ];
  const counts = JSON.parse(readFileSync(`${DATA}Gerapy+GerapyAutoExtractor/expected_list_counts_from_tests.json`, 'utf8')) as Record<string, number | { count: number }>;
  for (const [k, v] of Object.entries(counts)) {
    if (k.startsWith('_')) continue;
    list.push({ path: `${DATA}Gerapy+GerapyAutoExtractor/${k}`, name: k.replace(/^samples\/list\//, '').replace(/\.html$/, ''), truth: { count: typeof v === 'number' ? v : v.count } });
  }
  return list;
}

interface Row {
  name: string;
  expected: number;
  found: number;
  correct: number | null;
  ms: number;
}

async function run(mode: 'structural' | 'rendered'): Promise<{ rows: Row[]; launchMs: number; seconds: number }> {
  let renderer: RecordRenderer | null = null;
  let launchMs = 0;
  if (mode === 'rendered') {
    const t = performance.now();
    renderer = await (await import('../src/html/render.js')).createRecordRenderer();
    launchMs = performance.now() - t;
  }
  const rows: Row[] = [];
  const t0 = performance.now();
  try {
    for (const p of pages()) {
      const r = await recordsOfFile(p.path, p.name, { renderer });
      const recs = r.lines.filter((l): l is PageRecord => 'kind' in l);
      rows.push({ name: p.name, expected: p.truth.count, found: recs.length, correct: p.truth.check ? recs.filter(p.truth.check).length : null, ms: r.ms });
    }
  } finally {
    if (renderer) await renderer.close();
  }
  return { rows, launchMs, seconds: (performance.now() - t0) / 1000 };
}

const pct = (a: number, b: number) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)} %`);

async function main(): Promise<void> {
  out('## html records (seed 002: list-page records, both modes)');
  out();
  if (!existsSync(DATA)) {
    out('_skipped: needs ../shared/data/html_');
    return;
  }
  const arg = process.argv.indexOf('--mode');
  const want = arg > 0 ? process.argv[arg + 1] : 'both';
  const modes: ('structural' | 'rendered')[] = [];
  if (want !== 'rendered') modes.push('structural');
  if (want !== 'structural') {
    if (chromiumAvailable()) modes.push('rendered');
    else out('_rendered mode skipped: /usr/bin/chromium not installed (apt-get install chromium)_\n');
  }
  const results = new Map<string, Awaited<ReturnType<typeof run>>>();
  for (const m of modes) results.set(m, await run(m));
  const names = [...results.values()][0].rows.map((r) => r.name);
  const head = ['page', 'records on page'];
  for (const m of modes) head.push(`${m}: found`, `${m}: completeness`, `${m}: accuracy`);
  out(`| ${head.join(' | ')} |`);
  out(`|${head.map(() => '---').join('|')}|`);
  for (const [i, name] of names.entries()) {
    const cells = [name, String([...results.values()][0].rows[i].expected)];
    for (const m of modes) {
      const r = results.get(m)!.rows[i];
      cells.push(String(r.found), pct(Math.min(r.found, r.expected), r.expected), r.correct === null ? 'n/a (counts only)' : `${pct(r.correct, r.found)} (${r.correct}/${r.found})`);
    }
    out(`| ${cells.join(' | ')} |`);
  }
  out();
  for (const m of modes) {
    const r = results.get(m)!;
    const douban = r.rows.filter((x) => x.correct !== null);
    const found = douban.reduce((n, x) => n + x.found, 0);
    const exp = douban.reduce((n, x) => n + x.expected, 0);
    const cor = douban.reduce((n, x) => n + (x.correct ?? 0), 0);
    const g = r.rows.filter((x) => x.correct === null);
    const gComp = g.reduce((n, x) => n + Math.min(x.found, x.expected), 0) / g.reduce((n, x) => n + x.expected, 0);
    out(
      `- **${m}**: Douban pages completeness ${pct(Math.min(found, exp), exp)}, accuracy ${pct(cor, found)}; ` +
        `Gerapy list pages completeness (record counts) ${(100 * gComp).toFixed(1)} %, exact count on ${g.filter((x) => x.found === x.expected).length}/${g.length} pages; ` +
        `${r.rows.length} pages in ${r.seconds.toFixed(1)} s = ${(r.rows.length / r.seconds).toFixed(2)} pages/s` +
        (m === 'rendered' ? ` (browser launch ${Math.round(r.launchMs)} ms, not included)` : ''),
    );
  }
  out();
  out('Command: `node --import tsx bench/html-records.ts` (or `npm run bench -- html-records`). Counts of the 9 Gerapy pages are the');
  out('record counts asserted by GerapyAutoExtractor\'s own tests (tencent: marked wrong by its authors), not hand-verified truth.');
}

await main();
