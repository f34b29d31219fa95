/**
 * The tag cache's store (src/pipeline/segmenters/word-tags.ts) against a Map: words of every length,
 * code units whose two-unit key is negative, long words whose hashes are equal, growth past many
 * doublings, and emptying. (That the taggers built on it match native tag: segment-tag-cache.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WordTags } from '../../src/pipeline/segmenters/word-tags.js';

/** Two pairs of three-unit words with the same 32-bit FNV-1a hash (found by a search over random ideographs). */
const SAME_HASH = [
  ['馫翈胡', '菋终乁'],
  ['巇錔絽', '傧犴嘽'],
];

test('word tags: two long words with one hash each keep their own tag, and one held does not answer for the other', () => {
  const t = new WordTags();
  for (const [a, b] of SAME_HASH) {
    t.add(a, 'nr');
    assert.equal(t.get(a), 'nr');
    assert.equal(t.get(b), undefined, `${b} is not held although its hash equals ${a}'s`);
    t.add(b, 'ns');
    assert.equal(t.get(a), 'nr');
    assert.equal(t.get(b), 'ns');
  }
  assert.equal(t.size, 4);
});

test('word tags: the same answers as a Map over 60,000 words of 1 to 5 units (two-unit keys of high code units too), then emptied', () => {
  const t = new WordTags();
  const ref = new Map<string, string>();
  const tags = ['n', 'v', 'x', 'nr', 'eng', 'm'];
  let seed = 7;
  const next = (m: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % m;
  const unit = () => (next(4) === 0 ? 0xd800 + next(0x2800) : next(3) === 0 ? next(0x80) : 0x4e00 + next(0x5200));
  while (ref.size < 60_000) {
    const w = String.fromCharCode(...Array.from({ length: 1 + next(5) }, unit));
    assert.equal(t.get(w), ref.get(w), w);
    if (ref.has(w)) continue;
    const tag = tags[next(tags.length)];
    ref.set(w, tag);
    assert.equal(t.add(w, tag), tag);
  }
  assert.equal(t.size, ref.size);
  for (const [w, tag] of ref) assert.equal(t.get(w), tag, w);
  for (const w of ['\uffff\uffff', '\u8000a', 'ab', '三个字', '']) assert.equal(t.get(w), ref.get(w));
  t.clear();
  assert.equal(t.size, 0);
  for (const w of ref.keys()) assert.equal(t.get(w), undefined, w);
  t.add('长津湖', 'nz');
  assert.equal(t.get('长津湖'), 'nz');
});
