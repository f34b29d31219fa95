/**
 * Issue 5, record-level robustness of `filmkw tag` through bin/filmkw (run `npm run build` first):
 * empty texts are documents with no keywords (not errors); JSON lines of the wrong shape are one error
 * record each with their line and reason (a 1 MB single document tagged whole in jsonl, csv and txt:
 * slow/tag-big-document.test.ts);
 * emoji, traditional Chinese and Latin-only texts are tagged. One output record per input record, in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../batch/demo-kg.js';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = !existsSync(join(root, 'dist/cli/main.js')) && 'needs `npm run build` (dist/)';
const dir = mkdtempSync(join(tmpdir(), 'filmkw-tagrec-'));
const run = (args: string[], input?: string) => filmkw(args, { input });
type Rec = { id: string | null; line?: number; error?: string; keywords?: { word: string }[] };
const recs = (out: string): Rec[] => (out === '' ? [] : out.trimEnd().split('\n').map((l) => JSON.parse(l) as Rec));

test('odd JSON lines: empty texts tagged with no keywords, wrong shapes one error record each with line and reason', { skip: SKIP }, async () => {
  const kg = await demoSnapshot();
  const lines = [
    '{"text":""}',
    '{"text":"   "}',
    '{"text":null}',
    '{"id":"x"}',
    '{"text":["",""]}',
    '{"text":123}',
    '[1,2]',
    '"just a string"',
    '{"text":"《霸王别姬》🎬🍿 張國榮 程蝶衣"}',
    '{"text":"Only Latin text here, Farewell My Concubine."}',
    '{"text":"！？……——"}',
    '{"text":"a", "text":"duplicate key"}',
  ];
  // from a file: stdin to stdout is the Unix filter (src/batch/pipe.ts, test/batch/pipe.test.ts), without line numbers
  const file = join(dir, 'odd.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  const r = await run(['tag', file, '--kg', kg]);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const got = recs(r.stdout);
  assert.equal(got.length, lines.length);
  // the line number, or the record's own id when it has one (issue 17)
  assert.deepEqual(got.map((x) => x.id), lines.map((l, i) => (l === '{"id":"x"}' ? 'x' : String(i + 1))));
  const errors = got.filter((x) => x.error !== undefined);
  assert.deepEqual(
    errors.map((x) => [x.line, x.error]),
    [
      [3, 'field "text" is null; expected a string or an array of strings'],
      [4, 'field "text" is missing'],
      [6, 'field "text" is a number; expected a string or an array of strings'],
      [7, 'line is an array, not a JSON object'],
      [8, 'line is a string, not a JSON object'],
    ],
  );
  for (const i of [0, 1, 4, 10]) assert.deepEqual(got[i].keywords, [], `line ${i + 1}`);
  assert.ok(got[8].keywords!.length > 0, JSON.stringify(got[8]));
  assert.ok(got[9].keywords!.length > 0, JSON.stringify(got[9]));
  assert.match(r.stderr, /tag: 12 records \(7 tagged, 5 error records\)/);
});
