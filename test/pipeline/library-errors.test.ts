/**
 * Issue 26, lower item: the library throws FilmkwError (code USAGE, one clear message), never a
 * TypeError, for what a JavaScript caller can pass that the types forbid: `null` call options, `kg: {}`,
 * a preset given as an object.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilmkwError } from '../../src/errors.js';
import { createExtractor } from '../../src/pipeline/extract.js';

const usage = (re: RegExp) => (err: unknown) => err instanceof FilmkwError && err.code === 'USAGE' && re.test(err.message);

test('createExtractor and extract: FilmkwError USAGE for null call options, kg: {}, a preset object (was TypeError)', () => {
  const ex = createExtractor({ preset: 'textrank' });
  assert.throws(() => ex.extract('《长津湖》里易烊千玺扮演的伍万里', null as never), usage(/call options must be an object or absent, got null/u));
  assert.throws(() => ex.extract('《长津湖》', [] as never), usage(/got an array/u));
  assert.throws(() => createExtractor({ preset: 'textrank+w', kg: {} as never }), usage(/kg must be a loaded KG .* without lookup/u));
  assert.throws(() => createExtractor({ preset: { name: 'textrank' } as never }), usage(/preset must be a preset name/u));
  assert.throws(() => createExtractor(null as never), usage(/takes an options object, got null/u));
  assert.ok(ex.extract('《长津湖》里易烊千玺扮演的伍万里', undefined).length > 0, 'absent call options still work');
});
