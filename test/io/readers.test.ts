import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readRecords, inferFormat, checkFormat, getPath, type InputRecord, type ReaderOptions, type ReadStats } from '../../src/io/readers.js';
import { splitLines, type RawLine } from '../../src/io/lines.js';
import { FilmkwError } from '../../src/errors.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/io/${name}`, import.meta.url));

/** Feed bytes in pieces of the given size (default: every size 1..7 in turn, to hit every boundary). */
async function* pieces(data: Buffer | string, size?: number): AsyncGenerator<Uint8Array> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let i = 0;
  let k = 0;
  while (i < buf.length) {
    const n = size ?? (k++ % 7) + 1;
    yield buf.subarray(i, i + n);
    i += n;
  }
}

async function read(data: Buffer | string, opts: ReaderOptions, size?: number): Promise<InputRecord[]> {
  const out: InputRecord[] = [];
  for await (const r of readRecords(pieces(data, size), opts)) out.push(r);
  return out;
}

async function lines(data: Buffer | string, maxLineBytes?: number, size?: number): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const l of splitLines(pieces(data, size), { maxLineBytes })) out.push(l);
  return out;
}

test('splitLines: LF/CRLF, BOM only at the start, no phantom last line, chunk boundaries inside characters', async () => {
  for (const size of [1, 2, 3, 1000, undefined]) {
    const got = await lines('\uFEFF长津湖\r\n\uFEFFb\n\r\n\nlast', undefined, size);
    assert.deepEqual(got.map((l) => [l.line, l.text]), [[1, '长津湖'], [2, '\uFEFFb'], [3, ''], [4, ''], [5, 'last']]);
  }
  assert.deepEqual((await lines('a\n')).map((l) => l.text), ['a']);
  assert.deepEqual(await lines(''), []);
  assert.deepEqual((await lines('a\rb\n')).map((l) => l.text), ['a\rb'], 'a lone CR is data');
});

test('splitLines: invalid UTF-8 is replaced and flagged; over-long lines are flagged, not buffered', async () => {
  const got = await lines(Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xe9, 0x95, 0x41, 0xff]), Buffer.from('\nx')]));
  assert.equal(got[1].text, '\uFFFDA\uFFFD');
  assert.equal(got[1].invalidUtf8, true);
  assert.equal(got[0].invalidUtf8, undefined);
  const long = await lines(`short\n${'x'.repeat(100)}\nafter\n${'y'.repeat(50)}`, 20, 7);
  assert.deepEqual(long.map((l) => [l.line, l.text, l.tooLong ?? false, l.bytes]), [[1, 'short', false, 5], [2, '', true, 100], [3, 'after', false, 5], [4, '', true, 50]]);
});

test('jsonl: string and array texts, dotted paths, ids; every bad line is one error record naming the field', async () => {
  const input = [
    '{"id":"a","text":"一"}',
    '',
    '   ',
    '{"id":["b"],"text":["二","三"]}',
    '{"id":7,"review":{"body":"嵌套"}}',
    '{"id":"d","text":null}',
    '{"id":"e"}',
    '{"id":"f","text":["x",1]}',
    '{"text":"no id"}',
    '{"id":"g", "text": "unterminated',
    '[1,2]',
    '{"id":{"x":1},"text":"t"}',
  ].join('\n');
  const opts = { format: 'jsonl', idField: 'id' } as const;
  const got = await read(input, opts);
  assert.deepEqual(got.slice(0, 2), [
    { line: 1, id: 'a', text: '一' },
    { line: 4, id: 'b', text: '二\n三' },
  ]);
  assert.deepEqual(got[2], { line: 5, id: '7', error: 'field "text" is missing' });
  assert.deepEqual(got[3], { line: 6, id: 'd', error: 'field "text" is null; expected a string or an array of strings' });
  assert.deepEqual(got[4], { line: 7, id: 'e', error: 'field "text" is missing' });
  assert.deepEqual(got[5], { line: 8, id: 'f', error: 'field "text" is an array with a number at index 1; expected a string or an array of strings' });
  assert.deepEqual(got[6], { line: 9, error: 'id field "id" is missing' });
  assert.equal(got[7].line, 10);
  assert.match((got[7] as { error: string }).error, /^invalid JSON: /u);
  assert.equal(got[7].id, undefined);
  assert.deepEqual(got[8], { line: 11, error: 'line is an array, not a JSON object' });
  assert.deepEqual(got[9], { line: 12, error: 'id field "id" is an object; expected a string or a number' });
  assert.equal(got.length, 10);
  const nested = await read(input, { format: 'jsonl', idField: 'id', textField: 'review.body' });
  assert.deepEqual(nested[2], { line: 5, id: '7', text: '嵌套' });
  // Without --id-field the id is the line number, also on error records.
  const noId = await read('{"text":"a"}\n\n{bad\n', { format: 'jsonl' });
  assert.deepEqual(noId.map((r) => [r.line, r.id]), [[1, '1'], [3, '3']]);
});

