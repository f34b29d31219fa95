/**
 * src/io/json.ts: the elements of a JSON array cut at any chunk boundary (property test against
 * JSON.stringify), its error elements (not an array, text after it, unterminated, an element over the
 * cap), the first-character peek that hands the stream back whole, and the text-field check (held
 * records, the error after FIELD_CHECK_RECORDS or at the end, "did you mean").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { arrayElements, FIELD_CHECK_RECORDS, FieldCheck, peekFirstChar, peekStreamFirstChar, type ArrayElement } from '../../src/io/json.js';
import { FilmkwError } from '../../src/errors.js';

async function* chunks<T>(parts: T[]): AsyncGenerator<T> {
  yield* parts;
}
const cut = (s: string, at: number[]): string[] => {
  const points = [...new Set(at.map((a) => a % (s.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const p of [...points, s.length]) {
    out.push(s.slice(prev, p));
    prev = p;
  }
  return out;
};
const elements = async (parts: string[], max = 1 << 20): Promise<ArrayElement[]> => {
  const out: ArrayElement[] = [];
  for await (const e of arrayElements(chunks(parts), max)) out.push(e);
  return out;
};

test('arrayElements: every element of any JSON array, pretty or not, whatever the chunking', async () => {
  const value = fc.jsonValue({ maxDepth: 3 });
  await fc.assert(
    fc.asyncProperty(fc.array(value, { maxLength: 8 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 6 }), async (arr, pretty, at) => {
      const text = pretty ? JSON.stringify(arr, null, 2) : JSON.stringify(arr);
      const got = await elements(cut(text, at));
      assert.deepEqual(
        got.map((e) => ('text' in e ? JSON.parse(e.text) : e)),
        arr.map((v) => JSON.parse(JSON.stringify(v))),
      );
    }),
    { numRuns: 300 },
  );
});

test('arrayElements: the line each element starts on; strings with brackets, quotes and escapes', async () => {
  const text = '[\n  {"a": "]}\\"[{"},\n  "x,y",\n  [1, [2]],\n  -3.5e2, true,\n  null\n]\n';
  assert.deepEqual(await elements([text]), [
    { line: 2, text: '{"a": "]}\\"[{"}' },
    { line: 3, text: '"x,y"' },
    { line: 4, text: '[1, [2]]' },
    { line: 5, text: '-3.5e2' },
    { line: 5, text: 'true' },
    { line: 6, text: 'null' },
  ]);
  assert.deepEqual(await elements(['  [ ]  \n']), []);
});

test('arrayElements: not an array, text after it, no closing ], an element over the cap', async () => {
  assert.deepEqual(await elements(['{"a":1}']), [{ line: 1, error: 'not a JSON array: the input does not start with [' }]);
  assert.deepEqual(await elements(['[{"a":1}]\n\n{"b":2}']), [{ line: 1, text: '{"a":1}' }, { line: 3, error: 'unexpected text after the end of the JSON array' }]);
  assert.deepEqual(await elements(['[{"a":1},\n{"b":']), [{ line: 1, text: '{"a":1}' }, { line: 2, error: 'the input ends inside the JSON array (no closing ])' }]);
  const big = `{"text":"${'长'.repeat(40)}"}`; // 130 bytes
  assert.deepEqual(await elements([`[${big},\n{"text":"ok"}]`], 100), [
    { line: 1, error: 'array element is larger than 100 bytes; record skipped' },
    { line: 2, text: '{"text":"ok"}' },
  ]);
});

test('peekFirstChar / peekStreamFirstChar: the first non-blank character, and the stream whole after', async () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const parts = [Buffer.from('  \n'), Buffer.concat([bom, Buffer.from('\t')]), Buffer.from('{"text":"a"}\n')];
  const peek = await peekFirstChar(chunks(parts));
  assert.equal(peek.first, '{');
  const back: Buffer[] = [];
  for await (const c of peek.source) back.push(c);
  assert.deepEqual(Buffer.concat(back), Buffer.concat(parts));
  assert.equal((await peekFirstChar(chunks(['', ' \n']))).first, null);
  assert.equal((await peekFirstChar(chunks([Buffer.from('\xff\xfe[\x00', 'latin1')]))).first, '[', 'UTF-16 LE');

  const stream = new PassThrough();
  stream.write('\n \n');
  setImmediate(() => stream.end('你好\n'));
  assert.equal(await peekStreamFirstChar(stream), '\xe4', 'bytes are looked at as ASCII: the first byte of 你');
  let all = '';
  for await (const c of stream) all += c;
  assert.equal(all, '\n \n你好\n', 'nothing consumed');
  const empty = new PassThrough();
  empty.end();
  assert.equal(await peekStreamFirstChar(empty), null);
});

const check = (field = 'text', given = false) => new FieldCheck<number>(field, { source: 'x.json', cmd: 'tag', fieldWasGiven: given });
/** Records are line numbers here: the record on line 2 × n. */
const checkLines = () => new FieldCheck<number>('text', { source: 'x.json', cmd: 'tag', fieldWasGiven: false, lineOf: (n) => 2 * n });
const inputErr = (re: RegExp) => (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && re.test(e.message);

test('FieldCheck: records held until one has the field, then passed on in order', () => {
  const c = check();
  assert.deepEqual(c.push(1, { body: 'a' }, false), []);
  assert.deepEqual(c.push(2, null, false), []);
  assert.deepEqual(c.push(3, { text: 'b' }, true), [1, 2, 3]);
  assert.deepEqual(c.push(4, { body: 'c' }, false), [4], 'settled: no more holding');
  assert.deepEqual(c.end(), []);
  assert.deepEqual(check().end(), [], 'an empty input');
  const bad = check();
  bad.push(1, null, false);
  assert.deepEqual(bad.end(), [1], 'no object at all (invalid JSON lines): the error records, not a field error');
});

test('FieldCheck: none of the first N records (or of a shorter input) has the field: one input error with the fields and a guess', () => {
  const c = check();
  for (let i = 1; i < FIELD_CHECK_RECORDS; i++) assert.deepEqual(c.push(i, { rating: ['4'], review_full: ['很长的一段影评'], title: ['标题'] }, false), []);
  assert.throws(
    () => c.push(FIELD_CHECK_RECORDS, { rating: ['5'] }, false),
    inputErr(/^tag: x\.json: none of the first 100 records has the default text field "text" \(fields: "rating", "review_full", "title"\); did you mean --text-field review_full\?$/u),
  );
  const typo = check('reviewfull', true);
  typo.push(1, { review_full: 'a', review_short: 'a much longer text than the other one' }, false);
  assert.throws(() => typo.end(), inputErr(/^tag: x\.json: its only record has --text-field reviewfull \(fields: "review_full", "review_short"\); did you mean --text-field review_full\?$/u));
  const two = check();
  two.push(1, { a: 1 }, false);
  two.push(2, { b: 2 }, false);
  assert.throws(() => two.end(), inputErr(/none of its 2 records has the default text field "text" \(fields: "a", "b"\)$/u), 'no string field: no guess');
  const lined = checkLines();
  for (let i = 1; i < FIELD_CHECK_RECORDS; i++) lined.push(i, { body: 'x' }, false);
  assert.throws(() => lined.push(FIELD_CHECK_RECORDS, { body: 'y' }, false), inputErr(/^tag: x\.json: none of the first 100 records \(lines 2–200\) has the default text field "text" \(fields: "body"\); did you mean --text-field body\?$/u), 'the lines read are named');
  const one = checkLines();
  one.push(3, { body: 'x' }, false);
  assert.throws(() => one.end(), inputErr(/^tag: x\.json: its only record \(line 6\) has the default text field "text"/u));
});
