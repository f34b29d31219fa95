/**
 * `filmkw tag` on the real Douban reviews of the shared data (../shared/data; skipped with a message when
 * absent): issue 3's "done when", with the demo KG so that it runs wherever the data is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../../batch/demo-kg.js';
import { filmkw } from '../../cli/in-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = (args: string[]) => filmkw(args);
const tmp = () => mkdtempSync(join(tmpdir(), 'filmkw-tagcli-'));

const douban = join(root, '..', 'shared', 'data', 'texts', 'douban-reviews-bainiaochaofeng', 'douban_reviews.json');
test('real data: douban_reviews.json gives 302 records, 5 error records, identical on two runs and with 2 workers', { skip: !existsSync(douban) && 'needs ../shared/data/texts/douban-reviews-bainiaochaofeng' }, async () => {
  const kg = await demoSnapshot();
  const d = tmp();
  const args = ['tag', douban, '--format', 'jsonl', '--text-field', 'review_full', '--id-field', 'review_link', '--kg', kg];
  const r1 = await run([...args, '--out', join(d, 'a.jsonl')]);
  const r2 = await run([...args, '--out', join(d, 'b.jsonl'), '--workers', '2']);
  assert.equal(r1.status, 0, r1.stderr);
  assert.equal(r2.status, 0, r2.stderr);
  const a = readFileSync(join(d, 'a.jsonl'), 'utf8');
  assert.equal(readFileSync(join(d, 'b.jsonl'), 'utf8'), a);
  const lines = a.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string | null; line?: number; error?: string; keywords?: unknown[] });
  assert.equal(lines.length, 302);
  const errors = lines.filter((l) => l.error !== undefined);
  assert.deepEqual(errors.map((e) => e.line), [21, 107, 303, 447, 513]);
  for (const e of errors) assert.match(e.error!, /^invalid JSON: /u);
  assert.ok(lines.every((l) => l.error !== undefined || (typeof l.id === 'string' && l.id.startsWith('https://movie.douban.com/review/') && l.keywords!.length > 0)));
  assert.match(r1.stderr, /302 records \(297 tagged, 5 error records\)/u);
});


// from test/cli/tag-inputs.test.ts (issue 29: what a new user feeds `filmkw tag`), the default KG and preset
test('the real douban_reviews.json (its text in review_full): refused with the guess, read with it', { skip: !existsSync(douban) && 'needs ../shared/data/texts/douban-reviews-bainiaochaofeng' }, async () => {
  const r = await run(['tag', douban, '--format', 'jsonl']);
  assert.equal(r.status, 3);
  // lines 1–199: the file has a blank line between records
  assert.match(r.stderr, /: none of the first 100 records \(lines 1–199\) has the default text field "text" \(fields: "rating", "title", "review_link", "review_full", .*\); did you mean --text-field review_full\?\n$/u);
  const ok = await run(['tag', douban, '--text-field', 'review_full', '--id-field', 'review_link', '--top', '1']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /JSON lines; one record per line\n[\s\S]*302 records \(297 tagged, 5 error records\)/u);
});