test('getPath: a literal dotted key wins over the path', () => {
  assert.equal(getPath({ 'a.b': 1, a: { b: 2 } }, 'a.b'), 1);
  assert.equal(getPath({ a: { b: 2 } }, 'a.b'), 2);
  assert.equal(getPath({ a: [{ b: 3 }] }, 'a.0.b'), 3);
  assert.equal(getPath({ a: 1 }, 'a.b'), undefined);
  assert.equal(getPath({}, 'toString'), undefined, 'own properties only');
});

test('csv: quoted fields across lines, literal inner quotes, bad rows become error records and parsing goes on', async () => {
  const input = [
    'id,text', //                          1
    '1,"多行', //                          2
    '文本"', //                            3
    '', //                                 4
    '2,他说"好"就好', //                   5
    '3,"a ""quoted"" word"', //            6
    '4,x,extra', //                        7
    '5,"closed"junk', //                   8
    '6,', //                               9
    '7,"never closed', //                 10
    '8,after the bad quote', //           11
    '9,end', //                           12
  ].join('\r\n');
  for (const size of [1, 5, undefined]) {
    const got = await read(input, { format: 'csv', idField: 'id' }, size);
    assert.deepEqual(got, [
      { line: 2, id: '1', text: '多行\n文本' },
      { line: 5, id: '2', text: '他说"好"就好' },
      { line: 6, id: '3', text: 'a "quoted" word' },
      { line: 7, id: '4', error: '3 fields, header has 2' },
      { line: 8, error: 'unexpected character "j" after a closing quote on line 8' },
      { line: 9, id: '6', text: '' },
      { line: 10, error: 'quote opened on line 10 is never closed; row skipped' },
      { line: 11, id: '8', text: 'after the bad quote' },
      { line: 12, id: '9', text: 'end' },
    ]);
  }
  // Two unbalanced quotes would pair up into one malformed row that swallows the rows between them (issue
  // 17): the row of the first quote is the error record, the lines after it are read again.
  const paired = await read('text\n"a\nb\n"c\nd\n', { format: 'csv' });
  assert.deepEqual(paired, [
    { line: 2, id: '2', error: 'quote opened on line 2 is not closed on its line and the row is malformed (unexpected character "c" after a closing quote on line 4); row skipped, the lines after it are read again' },
    { line: 3, id: '3', text: 'b' },
    { line: 4, id: '4', error: 'quote opened on line 4 is never closed; row skipped' },
    { line: 5, id: '5', text: 'd' },
  ]);
});

test('csv: a runaway quoted field is cut at maxRecordBytes and the following rows are re-read', async () => {
  const rows = ['text', '"open', ...Array.from({ length: 20 }, (_, i) => `row ${i}`)];
  const got = await read(rows.join('\n'), { format: 'csv', maxRecordBytes: 40 });
  assert.deepEqual(got[0], { line: 2, id: '2', error: 'quoted field opened on line 2 runs over 40 bytes (unbalanced quote?); row skipped' });
  assert.deepEqual(got.slice(1).map((r) => [r.line, 'text' in r ? r.text : r.error]), rows.slice(2).map((t, i) => [i + 3, t]));
});

