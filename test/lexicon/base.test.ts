/**
 * The one helper that locates nodejieba's bundled dictionaries (src/lexicon/base.ts): the same files as the
 * package's own DEFAULT_* constants (what `nodejieba.load()` falls back to), each present.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import nodejieba from 'nodejieba';
import { nodejiebaDefaultFiles } from '../../src/lexicon/base.js';

test('nodejiebaDefaultFiles: the files of nodejieba\'s DEFAULT_* constants, each present', () => {
  const m = nodejieba as unknown as Record<string, unknown>;
  const files = nodejiebaDefaultFiles();
  assert.deepEqual(files, {
    dict: m.DEFAULT_DICT,
    hmmDict: m.DEFAULT_HMM_DICT,
    userDict: m.DEFAULT_USER_DICT,
    idfDict: m.DEFAULT_IDF_DICT,
    stopWordDict: m.DEFAULT_STOP_WORD_DICT,
  });
  for (const f of Object.values(files)) assert.ok(existsSync(f), f);
});
