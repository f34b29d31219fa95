// The CLI's default preset (filmkw-rerank) through the real entry point: the README quick start's
// command (bundled demo KG, no --preset) re-ranks with the bundled model, in worker threads too, and
// writes the first line the README shows; --preset filmkw gives the previous default's ranking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { filmkw } from './in-process.js';

const run = (args: string[]) => filmkw(args);
const quickStart = ['tag', 'datasets/samples/reviews.jsonl', '--top', '5'];

/** The output line the README's quick start quotes (the json block after "the quick start's first line is:"). */
function readmeFirstLine(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const m = /the quick start's first line is:\n\n```json\n(.+)\n```/u.exec(readme);
  assert.ok(m, 'README: the quick start output block');
  return m[1];
}

test('tag without --preset (README quick start): filmkw-rerank with the bundled model, the README\'s first line, same bytes with 2 workers; --preset filmkw differs', async () => {
  const quick = await run(quickStart);
  assert.equal(quick.status, 0, quick.stderr);
  assert.match(quick.stderr, /tag: 12 records \(12 tagged, 0 error records\).*preset filmkw-rerank, KG demo \(bundled\)/u);
  const lines = quick.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 12);
  assert.equal(lines[0], readmeFirstLine());
  for (const l of lines) for (const k of JSON.parse(l).keywords as { score: number }[]) assert.ok(k.score > 0 && k.score < 1, l);
  // worker threads load the same model: the explicit preset in 2 workers writes the same bytes
  const two = await run([...quickStart, '--preset', 'filmkw-rerank', '--workers', '2']);
  assert.equal(two.status, 0, two.stderr);
  assert.equal(two.stdout, quick.stdout);
  // the previous default: graph score × IDF, another order
  const old = await run([...quickStart, '--preset', 'filmkw']);
  assert.equal(old.status, 0, old.stderr);
  assert.match(old.stderr, /preset filmkw, KG demo/u);
  assert.notEqual(old.stdout, quick.stdout);
  assert.ok((JSON.parse(old.stdout.split('\n')[0]).keywords as { score: number }[])[0].score > 1);
});
