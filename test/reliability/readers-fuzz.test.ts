/**
 * Property and fuzz tests of the input readers (issue 5): random bytes, invalid UTF-8, BOM, CRLF, empty
 * files and texts, punctuation only, Latin only, emoji, traditional Chinese, unbalanced quotes, very long
 * lines. No crash; one record (document or error) per non-blank line / row; arbitrary chunking gives the
 * same records; well-formed files read back exactly what was written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse as csvParseSync } from 'csv-parse/sync';
import { readRecords, type InputFormat, type InputRecord } from '../../src/io/readers.js';
import { parseCsvRows, type CsvRow } from '../../src/io/csv.js';
import { splitLines } from '../../src/io/lines.js';

async function* chunks(buf: Buffer, sizes: number[]): AsyncGenerator<Uint8Array> {
  let i = 0;
  let k = 0;
  while (i < buf.length) {
    const n = sizes.length ? sizes[k++ % sizes.length] : buf.length;
    yield buf.subarray(i, i + n);
    i += n;
  }
}

async function read(buf: Buffer, format: InputFormat, sizes: number[] = [], extra: { idField?: string; maxRecordBytes?: number } = {}): Promise<InputRecord[]> {
  const out: InputRecord[] = [];
  // UTF-8 explicitly: the oracles split lines on 0x0A bytes; random bytes starting with FF FE / FE FF would
  // otherwise be read as UTF-16 (issue 17). BOM detection and chunking: wrong-results.test.ts.
  for await (const r of readRecords(chunks(buf, sizes), { format, encoding: 'utf-8', ...extra })) out.push(r);
  return out;
}

/** Reference: the non-blank physical lines (1-based numbers) as the readers define them. */
function nonBlankLines(buf: Buffer): number[] {
  let b = buf;
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  const parts = b.toString('utf8').split('\n');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  const out: number[] = [];
  parts.forEach((p, i) => {
    if (p.replace(/\r$/u, '').trim() !== '') out.push(i + 1);
  });
  return out;
}

const sizesArb = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 0, maxLength: 4 });
const wellFormed = (r: InputRecord) => r.line >= 1 && ('text' in r ? typeof r.text === 'string' && typeof r.id === 'string' : typeof r.error === 'string' && r.error.length > 0);

// Bytes with many line breaks, quotes, BOMs and broken UTF-8 sequences.
const nastyByte = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 255 }) },
  { weight: 2, arbitrary: fc.constantFrom(0x0a, 0x0d, 0x22, 0x2c, 0x09, 0x20, 0x7b, 0x7d) },
  { weight: 1, arbitrary: fc.constantFrom(0xef, 0xbb, 0xbf, 0xe9, 0x95, 0xbf, 0xc3, 0xff) },
);
const nastyBytes = fc.array(nastyByte, { maxLength: 400 }).map((a) => Buffer.from(a));

test('fuzz: random bytes as jsonl / txt → no crash, one record per non-blank line, in order, chunking irrelevant', async () => {
  await fc.assert(
    fc.asyncProperty(nastyBytes, sizesArb, async (buf, sizes) => {
      const expectLines = nonBlankLines(buf);
      for (const format of ['jsonl', 'txt'] as const) {
        let got: InputRecord[];
        try {
          got = await read(buf, format, sizes);
        } catch (err) {
          // jsonl: a text field that no record has stops the read (src/io/json.ts FieldCheck): only when some
          // line is a JSON object and none has "text"
          assert.equal(format, 'jsonl', String(err));
          assert.match((err as Error).message, /has the default text field "text"/u);
          const objects = buf.toString('utf8').split('\n').flatMap((l) => { try { const o: unknown = JSON.parse(l); return o !== null && typeof o === 'object' && !Array.isArray(o) ? [o as object] : []; } catch { return []; } });
          assert.ok(objects.length > 0 && objects.every((o) => !Object.hasOwn(o, 'text')), 'refused only without a record that has the field');
          await assert.rejects(read(buf, format), /has the default text field/u, 'chunking irrelevant');
          continue;
        }
        assert.deepEqual(
          got.map((r) => r.line),
          expectLines,
          format,
        );
        assert.ok(got.every(wellFormed));
        assert.deepEqual(await read(buf, format), got, 'same records in one chunk');
      }
    }),
    { numRuns: 300 },
  );
});

