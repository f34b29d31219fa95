/**
 * `filmkw eval` on the shared data's film-dev set (../shared/data; skipped with a message when absent): the
 * nodejieba TF-IDF baseline's scores, a regression check of the evaluation harness.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filmkw } from '../../cli/in-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = (...args: string[]) => filmkw(args);

const filmDev = join(root, '..', 'shared', 'data', 'annotated', 'film-dev.jsonl');
test('real data: nodejieba TF-IDF on film-dev (harness regression)', { skip: !existsSync(filmDev) && 'needs ../shared/data/annotated/film-dev.jsonl' }, async () => {
  const r = await run('eval', '--gold', filmDev, '--baseline', 'nodejieba-tfidf', '--json', '--k', '1,5');
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.docs, 180);
  assert.deepEqual(j.macro['5'], { p: 0.323333, r: 0.323333, f1: 0.323333 });
  assert.deepEqual(j.macro['1'], { p: 0.544444, r: 0.108889, f1: 0.181481 });
});