test('csv/tsv: header problems are input errors naming the file, line and columns', async () => {
  await assert.rejects(read('id,body\n1,x\n', { format: 'csv' }), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /input:1: no text column "text" in the header \(columns: "id", "body"\); pass --text-field/u.test(e.message));
  await assert.rejects(read('\n\nid\ttext\n1\tx\n', { format: 'tsv', idField: 'key' }), (e: unknown) => e instanceof FilmkwError && /input:3: no id column "key"/u.test(e.message));
  assert.deepEqual(await read('', { format: 'csv' }), []);
  assert.deepEqual(await read('\uFEFFtext\n', { format: 'csv' }), []);
});

test('tsv: tab-separated, quotes are data, field-count errors', async () => {
  const got = await read('id\ttext\r\na\t"引号"不配对\r\nb\tx\ty\r\n\r\nc\t\r\n', { format: 'tsv', idField: 'id' });
  assert.deepEqual(got, [
    { line: 2, id: 'a', text: '"引号"不配对' },
    { line: 3, id: 'b', error: '3 fields, header has 2' },
    { line: 5, id: 'c', text: '' },
  ]);
});

test('txt: one record per non-blank line, id = line number; fields are a usage error', async () => {
  assert.deepEqual(await read('\uFEFF第一行\r\n\r\n  \n第四行', { format: 'txt' }), [
    { line: 1, id: '1', text: '第一行' },
    { line: 4, id: '4', text: '第四行' },
  ]);
  await assert.rejects(read('x', { format: 'txt', textField: 'text' }), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE');
});

test('invalid UTF-8 stays a record and is counted; over-long lines are error records', async () => {
  const bad = Buffer.concat([Buffer.from('{"text":"a'), Buffer.from([0xff]), Buffer.from('"}\n{"text":"ok"}\n')]);
  const stats: ReadStats = { invalidUtf8: 0 };
  const got = await read(bad, { format: 'jsonl', stats });
  assert.deepEqual(got, [{ line: 1, id: '1', text: 'a\uFFFD' }, { line: 2, id: '2', text: 'ok' }]);
  assert.equal(stats.invalidUtf8, 1);
  const csvStats: ReadStats = { invalidUtf8: 0 };
  const csv = Buffer.concat([Buffer.from('text\n"a\n'), Buffer.from([0xc3]), Buffer.from('"\nfine\n')]);
  assert.deepEqual(await read(csv, { format: 'csv', stats: csvStats }), [{ line: 2, id: '2', text: 'a\n\uFFFD' }, { line: 4, id: '4', text: 'fine' }]);
  assert.equal(csvStats.invalidUtf8, 1);
  const long = await read(`{"text":"${'长'.repeat(50)}"}\n{"text":"b"}`, { format: 'jsonl', idField: 'id', maxRecordBytes: 64 });
  assert.deepEqual(long[0], { line: 1, error: 'line is longer than 64 bytes (161 bytes); record skipped' });
  assert.match((long[1] as { error: string }).error, /id field "id" is missing/u);
});

test('a 1 MB single document is read whole from 64 KB chunks', async () => {
  const text = '电影'.repeat(180_000) + '结尾';
  const got: InputRecord[] = [];
  for await (const r of readRecords(pieces(JSON.stringify({ text }) + '\n', 64 * 1024), { format: 'jsonl' })) got.push(r);
  assert.equal(got.length, 1);
  assert.equal((got[0] as { text: string }).text, text);
});

test('fixtures: the same documents from jsonl, csv, tsv and txt files', async () => {
  const byFormat: Record<string, InputRecord[]> = {};
  for (const [file, opts] of [
    ['docs.jsonl', { format: 'jsonl', idField: 'id' }],
    ['docs.csv', { format: 'csv', idField: 'id' }],
    ['docs.tsv', { format: 'tsv', idField: 'id' }],
    ['docs.txt', { format: 'txt' }],
  ] as const) {
    const got: InputRecord[] = [];
    for await (const r of readRecords(fixture(file), opts)) got.push(r);
    byFormat[file] = got;
  }
  const texts = (rs: InputRecord[]) => rs.map((r) => ('text' in r ? r.text : `ERROR ${r.error}`));
  assert.deepEqual(texts(byFormat['docs.csv']), texts(byFormat['docs.jsonl']));
  assert.deepEqual(texts(byFormat['docs.tsv']), texts(byFormat['docs.jsonl']));
  assert.deepEqual(texts(byFormat['docs.txt']), texts(byFormat['docs.jsonl']));
  assert.deepEqual(byFormat['docs.jsonl'].map((r) => r.id), byFormat['docs.csv'].map((r) => r.id));
});

test('a missing file is an input error naming it', async () => {
  await assert.rejects(async () => {
    for await (const r of readRecords(fixture('nope.jsonl'), { format: 'jsonl' })) void r;
  }, (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /nope\.jsonl/u.test(e.message) && /ENOENT/u.test(e.message));
});

test('inferFormat / checkFormat', () => {
  assert.equal(inferFormat('a/b.JSONL'), 'jsonl');
  assert.equal(inferFormat('x.ndjson'), 'jsonl');
  assert.equal(inferFormat('x.csv'), 'csv');
  assert.equal(inferFormat('x.tsv'), 'tsv');
  assert.equal(inferFormat('x.txt'), 'txt');
  assert.equal(inferFormat('x.json'), 'json');
  assert.equal(inferFormat('x.xml'), undefined);
  assert.equal(inferFormat('page.HTM'), 'html');
  assert.equal(checkFormat('CSV'), 'csv');
  assert.throws(() => checkFormat('xml'), /unknown --format "xml" \(valid: jsonl, json, csv, tsv, txt, html\)/u);
});

test('document context: film and title fields (jsonl paths, csv columns); missing or blank values give none, a wrong type is an error record naming the field', async () => {
  const jsonl = [
    '{"id":"a","text":"甲","doubanId":"10831445","meta":{"title":["标题","二"]}}',
    '{"id":"b","text":"乙","doubanId":26752088}',
    '{"id":"c","text":"丙","doubanId":"  ","meta":{"title":""}}',
    '{"id":"d","text":"丁","doubanId":{"x":1}}',
    '{"id":"e","text":"戊","meta":{"title":7}}',
    '{"id":"f","text":"己","doubanId":["1292052"],"meta":null}',
  ].join('\n');
  assert.deepEqual(await read(jsonl, { format: 'jsonl', filmField: 'doubanId', titleField: 'meta.title' }), [
    { line: 1, id: 'a', text: '甲', film: '10831445', title: '标题\n二' },
    { line: 2, id: 'b', text: '乙', film: '26752088' },
    { line: 3, id: 'c', text: '丙' },
    { line: 4, id: 'd', error: 'film field "doubanId" is an object; expected a string or a number (a Douban id or a film name)' },
    { line: 5, id: 'e', error: 'title field "meta.title" is a number; expected a string or an array of strings' },
    { line: 6, id: 'f', text: '己', film: '1292052' },
  ]);
  const csv = 'URL,Review,title\nhttps://movie.douban.com/subject/1292052/,很好,肖申克\n,一般,\n';
  assert.deepEqual(await read(csv, { format: 'csv', textField: 'Review', filmField: 'URL', titleField: 'title' }), [
    { line: 2, id: '2', text: '很好', film: 'https://movie.douban.com/subject/1292052/', title: '肖申克' },
    { line: 3, id: '3', text: '一般' },
  ]);
  await assert.rejects(read(csv, { format: 'csv', textField: 'Review', filmField: 'film' }), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /input:1: no film column "film" in the header .*pass --film-field/u.test(e.message));
  await assert.rejects(read('x', { format: 'txt', filmField: 'film' }), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /--film-field/u.test(e.message));
});