test('fuzz: random bytes as tsv / csv (after a header) → no crash, ordered records, tsv one per non-blank line', async () => {
  await fc.assert(
    fc.asyncProperty(nastyBytes, sizesArb, fc.boolean(), async (body, sizes, crlf) => {
      const buf = Buffer.concat([Buffer.from(crlf ? 'text\r\n' : 'text\n'), body]);
      const tsv = await read(buf, 'tsv', sizes);
      assert.deepEqual(tsv.map((r) => r.line), nonBlankLines(buf).slice(1));
      assert.ok(tsv.every(wellFormed));
      const csv = await read(buf, 'csv', sizes);
      assert.ok(csv.every(wellFormed));
      for (let i = 1; i < csv.length; i++) assert.ok(csv[i].line > csv[i - 1].line, 'strictly increasing lines');
      assert.deepEqual(await read(buf, 'csv'), csv, 'chunking irrelevant');
      if (!body.includes(0x22)) assert.deepEqual(csv.map((r) => r.line), nonBlankLines(buf).slice(1), 'without quotes csv rows are lines');
    }),
    { numRuns: 300 },
  );
});

test('fuzz: csv rows tile the non-blank lines: every non-blank line after the header is in exactly one row', async () => {
  await fc.assert(
    fc.asyncProperty(nastyBytes, fc.integer({ min: 8, max: 200 }), async (body, maxRecordBytes) => {
      const buf = Buffer.concat([Buffer.from('a,b\n'), body]);
      const rows: CsvRow[] = [];
      for await (const r of parseCsvRows(splitLines(chunks(buf, [5]), { maxLineBytes: maxRecordBytes }), { maxRecordBytes })) rows.push(r);
      const covered = new Map<number, number>();
      for (const r of rows) {
        assert.ok(r.endLine >= r.line);
        for (let l = r.line; l <= r.endLine; l++) covered.set(l, (covered.get(l) ?? 0) + 1);
      }
      for (const [l, n] of covered) assert.equal(n, 1, `line ${l} in ${n} rows`);
      for (const l of nonBlankLines(buf)) assert.ok(covered.has(l), `non-blank line ${l} in no row`);
    }),
    { numRuns: 300 },
  );
});

// Texts of the kinds issue 5 lists.
const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', '！！！……？？？', '。，、；：', 'Only Latin text.', '🎬🍿👍🏽', '電影《霸王別姬》張國榮', '《长津湖》易烊千玺', '他说"好"，"不好"', 'a,b,"c"', '   '),
  fc.string({ unit: fc.constantFrom('电', '影', '"', ',', ' ', '\t', '\n', '\r\n', '🎬', '張', 'A'), maxLength: 30 }),
);

