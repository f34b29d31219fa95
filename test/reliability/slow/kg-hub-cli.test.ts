/**
 * Issue 5, KG edge case at the CLI: an entity with 100,000 neighbours (a genre every film has) through
 * `kg import --out`, `kg stats`, `dict export` and `tag` (which walks KG neighbours of matched entities).
 * Nothing crashes, the counts are exact and tagging stays fast. Needs `npm run build`; run by
 * `npm run test:reliability`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const built = existsSync(join(root, 'dist/cli/main.js'));
const N = 100_000;

test('a 100,000-neighbour hub through kg import, kg stats, dict export and tag', { skip: !built && 'needs `npm run build`', timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-hub-'));
  try {
    const src = join(dir, 'kg');
    mkdirSync(src);
    const e = ['id,kind,name,aliases,movie', 'genre/剧情,Genre,剧情,,', 'person/name/张艺谋,Person,张艺谋,,'];
    const r = ['from,relation,to,movie'];
    for (let i = 0; i < N; i++) {
      e.push(`movie/m${i},Movie,片名${i},,`);
      r.push(`movie/m${i},HAS_GENRE,genre/剧情,`);
      if (i % 1000 === 0) r.push(`person/name/张艺谋,DIRECTED,movie/m${i},`);
    }
    writeFileSync(join(src, 'entities.csv'), e.join('\n') + '\n');
    writeFileSync(join(src, 'relations.csv'), r.join('\n') + '\n');
    const run = (args: string[], input?: string) => spawnSync(process.execPath, ['bin/filmkw', ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
    const out = join(dir, 'hub.fkg');
    const imp = run(['kg', 'import', '--out', out, `csv:${src}`]);
    assert.equal(imp.status, 0, imp.stderr);
    const stats = JSON.parse(run(['kg', 'stats', '--kg', out, '--json']).stdout) as { entities: { total: number }; relations: { byKind: Record<string, number> } };
    assert.equal(stats.entities.total, N + 2);
    assert.equal(stats.relations.byKind.HAS_GENRE, N);
    assert.equal(stats.relations.byKind.DIRECTED, N / 1000);
    const dict = run(['dict', 'export', '--kg', out, '--out', join(dir, 'user.dict')]);
    assert.equal(dict.status, 0, dict.stderr);
    assert.ok(readFileSync(join(dir, 'user.dict'), 'utf8').split('\n').length > N);
    const docs = Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: `d${i}`, text: `张艺谋的片名${i * 1000}是一部剧情片。剧情，剧情，片名${i}和片名${i + 1}也是剧情片。` })).join('\n') + '\n';
    const t0 = Date.now();
    const tag = run(['tag', '--format', 'jsonl', '--id-field', 'id', '--kg', out, '--explain'], docs);
    const ms = Date.now() - t0;
    assert.equal(tag.status, 0, tag.stderr);
    const recs = tag.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; keywords: { word: string }[] });
    assert.deepEqual(recs.map((x) => x.id), Array.from({ length: 50 }, (_, i) => `d${i}`));
    assert.ok(recs.every((x) => x.keywords.length > 0));
    assert.ok(recs[0].keywords.some((k) => k.word === '剧情' || k.word === '张艺谋'), JSON.stringify(recs[0]));
    console.log(`hub KG: import ok, tag 50 docs in ${ms} ms (incl. start-up and KG load)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
