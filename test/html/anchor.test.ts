/** bench/readability-anchor.ts: Readability over linkedom returns the article with paragraph breaks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readabilityExtract } from '../../bench/readability-anchor.js';

const FIX = fileURLToPath(new URL('../fixtures/html/maintext/', import.meta.url));

test('readability finds the article paragraphs of the decay fixture', () => {
  const r = readabilityExtract(readFileSync(`${FIX}decay.html`, 'utf8'), { charThreshold: 50 });
  assert.ok(r);
  assert.match(r.text, /《霸王别姬》由陈凯歌执导/);
  assert.match(r.text, /一切归于寂静/);
  assert.ok(r.text.split('\n').length >= 4);
  assert.ok(!r.text.includes('这段脚本文字'));
});

test('no article: null', () => {
  assert.equal(readabilityExtract('<html><body></body></html>'), null);
});
