// The JSON API of `filmkw serve` on a real listening server (port 0) with the bundled demo KG:
// extraction equal to the library's, occurrences and graph consistent with the text, KG look-ups,
// compare, batch files, and the error paths (400 naming the field, 404, 413, Host check).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { loadKg } from '../../src/kg/load.js';
import type { KgStore } from '../../src/kg/store.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { keywordsJson } from '../../src/batch/format.js';
import { runTag } from '../../src/batch/tag-run.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { loadBatch, parseTagOutput } from '../../src/serve/batch.js';
import { FilmkwError } from '../../src/errors.js';
import { evaluate } from '../../src/eval/metrics.js';

const SAMPLES = 'datasets/samples/reviews.jsonl';
const samples = readFileSync(SAMPLES, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { id: string; text: string; tag: string[] });

let kg: KgStore;
let server: RunningServer;
let small: RunningServer;
let dir: string;

before(async () => {
  kg = await loadKg();
  dir = mkdtempSync(join(tmpdir(), 'filmkw-serve-api-'));
  const tags = join(dir, 'tags.jsonl');
  await runTag({ input: SAMPLES, format: 'jsonl', idField: 'id', out: tags, topK: 5, stderr: new (await import('node:stream')).PassThrough() });
  const batch = await loadBatch({ files: [tags], input: SAMPLES, idField: 'id', gold: SAMPLES });
  server = await startServer({ kg, kgLabel: 'demo', batch, port: 0, limits: { workers: 1 } }); // one light worker: the calls come one at a time (filmkw serve with its defaults: test/reliability/slow/serve-process)
  small = await startServer({ kg, kgLabel: 'demo', batch: [], port: 0, preset: 'textrank', limits: { maxBodyBytes: 2048, workers: 1 } }); // the body cap only: one worker, warming the cheap textrank up
});
after(async () => {
  await server?.close();
  await small?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * GET (no body) or POST JSON, each call on a connection of its own (`agent: false`): between calls the
 * tests block this process's event loop in the library's extraction, on a loaded machine longer than the
 * server's keep-alive timeout, and a pooled connection the server closes just as the next request goes
 * out on it is a connection reset.
 */
function call(path: string, body?: unknown, base = server.url): Promise<{ status: number; json: any }> {
  const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers = data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) };
  return new Promise((resolve, reject) => {
    const req = request(base + path.replace(/^\//u, ''), { method: data === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

test('binds 127.0.0.1 by default and serves the info', async () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/u);
  const { status, json } = await call('/api/info');
  assert.equal(status, 200);
  assert.ok(json.presets.includes('textrank+w+g+r'));
  // the first view's preset without --preset: the default, filmkw-rerank
  assert.deepEqual([json.preset, json.topK], ['filmkw-rerank', 5]);
  assert.equal(json.kg.entities, kg.entityCount);
  assert.deepEqual(json.batch, [{ index: 0, name: 'tags.jsonl', records: samples.length, hasText: true, hasGold: true }]);
});

test('POST /api/extract: keywords equal the library (tag output form), occurrences and graph match the text', async () => {
  for (const preset of ['filmkw-rerank', 'filmkw', 'textrank+w+g+r', 'textrank']) {
    const ex = createExtractor({ preset, kg });
    for (const s of samples.slice(0, 4)) {
      const { status, json } = await call('/api/extract', { text: s.text, preset, topK: 5, explain: true });
      assert.equal(status, 200);
      const expected = JSON.parse(keywordsJson(ex.extract(s.text, { topK: 5, explain: true }), true));
      assert.deepEqual(
        json.keywords.map(({ rank, ...k }: { rank: number }) => k),
        expected,
        `${preset} ${s.id}`,
      );
      assert.deepEqual(
        json.keywords.map((k: { rank: number }) => k.rank),
        expected.map((_: unknown, i: number) => i + 1),
      );
      // every occurrence is its node's surface (or, merged, a surface of the same entity), in text order
      let last = -1;
      for (const o of json.occurrences) {
        assert.ok(o.start > last && o.end > o.start && o.end <= s.text.length);
        last = o.start;
        const node = json.nodes[o.node];
        if (!node.entityId) assert.equal(s.text.slice(o.start, o.end), node.word);
      }
      for (const e of json.edges) {
        assert.ok(e.source < json.nodes.length && e.target < json.nodes.length && e.source !== e.target);
        assert.deepEqual(e.kinds, [e.cooc > 0 && 'cooc', e.kg > 0 && 'kg', e.sem > 0 && 'sem'].filter(Boolean));
      }
      const hasKg = json.edges.some((e: { kinds: string[] }) => e.kinds.includes('kg'));
      if (preset === 'textrank') assert.equal(hasKg, false, 'textrank has no KG edges');
      // single-word keywords are graph nodes with their rank
      for (const k of json.keywords) {
        const node = json.nodes.find((n: { word: string }) => n.word === k.word);
        if (node) assert.equal(node.keyword, k.rank);
        else assert.ok(k.explain.phrase, `${k.word} is a phrase`);
      }
    }
  }
  // without "preset": the default (filmkw-rerank, the bundled re-rank model), its σ(logit) scores
  const rerank = createExtractor({ preset: 'filmkw-rerank', kg });
  for (const s of samples.slice(0, 2)) {
    const { status, json } = await call('/api/extract', { text: s.text, explain: true });
    assert.equal(status, 200);
    assert.deepEqual(json.keywords.map(({ rank, ...k }: { rank: number }) => k), JSON.parse(keywordsJson(rerank.extract(s.text, { explain: true }), true)), s.id);
    for (const k of json.keywords) assert.ok(k.score > 0 && k.score < 1 && k.explain.rerank, `${s.id} ${k.word}: re-ranked`);
  }
  // KG edges do appear with the KG presets on the demo texts
  const { json } = await call('/api/extract', { text: samples[0].text, preset: 'textrank+w+g' });
  assert.ok(json.edges.some((e: { kinds: string[] }) => e.kinds.includes('kg')));
});

test('the pipeline inspect hook: called once per document, keywords unchanged, trace consistent', () => {
  const ex = createExtractor({ preset: 'textrank+w+g+r', kg });
  const text = samples[0].text;
  const traces: import('../../src/pipeline/api.js').ExtractTrace[] = [];
  const withHook = ex.extract(text, { topK: 5, explain: true, inspect: (t) => traces.push(t) });
  assert.deepEqual(withHook, ex.extract(text, { topK: 5, explain: true }));
  assert.equal(traces.length, 1);
  const { tokens, doc, graph, rank } = traces[0];
  assert.equal(graph.words.length, doc.words.length);
  assert.equal(rank.length, doc.words.length);
  for (let k = 0; k < doc.node.length; k++) assert.equal(tokens[doc.tokenIndex[k]].start, doc.charStart[k]);
  // the top keyword has the highest rank score among the graph's words here (no IDF prior in this preset)
  const best = doc.words[rank.indexOf(Math.max(...rank))];
  assert.equal(withHook[0].word, best);
});

test('POST /api/extract: phrase keywords get text spans', async () => {
  const text = samples.map((s) => s.text).join('');
  const { json } = await call('/api/extract', { text, preset: 'filmkw', topK: 30 });
  const phrases = json.keywords.filter((k: { explain: { phrase?: unknown } }) => k.explain.phrase);
  for (const span of json.phraseSpans) {
    const k = json.keywords[span.keyword - 1];
    assert.equal(text.slice(span.start, span.end), k.word);
  }
  assert.equal(new Set(json.phraseSpans.map((s: { keyword: number }) => s.keyword)).size, phrases.length);
});

test('POST /api/extract: errors are 400 JSON naming the field', async () => {
  const cases: [unknown, string | undefined, RegExp][] = [
    [{}, 'text', /"text" must be a string/u],
    [{ text: 5 }, 'text', /string/u],
    [{ text: '   ' }, 'text', /empty/u],
    [{ text: '长津湖', preset: 'nope' }, 'preset', /must be one of/u],
    [{ text: '长津湖', topK: 0 }, 'topK', /integer from 1/u],
    [{ text: '长津湖', topK: 2.5 }, 'topK', /integer/u],
    [{ text: '长津湖', explain: 'yes' }, 'explain', /true or false/u],
    [{ text: '长津湖', options: { 'graph.window': 'wide' } }, 'options', /^bad value for graph\.window: "wide" \(expected an integer/u],
    [{ text: '长津湖', options: { 'prior.idf': 'none' } }, 'options', /^bad value for prior\.idf: "none" \(expected 'off' \| 'multiply'\)$/u],
    [{ text: '长津湖', options: { 'no.such': 1 } }, 'options', /no\.such|unknown/u],
    [{ text: '长津湖', options: [1] }, 'options', /object/u],
    ['{"text": ', undefined, /must be JSON/u],
    ['[1]', undefined, /JSON object/u],
  ];
  for (const [body, field, message] of cases) {
    const { status, json } = await call('/api/extract', body);
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(json.field, field, JSON.stringify(body));
    assert.match(json.error, message);
  }
  // inherited keys are not read as fields
  const { status, json } = await call('/api/extract', '{"__proto__": {"text": "长津湖"}}');
  assert.equal(status, 400);
  assert.equal(json.field, 'text');
});

test('body cap: 413 JSON; unknown route: 404 JSON; foreign Host: 403', async () => {
  const big = await call('/api/extract', { text: '长津湖'.repeat(2000) }, small.url);
  assert.equal(big.status, 413);
  assert.match(big.json.error, /larger than 2048 bytes/u);
  const ok = await call('/api/extract', { text: '《长津湖》里的伍万里' }, small.url);
  assert.equal(ok.status, 200);
  const missing = await call('/api/nothing');
  assert.equal(missing.status, 404);
  assert.match(missing.json.error, /no such resource/u);
  // fetch sets Host itself: a raw request with a foreign Host (DNS rebinding)
  const status = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}api/info`, { headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  assert.equal(await status('attacker.example:80'), 403);
  assert.equal(await status(`localhost:${server.port}`), 200);
});

test('KG: entity by name and alias with its neighbourhood and relation kinds; by id; search; 404', async () => {
  const { status, json } = await call(`/api/kg/entity?name=${encodeURIComponent('吴京')}`);
  assert.equal(status, 200);
  const wu = json.matches[0];
  assert.equal(wu.kind, 'Person');
  const lake = wu.neighbours.find((n: { name: string }) => n.name === '长津湖');
  assert.deepEqual(lake.relations, [{ kind: 'ACTED_IN', direction: 'out' }]);
  // the neighbourhood is the store's (every neighbour, and only those)
  const i = kg.entityIndex(wu.id);
  assert.deepEqual(new Set(wu.neighbours.map((n: { id: string }) => n.id)), new Set(Array.from(kg.neighbours(i), (j) => kg.idOf(j))));
  const played = wu.neighbours.find((n: { kind: string }) => n.kind === 'Character');
  assert.equal(played.relations[0].kind, 'PLAYED');
  assert.ok(played.relations[0].movieId);

  const movie = await call(`/api/kg/entity/${encodeURIComponent(lake.id)}`);
  assert.equal(movie.status, 200);
  assert.equal(movie.json.name, '长津湖');
  assert.ok(movie.json.neighbours.some((n: { id: string; relations: { direction: string }[] }) => n.id === wu.id && n.relations[0].direction === 'in'));
  const character = movie.json.neighbours.find((n: { kind: string }) => n.kind === 'Character');
  assert.deepEqual(character.relations, [{ kind: 'IN_MOVIE', direction: 'in' }]);
  // by alias
  const alias = movie.json.aliases[0];
  assert.ok(alias, 'the demo 长津湖 has an alias');
  const byAlias = await call(`/api/kg/entity?name=${encodeURIComponent(alias)}`);
  assert.equal(byAlias.json.matches[0].id, lake.id);

  const search = await call(`/api/kg/search?q=${encodeURIComponent('长津')}`);
  assert.ok(search.json.matches.some((m: { id: string }) => m.id === lake.id));
  const none = await call(`/api/kg/entity?name=${encodeURIComponent('没有这个人')}`);
  assert.equal(none.status, 404);
  assert.equal(none.json.field, 'name');
  const noId = await call('/api/kg/entity/person%2Fnobody');
  assert.equal(noId.status, 404);
  assert.equal((await call('/api/kg/search?q=')).json.field, 'q');
});

test('POST /api/compare: presets side by side, differences, the ladder, gold hits', async () => {
  const s = samples[0];
  const { status, json } = await call('/api/compare', { text: s.text, presets: ['textrank', 'textrank+w+g+r'], topK: 5, gold: s.tag });
  assert.equal(status, 200);
  const [a, b] = json.results.map((r: { keywords: { word: string }[] }) => r.keywords.map((k) => k.word));
  assert.deepEqual(json.only, [a.filter((w: string) => !b.includes(w)), b.filter((w: string) => !a.includes(w))]);
  assert.deepEqual(json.added, [[], b.filter((w: string) => !a.includes(w))]);
  assert.deepEqual(json.hits[1], b.filter((w: string) => s.tag.includes(w)));
  assert.ok(json.hits[1].length > json.hits[0].length, 'the full model finds more of sample-01 than TextRank');
  // the paper's ladder: each step against the one before
  const ladder = ['textrank', 'textrank+w', 'textrank+w+g', 'textrank+w+g+r'];
  const steps = await call('/api/compare', { text: s.text, presets: ladder, topK: 5 });
  assert.deepEqual(steps.json.results.map((r: { preset: string }) => r.preset), ladder);
  const words = steps.json.results.map((r: { keywords: { word: string }[] }) => r.keywords.map((k) => k.word));
  for (let i = 1; i < 4; i++) assert.deepEqual(steps.json.added[i], words[i].filter((w: string) => !words[i - 1].includes(w)));
  for (let i = 0; i < 4; i++) assert.deepEqual(steps.json.only[i], words[i].filter((w: string) => words.every((o: string[], j: number) => j === i || !o.includes(w))));
  for (const presets of [['textrank'], ['textrank', 'textrank', 'textrank', 'textrank', 'textrank'], 'textrank']) {
    const bad = await call('/api/compare', { text: s.text, presets });
    assert.equal(bad.json.field, 'presets');
  }
  const badName = await call('/api/compare', { text: s.text, presets: ['textrank', 'x'] });
  assert.equal(badName.json.field, 'presets[1]');
});

test('batch: only the files given, filters, most frequent keywords, gold hits', async () => {
  const page = await call('/api/batch/0?limit=5');
  assert.equal(page.status, 200);
  assert.equal(page.json.total, samples.length);
  assert.equal(page.json.records.length, 5);
  assert.equal(page.json.records[0].id, 'sample-01');
  assert.equal(page.json.records[0].text, samples[0].text);
  const lines = readFileSync(join(dir, 'tags.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(page.json.records[0].keywords, lines[0].keywords);
  assert.deepEqual(page.json.records[0].hits, lines[0].keywords.map((k: { word: string }) => k.word).filter((w: string) => samples[0].tag.includes(w)));
  // the most frequent keywords, counted over the file
  const counts = new Map<string, number>();
  for (const l of lines) for (const k of l.keywords) counts.set(k.word, (counts.get(k.word) ?? 0) + 1);
  assert.equal(page.json.top[0].count, Math.max(...counts.values()));
  const filtered = await call(`/api/batch/0?keyword=${encodeURIComponent('长津湖')}`);
  assert.deepEqual(
    filtered.json.records.map((r: { id: string }) => r.id),
    lines.filter((l) => l.keywords.some((k: { word: string }) => k.word.includes('长津湖'))).map((l) => l.id),
  );
  const entity = lines[0].keywords.find((k: { entityId?: string }) => k.entityId).entityId;
  const byEntity = await call(`/api/batch/0?entity=${encodeURIComponent(entity)}`);
  assert.ok(byEntity.json.matched >= 1);
  for (const r of byEntity.json.records) assert.ok(r.keywords.some((k: { entityId?: string }) => k.entityId === entity));
  // by name: the records with a keyword annotated with an entity of that name
  const byName = await call(`/api/batch/0?entity=${encodeURIComponent('吴京')}`);
  assert.deepEqual(
    byName.json.records.map((r: { id: string }) => r.id),
    lines.filter((l) => l.keywords.some((k: { entityId?: string }) => k.entityId === 'person/name/吴京')).map((l) => l.id),
  );
  assert.ok(byName.json.matched >= 1);
  assert.equal((await call(`/api/batch/0?entity=${encodeURIComponent('没有这个人')}`)).json.matched, 0);
  // scores against the gold keywords: filmkw eval's protocol at K = the run's top K, for the file and the filtered records
  const judged = (ls: typeof lines) => ls.map((l) => ({ id: l.id, gold: samples.find((x) => x.id === l.id)!.tag, predicted: l.keywords.map((k: { word: string }) => k.word) }));
  const want = (ls: typeof lines) => {
    const e = evaluate(judged(ls), { ks: [5] });
    const r4 = (x: { p: number; r: number; f1: number }) => ({ p: Math.round(x.p * 1e4) / 1e4, r: Math.round(x.r * 1e4) / 1e4, f1: Math.round(x.f1 * 1e4) / 1e4 });
    return { docs: ls.length, k: 5, macro: r4(e.macro['5']), micro: r4(e.micro['5']) };
  };
  assert.deepEqual(page.json.scores, { file: want(lines), matched: want(lines) });
  assert.deepEqual(filtered.json.scores, { file: want(lines), matched: want(lines.filter((l) => l.keywords.some((k: { word: string }) => k.word.includes('长津湖')))) });
  assert.ok(page.json.scores.file.macro.f1 > 0.3, 'the samples are tagged well');
  for (const path of ['/api/batch/1', '/api/batch/..%2F..%2Fetc%2Fpasswd', '/api/batch/-1']) {
    const r = await call(path);
    assert.equal(r.status, 404, path);
    assert.equal(r.json.field, 'file');
  }
  assert.equal((await call('/api/batch/0?limit=abc')).json.field, 'limit');
});

test('batch files: a bad line is an error naming file, line and field', async () => {
  assert.throws(() => parseTagOutput('{"id":"a","keywords":[]}\nnot json\n', 't.jsonl'), (e: Error) => e instanceof FilmkwError && /t\.jsonl:2: not a JSON line/u.test(e.message));
  assert.throws(() => parseTagOutput('{"id":"a","keywords":[{"word":1}]}\n', 't.jsonl'), /t\.jsonl:1: field "keywords\[0\]"/u);
  assert.throws(() => parseTagOutput('{"id":"a"}\n', 't.jsonl'), /t\.jsonl:1: field "keywords" must be an array/u);
  const r = parseTagOutput('{"id":"a","line":3,"error":"bad record"}\n\n{"id":7,"keywords":[]}\n', 't.jsonl');
  assert.deepEqual(r.map((x) => [x.id, x.line, x.error]), [['a', 1, 'bad record'], ['7', 3, undefined]]);
  const other = join(dir, 'other.jsonl');
  writeFileSync(other, '{"id":"zzz","keywords":[]}\n');
  await assert.rejects(loadBatch({ files: [other], input: SAMPLES, idField: 'id' }), /no record id of .*other\.jsonl is in --input/u);
  await assert.rejects(loadBatch({ files: [join(dir, 'missing.jsonl')] }), /cannot read .*missing\.jsonl \(ENOENT\)/u);
});

test('the document context: film and title go to the extractor (the answer says how the KG resolved the film); the film picker searches films only; bad values are 400 naming the field', async () => {
  const text = samples[0].text;
  const kgFilm = await call('/api/extract', { text, film: '长津湖', title: '透过伍万里的眼睛看长津湖' });
  assert.equal(kgFilm.status, 200);
  assert.deepEqual(kgFilm.json.film, { value: '长津湖', id: 'movie/name/长津湖', name: '长津湖' });
  // the same keywords as the library given the same context
  const ex = createExtractor({ preset: 'filmkw-rerank', kg });
  const expected = JSON.parse(keywordsJson(ex.extract(text, { topK: 5, explain: true, film: '长津湖', title: '透过伍万里的眼睛看长津湖' }), true)) as { word: string }[];
  assert.deepEqual(kgFilm.json.keywords.map((k: { word: string }) => k.word), expected.map((k) => k.word));
  const byId = await call('/api/extract', { text, film: 'movie/name/长津湖' });
  assert.equal(byId.json.film.id, 'movie/name/长津湖', 'a KG film id, as the picker gives it');
  const unknown = await call('/api/extract', { text, film: '没有这部电影' });
  assert.deepEqual(unknown.json.film, { value: '没有这部电影', id: null, name: null });
  const none = await call('/api/extract', { text, film: '  ' });
  assert.equal(none.json.film, undefined, 'a blank film is no film');
  const compare = await call('/api/compare', { text, presets: ['filmkw', 'filmkw-rerank'], film: '长津湖' });
  assert.equal(compare.status, 200);
  assert.equal(compare.json.results[1].film.id, 'movie/name/长津湖');
  for (const [body, field] of [[{ text, film: 5 }, 'film'], [{ text, title: ['x'] }, 'title'], [{ text, film: 'x'.repeat(501) }, 'film']] as const) {
    const r = await call('/api/extract', body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 60));
    assert.equal(r.json.field, field);
  }
  const films = await call('/api/kg/search?q=长津湖&kind=Movie');
  assert.ok(films.json.matches.length > 0 && films.json.matches.every((m: { kind: string }) => m.kind === 'Movie'));
  assert.deepEqual((await call('/api/kg/search?q=吴京&kind=Movie')).json.matches, [], 'a person is no film');
  assert.equal((await call('/api/kg/search?q=吴京')).json.matches[0].kind, 'Person');
  const bad = await call('/api/kg/search?q=长津湖&kind=Film');
  assert.equal(bad.status, 400);
  assert.equal(bad.json.field, 'kind');
});
