/**
 * The one CSV reader (src/io/csv.ts, csv-parse with re-sync) used by `tag` inputs and the KG sources:
 * row attribution to physical lines, the recovery rules, and the KG mode (`anyLineEnd`). The readers'
 * and importers' own tests (test/io/readers.test.ts, test/kg/sources.test.ts) cover it through them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsvRows, parseTsvRows, type CsvRow, type CsvRowOptions } from '../../src/io/csv.js';
import { splitLines } from '../../src/io/lines.js';

async function rows(text: string | Buffer, opts: CsvRowOptions): Promise<CsvRow[]> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const out: CsvRow[] = [];
  for await (const r of parseCsvRows(splitLines((async function* () { yield bytes; })(), { maxLineBytes: opts.maxRecordBytes }), opts)) out.push(r);
  return out;
}

test('csv: a row held back by csv-parse is not taken for a runaway quoted field (the limit counts the open row only)', async () => {
  // line 2 opens a quote that line 3 "closes" with text after it; 1 + 7 bytes is within the 8-byte limit
  assert.deepEqual(await rows('a\r\n"\r\na""x"ya', { maxRecordBytes: 8 }), [
    { line: 1, endLine: 1, fields: ['a'] },
    { line: 2, endLine: 2, kind: 'runs-into-next-rows', error: 'quote opened on line 2 is not closed on its line and the row is malformed (unexpected character "y" after a closing quote on line 3); row skipped, the lines after it are read again' },
    { line: 3, endLine: 3, fields: ['a""x"ya'] },
  ]);
  // over the limit: the row where the quote opened is reported, every later line is read again
  assert.deepEqual(await rows('id,t\n1,"ab\ncd\nef\ngh",x\n2,ok\n', { maxRecordBytes: 8 }), [
    { line: 1, endLine: 1, fields: ['id', 't'] },
    { line: 2, endLine: 2, kind: 'runaway', error: 'quoted field opened on line 2 runs over 8 bytes (unbalanced quote?); row skipped' },
    { line: 3, endLine: 3, fields: ['cd'] },
    { line: 4, endLine: 4, fields: ['ef'] },
    { line: 5, endLine: 5, fields: ['gh"', 'x'] },
    { line: 6, endLine: 6, fields: ['2', 'ok'] },
  ]);
});

test('csv, KG mode (anyLineEnd): lone CR ends a line, quoted line breaks keep CRLF / CR, blank lines are not rows, a closing quote with text after it is an error row', async () => {
  assert.deepEqual(await rows('id,t\r\n1,"x\r\ny"\r2,"a"b\n  \n3,"p\rq"\n', { maxRecordBytes: 100, anyLineEnd: true }), [
    { line: 1, endLine: 1, fields: ['id', 't'] },
    { line: 2, endLine: 3, fields: ['1', 'x\r\ny'] },
    { line: 4, endLine: 4, kind: 'closing-quote', error: 'unexpected character "b" after a closing quote on line 4' },
    { line: 6, endLine: 7, fields: ['3', 'p\rq'] },
  ]);
  // the same text in the default mode: a lone CR is data, so the quote closed before it has text after it
  assert.deepEqual(await rows('id,t\r\n1,"x\r\ny"\r2,"a"b\n', { maxRecordBytes: 100 }), [
    { line: 1, endLine: 1, fields: ['id', 't'] },
    { line: 2, endLine: 2, kind: 'runs-into-next-rows', error: 'quote opened on line 2 is not closed on its line and the row is malformed (unexpected character "\\r" after a closing quote on line 3); row skipped, the lines after it are read again' },
    { line: 3, endLine: 3, kind: 'closing-quote', error: 'unexpected character "b" after a closing quote on line 3' },
  ]);
});

test('csv and tsv: rows with invalid UTF-8 are flagged (their text kept with U+FFFD), the others not', async () => {
  const bad = Buffer.concat([Buffer.from('a,b\n1,"x\n'), Buffer.from([0xff]), Buffer.from('"\n2,y\n')]);
  assert.deepEqual(await rows(bad, { maxRecordBytes: 100 }), [
    { line: 1, endLine: 1, fields: ['a', 'b'] },
    { line: 2, endLine: 3, fields: ['1', 'x\n\uFFFD'], invalidUtf8: true },
    { line: 4, endLine: 4, fields: ['2', 'y'] },
  ]);
  const tsv: CsvRow[] = [];
  for await (const r of parseTsvRows(splitLines((async function* () { yield Buffer.concat([Buffer.from('a\tb\n'), Buffer.from([0xfe]), Buffer.from('\t"q\n')]); })()), { maxRecordBytes: 100 })) tsv.push(r);
  assert.deepEqual(tsv, [
    { line: 1, endLine: 1, fields: ['a', 'b'] },
    { line: 2, endLine: 2, fields: ['\uFFFD', '"q'], invalidUtf8: true },
  ]);
});
