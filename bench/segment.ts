/**
 * Segmentation benchmark: throughput and memory of the two backends on real film texts.
 *
 *   node --import tsx bench/segment.ts [--limit N] [--user-dict FILE] [--json]
 *
 * Corpus (skipped with a message when ../shared/data is absent): the Douban long reviews of 百鸟朝凤
 * (texts/douban-reviews-bainiaochaofeng/douban_reviews.json, JSON lines; `review_full` a string or an
 * array of strings, joined; lines that are not valid JSON are counted and skipped) and the synopses
 * (`summary` column) of kg/douban-movies-2065/douban_all_movies.csv.
 *
 * Each backend runs in its own child process so that RSS is that backend's alone:
 * - nodejieba: native `cut`, `tag`, `extract(text, 5)` (TF-IDF), `textRankExtract(text, 5)`; `cut` +
 *   the word → tag cache of segmenters/tag-cache.ts, cold and warm (as for node-rs below); and our
 *   `Segmenter.tag` (the cache + offsets); plus the time and RSS of switching dictionaries (reload);
 * - node-rs: native `Jieba.tag` and `cut`; `cut` + the word → tag cache of segmenters/tag-cache.ts
 *   (same output as native `tag`), cold (first pass over the corpus, no warm-up) and warm (again, cache
 *   filled); and our `Segmenter.tag` (the cache + offsets; its user dictionary is `--user-dict`).
 * A third child compares the two backends' tokens (word, tag, offsets). Prints a markdown section.
 *
 *   node --import tsx bench/segment.ts --dict-policy
 *
 * measures the user-dictionary frequency policy instead (src/lexicon/dict.ts): a name set built from the raw
 * KG sources (OpenKG Movie titles, other names, genres and Person names; the 2,065-film CSV's titles,
 * directors, actors, writers and the characters of "（演员 饰）" in its synopses) is exported under each
 * policy, and for each we report the round trip (the name is one token with its tag in 4 neutral
 * contexts, node-rs) and the collateral change (tokens of the corpus that are neither dictionary words
 * nor tokens of the lexicon-off segmentation), plus the backend agreement on dictionary-word tokens.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { createReadStream } from 'node:fs';

const root = fileURLToPath(new URL('../', import.meta.url));
const dataDir = process.env.FILMKW_DATA ?? join(root, '..', 'shared', 'data');
const REVIEWS = join(dataDir, 'texts', 'douban-reviews-bainiaochaofeng', 'douban_reviews.json');
const SYNOPSES = join(dataDir, 'kg', 'douban-movies-2065', 'douban_all_movies.csv');

interface Corpus {
  name: string;
  texts: string[];
  chars: number;
  invalid: number;
}

function readReviews(limit: number): Corpus {
  const texts: string[] = [];
  let invalid = 0;
  for (const line of readFileSync(REVIEWS, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let o: { review_full?: unknown };
    try {
      o = JSON.parse(line) as { review_full?: unknown };
    } catch {
      invalid++;
      continue;
    }
    const f = o.review_full;
    const text = Array.isArray(f) ? f.join('') : typeof f === 'string' ? f : '';
    if (text && texts.length < limit) texts.push(text);
  }
  return { name: 'reviews', texts, chars: texts.reduce((a, t) => a + t.length, 0), invalid };
}

async function readSynopses(limit: number): Promise<Corpus> {
  const texts: string[] = [];
  const parser = createReadStream(SYNOPSES).pipe(parse({ columns: true, bom: true, relax_column_count: true }));
  for await (const row of parser as AsyncIterable<Record<string, string>>) {
    const s = (row.summary ?? '').trim();
    if (s && texts.length < limit) texts.push(s);
  }
  return { name: 'synopses', texts, chars: texts.reduce((a, t) => a + t.length, 0), invalid: 0 };
}

const mb = () => Math.round(process.memoryUsage().rss / 1048576);

function time(texts: string[], fn: (t: string) => unknown, warmUp = 20): number {
  // warm-up on a few documents, then one timed pass
  for (let i = 0; i < Math.min(warmUp, texts.length); i++) fn(texts[i]);
  const t0 = process.hrtime.bigint();
  for (const t of texts) fn(t);
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

interface Row {
  backend: string;
  op: string;
  corpus: string;
  docs: number;
  chars: number;
  seconds: number;
}

async function child(kind: string, limit: number, userDict: string | null): Promise<unknown> {
  const corpora = [readReviews(limit), await readSynopses(limit)];
  const rssStart = mb();
  const rows: Row[] = [];
  const add = (backend: string, op: string, c: Corpus, seconds: number) => rows.push({ backend, op, corpus: c.name, docs: c.texts.length, chars: c.chars, seconds });
  const { createSegmenter } = await import('../src/pipeline/segment.js');
  if (kind === 'nodejieba') {
    const t0 = Date.now();
    const seg = createSegmenter({ backend: 'nodejieba', userDict });
    const loadMs = Date.now() - t0;
    const nodejieba = (await import('nodejieba')).default;
    const rssLoaded = mb();
    const { createNodejiebaTagger } = await import('../src/pipeline/segmenters/nodejieba.js');
    const { prepareUserDict } = await import('../src/lexicon/user-dict.js');
    // The same configuration as `seg` (no reload between them), with a cache of its own.
    const cached = createNodejiebaTagger(prepareUserDict({ userDict })?.holdableText ?? '');
    for (const c of corpora) {
      add('nodejieba', 'cut', c, time(c.texts, (t) => nodejieba.cut(t)));
      add('nodejieba', 'tag', c, time(c.texts, (t) => nodejieba.tag(t)));
      // The tag cache on this backend (segmenters/tag-cache.ts), the same configuration as `seg`: cold, then warm.
      add('nodejieba', 'cut + tag cache, cold', c, time(c.texts, (t) => cached.tag(t), 0));
      add('nodejieba', 'cut + tag cache, warm', c, time(c.texts, (t) => cached.tag(t)));
      add('nodejieba', 'Segmenter.tag', c, time(c.texts, (t) => seg.tag(t)));
      add('nodejieba', 'extract(5)', c, time(c.texts, (t) => nodejieba.extract(t, 5)));
      add('nodejieba', 'textRankExtract(5)', c, time(c.texts, (t) => nodejieba.textRankExtract(t, 5)));
    }
    const rssRun = mb();
    // Switching dictionaries: two nodejieba segmenters alternate (each switch reloads).
    const other = createSegmenter({ backend: 'nodejieba', userDictLines: ['肖申克的救赎 1 nz'] });
    const switches = 6;
    const s0 = Date.now();
    for (let i = 0; i < switches / 2; i++) {
      other.tag('我看了肖申克的救赎。');
      seg.tag('我看了肖申克的救赎。');
    }
    const switchMs = (Date.now() - s0) / switches;
    return { kind, rows, loadMs, rss: { start: rssStart, loaded: rssLoaded, afterRun: rssRun, afterSwitches: mb() }, switchMs };
  }
  if (kind === 'node-rs') {
    const t0 = Date.now();
    const seg = createSegmenter({ backend: 'node-rs', userDict });
    const loadMs = Date.now() - t0;
    const { Jieba } = await import('@node-rs/jieba');
    const { dict } = await import('@node-rs/jieba/dict.js');
    const rssLoaded = mb();
    const raw = Jieba.withDict(dict);
    const rssTwo = mb();
    const { createNodeRsTagger } = await import('../src/pipeline/segmenters/node-rs.js');
    const cached = createNodeRsTagger('');
    for (const c of corpora) {
      add('node-rs', 'cut', c, time(c.texts, (t) => raw.cut(t, true)));
      add('node-rs', 'tag', c, time(c.texts, (t) => raw.tag(t, true)));
      // The tag cache (segmenters/node-rs.ts), same base dictionary: the first pass over a corpus the
      // instance has not seen (no warm-up), then a pass with the cache filled by it.
      add('node-rs', 'cut + tag cache, cold', c, time(c.texts, (t) => cached.tag(t), 0));
      add('node-rs', 'cut + tag cache, warm', c, time(c.texts, (t) => cached.tag(t)));
      add('node-rs', 'Segmenter.tag', c, time(c.texts, (t) => seg.tag(t)));
    }
    return { kind, rows, loadMs, rss: { start: rssStart, loaded: rssLoaded, secondInstance: rssTwo, afterRun: mb() } };
  }
  // agreement
  const a = createSegmenter({ backend: 'node-rs', userDict });
  const b = createSegmenter({ backend: 'nodejieba', userDict });
  let same = 0;
  let total = 0;
  let docsIdentical = 0;
  let docs = 0;
  for (const c of corpora) {
    for (const t of c.texts) {
      const ta = a.tag(t);
      const tb = b.tag(t);
      const key = (x: { word: string; tag: string; start: number }) => `${x.start}\u0000${x.word}\u0000${x.tag}`;
      const sb = new Set(tb.map(key));
      let s = 0;
      for (const x of ta) if (sb.has(key(x))) s++;
      same += s;
      total += Math.max(ta.length, tb.length);
      docs++;
      if (s === ta.length && ta.length === tb.length) docsIdentical++;
    }
  }
  return { kind, same, total, docs, docsIdentical };
}

function runChild(kind: string, args: string[]): Record<string, unknown> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', kind, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`bench/segment: child ${kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

async function dictPolicy(limit: number): Promise<string> {
  const { parse: parseSync } = await import('csv-parse/sync');
  const { exportUserDict } = await import('../src/lexicon/dict.js');
  const { createSegmenter } = await import('../src/pipeline/segment.js');
  const { normalizeName } = await import('../src/kg/model.js');
  type Kind = 'Movie' | 'Person' | 'Character' | 'Genre';
  const names = new Map<string, Set<Kind>>();
  const add = (raw: string, k: Kind) => {
    const n = normalizeName(raw);
    if (!n) return;
    let s = names.get(n);
    if (!s) names.set(n, (s = new Set()));
    s.add(k);
  };
  const openkg = join(dataDir, 'kg', 'openkg-douban-movie');
  for (const r of parseSync(readFileSync(join(openkg, 'Movie.csv')), { columns: true, relax_quotes: true }) as Record<string, string>[]) {
    add(r.title, 'Movie');
    for (const o of (r['othername:String[]'] ?? '').split(';')) if (o) add(o.replace(/\(.*?\)$/u, ''), 'Movie');
    for (const g of (r['category:String[]'] ?? '').split(';')) if (g) add(g, 'Genre');
  }
  for (const r of parseSync(readFileSync(join(openkg, 'Person.csv')), { columns: true }) as Record<string, string>[]) add(r.name, 'Person');
  for (const r of parseSync(readFileSync(SYNOPSES), { columns: true, bom: true, relax_column_count: true }) as Record<string, string>[]) {
    add(r.title, 'Movie');
    for (const f of ['directors', 'actors', 'screenwriters']) for (const p of (r[f] ?? '').split(',')) add(p.trim(), 'Person');
    for (const m of (r.summary ?? '').matchAll(/([\p{Script=Han}·]{2,8})（[^（）]{1,20}?\s*饰）/gu)) add(m[1], 'Character');
  }
  const kg = { names: () => [...names].map(([name, k]) => ({ name, kinds: [...k] })) } as never;
  const texts = [...readReviews(limit).texts, ...(await readSynopses(limit)).texts];
  const off = createSegmenter({ backend: 'node-rs' });
  const offTok = texts.map((t) => new Set(off.tag(t).map((x) => `${x.start}:${x.end}`)));
  const contexts = ['我看了X。', 'X的故事', '关于X，', '是X和他'];
  const policies: [string, object][] = [
    ['suggested ×1 (default)', {}],
    ['suggested ×10', { freqMargin: 10 }],
    ['suggested ×100', { freqMargin: 100 }],
    ['fixed 1,000', { fixedFreq: 1000 }],
    ['fixed 100,000', { fixedFreq: 100000 }],
    ['fixed 10,000,000', { fixedFreq: 10000000 }],
    ['suggested ×1, no compound parts', { compoundParts: false }],
  ];
  const out = [
    `Names: ${names.size} (raw KG sources, see bench/segment.ts); corpus: ${texts.length} texts.`,
    '',
    '| policy | entries | round trip (4 contexts) | failures | name tokens in corpus | collateral tokens |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  let agreement = '';
  for (const [label, opts] of policies) {
    const ex = exportUserDict(kg, opts);
    const seg = createSegmenter({ backend: 'node-rs', userDictLines: ex.lines });
    const dictWords = new Set(ex.lines.map((l) => l.split(' ')[0]));
    let ok = 0;
    let tot = 0;
    for (const l of ex.lines) {
      const [w, , tag] = l.split(' ');
      if (!names.has(w)) continue;
      for (const c of contexts) {
        tot++;
        if (seg.tag(c.replace('X', w)).some((t) => t.word === w && t.tag === tag)) ok++;
      }
    }
    let coll = 0;
    let nameTok = 0;
    let all = 0;
    texts.forEach((t, i) => {
      for (const x of seg.tag(t)) {
        all++;
        if (dictWords.has(x.word)) nameTok++;
        else if (!offTok[i].has(`${x.start}:${x.end}`)) coll++;
      }
    });
    out.push(`| ${label} | ${ex.lines.length} | ${((100 * ok) / tot).toFixed(2)} % | ${tot - ok} | ${nameTok} | ${coll} (${((100 * coll) / all).toFixed(2)} %) |`);
    if (agreement === '') {
      const nj = createSegmenter({ backend: 'nodejieba', userDictLines: ex.lines });
      let same = 0;
      let diff = 0;
      for (const t of texts) {
        const key = (x: { word: string; tag: string; start: number; end: number }) => `${x.start}:${x.end}:${x.word}:${x.tag}`;
        const a = seg.tag(t).filter((x) => dictWords.has(x.word)).map(key);
        const b = new Set(nj.tag(t).filter((x) => dictWords.has(x.word)).map(key));
        for (const k of a) if (b.has(k)) same++;
        diff += a.length + b.size - 2 * a.filter((k) => b.has(k)).length;
      }
      agreement = `Backend agreement on dictionary-word tokens (default policy): ${same} identical, ${diff} differing. Skipped names: ${JSON.stringify(ex.stats.skippedByReason)}; compounds ${ex.stats.compounds}, parts ${ex.stats.parts}, common words ${ex.stats.commonWords}.`;
    }
  }
  out.push('', agreement, '');
  return out.join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const limit = Number(opt('--limit') ?? Infinity);
  const userDict = opt('--user-dict') ?? null;
  const childKind = opt('--child');
  if (childKind) {
    process.stdout.write(`${JSON.stringify(await child(childKind, limit, userDict))}\n`);
    return;
  }
  const out: string[] = ['## Segmentation (bench/segment.ts)', ''];
  if (argv.includes('--dict-policy')) {
    if (!existsSync(join(dataDir, 'kg', 'openkg-douban-movie', 'Movie.csv')) || !existsSync(SYNOPSES)) {
      process.stdout.write('## User-dictionary frequency policy\n\nSkipped: needs ../shared/data.\n');
      return;
    }
    process.stdout.write(`## User-dictionary frequency policy (bench/segment.ts --dict-policy)\n\n${await dictPolicy(limit)}`);
    return;
  }
  if (!existsSync(REVIEWS) || !existsSync(SYNOPSES)) {
    out.push(`Skipped: needs ../shared/data (${REVIEWS} and ${SYNOPSES}).`, '');
    process.stdout.write(out.join('\n'));
    return;
  }
  const pass = [...(opt('--limit') ? ['--limit', opt('--limit')!] : []), ...(userDict ? ['--user-dict', userDict] : [])];
  const nj = runChild('nodejieba', pass) as { rows: Row[]; loadMs: number; rss: Record<string, number>; switchMs: number };
  const rs = runChild('node-rs', pass) as { rows: Row[]; loadMs: number; rss: Record<string, number> };
  const ag = runChild('agree', pass) as { same: number; total: number; docs: number; docsIdentical: number };
  const rev = readReviews(limit);
  const syn = await readSynopses(limit);
  if (opt('--json') !== undefined || argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ nodejieba: nj, nodeRs: rs, agreement: ag })}\n`);
    return;
  }
  out.push(
    `Corpus: ${rev.texts.length} Douban reviews (${fmt(rev.chars)} chars; ${rev.invalid} lines not valid JSON skipped) and ${syn.texts.length} synopses (${fmt(syn.chars)} chars). ` +
      `User dictionary: ${userDict ? 'given' : 'none'}. One timed pass after a 20-document warm-up (none for the cold cache row; the warm row follows it on the same instance); load average ${(await import('node:os')).loadavg()[0].toFixed(1)}; ${process.version}, ${(await import('node:os')).cpus().length} cores.`,
    '',
    '| backend | operation | corpus | docs/s | chars/s |',
    '|---|---|---|---:|---:|',
  );
  for (const r of [...nj.rows, ...rs.rows]) {
    out.push(`| ${r.backend} | ${r.op} | ${r.corpus} | ${fmt(r.docs / r.seconds)} | ${fmt(r.chars / r.seconds)} |`);
  }
  out.push(
    '',
    '| backend | dictionary load | RSS before load | RSS after load | RSS after run | other |',
    '|---|---:|---:|---:|---:|---|',
    `| nodejieba | ${nj.loadMs} ms | ${nj.rss.start} MB | ${nj.rss.loaded} MB | ${nj.rss.afterRun} MB | dictionary switch (reload) ${Math.round(nj.switchMs)} ms each; RSS after 6 switches ${nj.rss.afterSwitches} MB |`,
    `| node-rs | ${rs.loadMs} ms | ${rs.rss.start} MB | ${rs.rss.loaded} MB | ${rs.rss.afterRun} MB | a second instance: RSS ${rs.rss.secondInstance} MB |`,
    '',
    `Agreement node-rs vs nodejieba (same word, tag and offset): ${((100 * ag.same) / ag.total).toFixed(2)} % of tokens; ${ag.docsIdentical} of ${ag.docs} documents identical.`,
    '',
  );
  process.stdout.write(out.join('\n'));
}

await main();