function toCsvField(s: string): string {
  return /[",\n\r]|^\s|\s$/u.test(s) || s === '' ? `"${s.replace(/"/gu, '""')}"` : s;
}

test('round trip: texts written as jsonl / csv / tsv / txt (BOM, CRLF or LF) read back exactly', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(textArb, { maxLength: 25 }), fc.boolean(), fc.boolean(), sizesArb, async (texts, bom, crlf, sizes) => {
      const nl = crlf ? '\r\n' : '\n';
      const pre = bom ? '\uFEFF' : '';
      const jsonl = Buffer.from(pre + texts.map((t, i) => JSON.stringify({ id: `r${i}`, text: t })).join(nl) + nl);
      const gotJ = await read(jsonl, 'jsonl', sizes, { idField: 'id' });
      assert.deepEqual(gotJ, texts.map((t, i) => ({ line: i + 1, id: `r${i}`, text: t })));

      // csv: CRLF inside a quoted field reads as LF (documented); fields that are blank lines are quoted.
      const csv = Buffer.from(pre + ['id,text', ...texts.map((t, i) => `r${i},${toCsvField(t)}`)].join(nl) + nl);
      const gotC = await read(csv, 'csv', sizes, { idField: 'id' });
      assert.deepEqual(gotC.map((r) => ('text' in r ? [r.id, r.text] : ['ERR', r.error])), texts.map((t, i) => [`r${i}`, t.replace(/\r\n/gu, '\n')]));

      const plain = texts.map((t) => t.replace(/[\t\r\n]/gu, ' '));
      const tsv = Buffer.from(pre + ['id\ttext', ...plain.map((t, i) => `r${i}\t${t}`)].join(nl) + nl);
      assert.deepEqual((await read(tsv, 'tsv', sizes, { idField: 'id' })).map((r) => ('text' in r ? r.text : r.error)), plain);

      const lines = plain.filter((t) => t.trim() !== '');
      const txt = Buffer.from(pre + plain.join(nl) + nl);
      assert.deepEqual((await read(txt, 'txt', sizes)).map((r) => ('text' in r ? r.text : r.error)), lines);
    }),
    { numRuns: 200 },
  );
});

test('differential: well-formed csv reads like csv-parse', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(textArb, textArb), { minLength: 1, maxLength: 15 }), async (rows) => {
      const clean = rows.map(([a, b]) => [a.replace(/\r/gu, ''), b.replace(/\r/gu, '')]).filter(([a, b]) => !(a.trim() === '' && b === '' && !/[",\n]/u.test(a)));
      const text = ['x,text', ...clean.map(([a, b]) => `${toCsvField(a)},${toCsvField(b)}`)].join('\n') + '\n';
      const want = csvParseSync(text, { columns: true, skip_empty_lines: true }) as { x: string; text: string }[];
      const got = await read(Buffer.from(text), 'csv', [7], { idField: 'x' });
      assert.deepEqual(got.map((r) => ('text' in r ? [r.id, r.text] : ['ERR', r.error])), want.map((w) => [w.x, w.text]));
    }),
    { numRuns: 200 },
  );
});

test('unbalanced quote in csv: rows before it are read exactly, it costs at most the rows it swallows, never a crash', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.string({ unit: fc.constantFrom('电', '影', ' ', 'A', '，'), minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 20 }), fc.nat(), async (texts, at) => {
      const clean = texts.map((t) => (t.trim() === '' ? 'x' : t));
      const bad = at % clean.length;
      const lines = ['id,text', ...clean.map((t, i) => (i === bad ? `r${i},"${t}` : `r${i},${t}`))];
      const got = await read(Buffer.from(lines.join('\n') + '\n'), 'csv', [3], { idField: 'id' });
      assert.deepEqual(got.slice(0, bad), clean.slice(0, bad).map((t, i) => ({ line: i + 2, id: `r${i}`, text: t })));
      // The unclosed quote runs to the end: one error for its row, then every later row is re-read.
      assert.deepEqual(got[bad], { line: bad + 2, error: `quote opened on line ${bad + 2} is never closed; row skipped` });
      assert.deepEqual(got.slice(bad + 1), clean.slice(bad + 1).map((t, i) => ({ line: bad + i + 3, id: `r${bad + i + 1}`, text: t })));
    }),
    { numRuns: 200 },
  );
});

test('very long lines: one error record each, the lines around them are read (jsonl, txt, csv, tsv)', async () => {
  const long = '长'.repeat(100_000); // 300 KB
  const max = 64 * 1024;
  const body = [`{"text":"a"}`, `{"text":"${long}"}`, `{"text":"b"}`].join('\n');
  assert.deepEqual(
    (await read(Buffer.from(body), 'jsonl', [4096], { maxRecordBytes: max })).map((r) => ('text' in r ? r.text : r.error)),
    ['a', `line is longer than ${max} bytes (300011 bytes); record skipped`, 'b'],
  );
  for (const format of ['csv', 'tsv'] as const) {
    const got = await read(Buffer.from(`text\na\n${long}\nb\n`), format, [4096], { maxRecordBytes: max });
    assert.deepEqual(got.map((r) => ('text' in r ? r.text : r.error)), ['a', `line is longer than ${max} bytes (300000 bytes); row skipped`, 'b']);
  }
  assert.equal((await read(Buffer.from(`${long}\nx`), 'txt', [65536])).map((r) => ('text' in r ? r.text.length : -1)).join(), '100000,1');
});

test('empty and blank-only inputs give no records in every format', async () => {
  for (const buf of [Buffer.alloc(0), Buffer.from('\uFEFF'), Buffer.from('\n\r\n  \n\t\n')]) {
    for (const format of ['jsonl', 'txt', 'csv', 'tsv'] as const) assert.deepEqual(await read(buf, format), [], `${format} ${JSON.stringify(buf.toString())}`);
  }
});
