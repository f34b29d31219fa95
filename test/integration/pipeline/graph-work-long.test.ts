/**
 * Issue 26 item 2 on long texts (moved from test/pipeline/graph-work.test.ts, which runs the same checks
 * on shorter texts in the fast suite): the default preset's graph on 250k and 1M characters without
 * punctuation has edges linear in the text, and `graph.window` 100 on 4M characters is refused with a
 * FilmkwError INPUT naming the option, before the graph is built. Counted, never timed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createExtractor } from '../../../src/pipeline/extract.js';
import { unpunctuatedText } from '../../pipeline/long-texts.js';
import { assertEdgesLinear } from '../../pipeline/work-cases.js';

test('the default preset on 250k and 1M characters without punctuation: graph edges linear in the text', async () => {
  await assertEdgesLinear([250_000, 1_000_000]);
});

test('graph.window 100 on 4M characters is refused (FilmkwError INPUT naming the option), before the work', () => {
  const wide = createExtractor({ preset: 'textrank', overrides: { 'graph.window': 100 } });
  assert.throws(() => wide.extract(unpunctuatedText(4_000_000, 13)), /too large for graph\.window 100/u);
});
