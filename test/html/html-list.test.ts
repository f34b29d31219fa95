/**
 * The `html-list:` KG source (src/kg/sources/html-list.ts): films from saved Douban list pages join
 * the other sources on the subject id; bad pages are skipped with page:line, non-film records dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importSources, importSummary, parseSource } from '../../src/kg/import.js';

const FIX = fileURLToPath(new URL('../fixtures/html/records/', import.meta.url));
const DATA = fileURLToPath(new URL('../../../shared/data/html/', import.meta.url));

test('html-list: films, genres, credits, aliases; skipped and dropped with page:line', async () => {
  assert.equal(parseSource(`html-list:${FIX}`).kind, 'html-list');
  const r = await importSources([`html-list:${FIX}`], { tagger: null });
  const s = importSummary(r);
  const movies = r.data.entities.filter((e) => e.kind === 'Movie');
  assert.deepEqual(movies.map((m) => m.id).sort(), ['movie/douban/1000001', 'movie/douban/1000002', 'movie/douban/1000003', 'movie/douban/1000004']);
  const m1 = movies.find((m) => m.id === 'movie/douban/1000001')!;
  assert.equal(m1.name, '山间来信');
  assert.ok(m1.aliases.includes('山信'), `aliases ${m1.aliases}`); // region note removed
  assert.ok(m1.aliases.includes('Letters from the Hills'));
  const people = r.data.entities.filter((e) => e.kind === 'Person').map((p) => p.name).sort();
  assert.ok(people.includes('林远') && people.includes('马克·维尔') && people.includes('汤姆·格林'), String(people));
  const genres = r.data.entities.filter((e) => e.kind === 'Genre').map((g) => g.name).sort();
  assert.deepEqual(genres, ['冒险', '剧情', '动画', '奇幻', '悬疑', '爱情']);
  // the truncated copy repeats three films: duplicates, not new entities
  assert.ok(s.duplicates.entities >= 3);
  // 3 bad pages skipped, named with page:line
  assert.equal(s.skipped.total, 3);
  const ex = s.skipped.reasons.flatMap((g) => g.examples).join(' | ');
  assert.match(ex, /empty\.html:1: /);
  assert.match(ex, /wrong-encoding\.html:1: /);
  // generic records (news rows, the GBK notices) are dropped by design, with their line
  const dropped = s.dropped.reasons.find((g) => /not a film/.test(g.reason))!;
  assert.equal(dropped.count, 15);
  assert.match(dropped.examples[0], /^(gbk-list|news-tables)\.html:\d+$/);
});

test('html-list joins a KGQA film on its subject id; the name-only director links to the celebrity', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fk-hl-'));
  try {
    writeFileSync(
      join(dir, 'movies.txt'),
      `${JSON.stringify({ id: '1000001', name: '山间来信 Letters from the Hills', directors: [{ name: '林远', href: '/celebrity/77/' }], actors: [], genres: ['剧情'] })}\n`,
    );
    const r = await importSources([`kgqa:${dir}`, `html-list:${join(FIX, 'douban-list.html')}`], { tagger: null });
    const s = importSummary(r);
    assert.equal(s.merged.entities >= 1, true);
    const directed = r.data.relations.filter((x) => x.kind === 'DIRECTED' && x.to === 'movie/douban/1000001');
    assert.deepEqual(directed.map((x) => x.from), ['person/douban/77']);
    assert.equal(s.people.linkedSameFilm >= 1, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('html-list on the real Top250 pages: 250 films (page 1 joins the composite), no skipped record', { skip: !existsSync(DATA) && 'needs ../shared/data/html' }, async () => {
  const r = await importSources([`html-list:${DATA}xyxdegithub+douban/top250.html`, `html-list:${DATA}helloxizhao+douban/top250.html`], { tagger: null });
  const s = importSummary(r);
  assert.equal(s.entities.byKind.Movie, 250);
  assert.equal(s.skipped.total, 0);
  assert.equal(s.merged.entities >= 25, true);
});
