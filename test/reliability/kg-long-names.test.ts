/**
 * Issue 26: `kg import` with names of 100,000 characters (before: each printed in full in every report
 * line that cited it). Through bin/filmkw (run `npm run build` first): the import succeeds, the names are
 * kept whole in the KG, the report shows them shortened with their length, and one WARNING group counts
 * them; the human report stays small (counted in bytes, whatever the names' length).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forReport, LONG_NAME_CHARS } from '../../src/kg/builder.js';
import { loadSnapshot } from '../../src/kg/snapshot.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'filmkw');
const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'run `npm run build` first (the tests spawn bin/filmkw)';
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });

const LONG = '长'.repeat(100_000);
let dir: string;
let src: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'filmkw-long-names-'));
  src = join(dir, 'kg');
  mkdirSync(src);
  const good = join(root, 'test', 'fixtures', 'kg-sources', 'csv-good');
  copyFileSync(join(good, 'relations.csv'), join(src, 'relations.csv'));
  const entities = readFileSync(join(good, 'entities.csv'), 'utf8').replace(/\n?$/u, '\n');
  writeFileSync(
    join(src, 'entities.csv'),
    entities +
      [
        `person/long/1,Person,${LONG},,`, // kept whole, reported
        `person/long/1,Person,${LONG}B,,`, // conflicting row: skipped (and reported as long), its example shortened
        `person/long/2,Person,${LONG}\u200b,,`, // an invisible character: cleaned, its example shortened
        `person/long/3,Planet,${LONG},,`, // unknown kind: skipped
      ].join('\n') +
      '\n',
  );
  writeFileSync(join(src, 'relations.csv'), `${readFileSync(join(src, 'relations.csv'), 'utf8').replace(/\n?$/u, '\n')}person/long/1,ACTED_IN,nosuch${LONG},\n`);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('forReport: whole up to the limit, head and tail with the length beyond it', () => {
  const edge = 'x'.repeat(LONG_NAME_CHARS);
  assert.equal(forReport(edge), edge);
  const s = forReport(`${'甲'.repeat(150)}${'乙'.repeat(150)}`);
  assert.equal(s, `${'甲'.repeat(120)}…[300 characters]…${'乙'.repeat(40)}`);
  // astral characters are never split
  assert.equal(forReport('𠀀'.repeat(300)), `${'𠀀'.repeat(120)}…[300 characters]…${'𠀀'.repeat(40)}`);
});

test('kg import: 100,000-character names are imported whole, reported shortened under one WARNING (was: printed in full)', { skip }, async () => {
  const out = join(dir, 'long.fkg');
  const r = cli(['kg', 'import', '--out', out, `csv:${src}`]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(Buffer.byteLength(r.stderr) < 20_000, `the report is ${Buffer.byteLength(r.stderr)} bytes`);
  assert.ok(!r.stderr.includes('长'.repeat(121)), 'no name printed beyond its head');
  assert.match(r.stderr, /kg import: WARNING: names longer than 200 characters \(a broken row or a hostile file\? kept whole, shown shortened here\): 3\n/u);
  assert.match(r.stderr, /3× Person name: longer than 200 characters \(kept whole\)  e\.g\. kg\/entities\.csv:\d+: 长{80,}…\[1000\d\d characters\]…长{40}; /u);
  assert.match(r.stderr, /conflicting duplicate id .* e\.g\. kg\/entities\.csv:\d+: person\/long\/1: 长{80,}…\[1000\d\d characters\]…长{39}B/u);
  assert.match(r.stderr, /ACTED_IN: unknown 'to' entity \(dangling\) .*…\[1000\d\d characters\]…/u);
  const store = await loadSnapshot(out);
  const names = store.lookupName(LONG);
  assert.equal(names.length, 2, 'both long names kept whole (the cleaned one equals the first)');

  const json = cli(['kg', 'import', '--json', '--out', join(dir, 'long2.fkg'), `csv:${src}`]);
  assert.equal(json.status, 0, json.stderr);
  const summary = JSON.parse(json.stdout) as { long: { total: number; reasons: { reason: string; count: number; examples: string[] }[] } };
  assert.equal(summary.long.total, 3, 'the two kept and the conflicting row');
  assert.ok(summary.long.reasons[0]!.examples.every((e) => e.length < 300));
});
