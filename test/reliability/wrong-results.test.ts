/**
 * Issue 17, wrong results without a word, through bin/filmkw (run `npm run build` first): input that is
 * not UTF-8 (UTF-16 with a BOM, GBK) is decoded or loudly reported; invisible characters in KG names are
 * removed and counted by the importers; `tag` uses a JSON line's own `id`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { demoSnapshot } from '../batch/demo-kg.js';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'dist/ is missing: run `npm run build` first';
const run = (args: string[], input?: string) => filmkw(args, { input });

const TEXTS = ['《长津湖》里易烊千玺扮演伍万里，吴京饰演的连长伍千里是他的哥哥。', '《霸王别姬》里张国荣演的程蝶衣，一辈子不疯魔不成活。', '巩俐和张国荣。'];
const JSONL = `${TEXTS.map((t, i) => JSON.stringify({ id: `e${i}`, text: t })).join('\n')}\n`;
const CSV = `id,text\n${TEXTS.map((t, i) => `e${i},"${t}"`).join('\n')}\n`;

test('UTF-16 with a BOM is read like UTF-8; GBK with --encoding too; GBK without it is tagged but loudly reported', { skip }, async () => {
  const kg = await demoSnapshot();
  const d = mkdtempSync(join(tmpdir(), 'filmkw-enc-'));
  const file = (name: string, bytes: Buffer) => {
    writeFileSync(join(d, name), bytes);
    return join(d, name);
  };
  const tag = (path: string, ...extra: string[]) => run(['tag', path, '--kg', kg, '--preset', 'textrank', ...extra]);
  for (const [ext, content, extra] of [['jsonl', JSONL, []], ['csv', CSV, ['--id-field', 'id']]] as const) {
    const base = await tag(file(`utf8.${ext}`, Buffer.from(content)), ...extra);
    assert.equal(base.status, 0, base.stderr);
    assert.equal(base.stdout.trimEnd().split('\n').length, 3);
    const variants: [string, Buffer, string[], RegExp][] = [
      [`u16le.${ext}`, Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(content, 'utf-16le')]), [], /read as utf-16le/u],
      [`u16be.${ext}`, Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(content, 'utf-16be')]), [], /read as utf-16be/u],
      [`gbk.${ext}`, iconv.encode(content, 'gbk'), ['--encoding', 'GBK'], /read as gbk/u],
    ];
    // csv: the BOM case only (the decoding is shared; the csv parser is what differs)
    for (const [name, bytes, more, re] of ext === 'csv' ? variants.slice(0, 1) : variants) {
      const r = await tag(file(name, bytes), ...extra, ...more);
      assert.equal(r.status, 0, `${name}: ${r.stderr}`);
      assert.equal(r.stdout, base.stdout, `${name} tags like the UTF-8 file`);
      assert.match(r.stderr, re);
      assert.doesNotMatch(r.stderr, /WARNING|invalid UTF-8/u);
    }
  }
  const raw = await tag(join(d, 'gbk.jsonl'));
  assert.equal(raw.status, 0, raw.stderr);
  assert.match(raw.stderr, /tag: WARNING: 3 of 3 records \(100%\) are not valid UTF-8: the input is probably in another encoding .*pass --encoding <name>/u);
  const bad = await tag(join(d, 'utf8.jsonl'), '--encoding', 'klingon');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /filmkw: tag: unknown --encoding "klingon"/u);
  const html = await run(['tag', join(root, 'test', 'fixtures', 'html', 'records', 'gbk-list.html'), '--encoding', 'gbk']);
  assert.equal(html.status, 2, html.stderr);
  assert.match(html.stderr, /--encoding does not apply to --format html/u);
  // a few bad bytes in a large file: counted, no warning
  const mostlyGood = Buffer.concat([Buffer.from(JSONL.repeat(20)), Buffer.from('{"id":"x","text":"坏'), Buffer.from([0xe6, 0xb9]), Buffer.from('"}\n')]);
  const few = await tag(file('few.jsonl', mostlyGood));
  assert.match(few.stderr, /1 with invalid UTF-8/u);
  assert.doesNotMatch(few.stderr, /WARNING/u);
});

test('invisible characters in KG names (ZWSP, ZWJ, LRM, backspace, NUL) are removed and counted; the names then match', { skip }, async () => {
  const d = mkdtempSync(join(tmpdir(), 'filmkw-invis-'));
  const src = join(d, 'kg');
  mkdirSync(src);
  writeFileSync(
    join(src, 'entities.csv'),
    'id,kind,name,aliases,movie\nmovie/douban/1,Movie,长\u200b津湖,\u200e长津湖之战,\nperson/douban/2,Person,易\u200d烊千玺,,\nperson/douban/3,Person,吴\b京\u0000,,\nperson/douban/4,Person,伍千里,,\n',
  );
  writeFileSync(join(src, 'relations.csv'), 'from,relation,to,movie\nperson/douban/2,主演,movie/douban/1,\nperson/douban/3,主演,movie/douban/1,\nperson/douban/4,主演,movie/douban/1,\n');
  const out = join(d, 'kg.fkg');
  const imp = await run(['kg', 'import', '--out', out, `csv:${src}`, '--json']);
  assert.equal(imp.status, 0, imp.stderr);
  const summary = JSON.parse(imp.stdout) as { cleaned: { total: number; reasons: { reason: string; count: number; examples: string[] }[] } };
  assert.equal(summary.cleaned.total, 4);
  assert.deepEqual(
    summary.cleaned.reasons.map((r) => [r.reason, r.count]),
    [['Person name: invisible characters removed', 2], ['Movie alias: invisible characters removed', 1], ['Movie name: invisible characters removed', 1]],
  );
  assert.ok(summary.cleaned.reasons[0].examples.includes('kg/entities.csv:4: 吴<U+0008>京<U+0000>'), JSON.stringify(summary.cleaned));
  const human = await run(['kg', 'import', '--out', out, `csv:${src}`]);
  assert.match(human.stderr, /kg import: names with invisible characters removed .*: 4\n/u);
  const r = await run(['tag', '-', '--format', 'txt', '--kg', out, '--preset', 'textrank+w', '--top', '10'], `${TEXTS[0]}\n`); // +w: KG names in the segmenter
  assert.equal(r.status, 0, r.stderr);
  const ids = (JSON.parse(r.stdout) as { keywords: { entityId?: string }[] }).keywords.map((k) => k.entityId).filter(Boolean);
  for (const id of ['person/douban/2', 'person/douban/3']) assert.ok(ids.includes(id), `${id} matched: ${r.stdout}`);
});

test("tag uses a JSON line's own id when there is no --id-field (the bundled samples keep their ids)", { skip }, async () => {
  const r = await run(['tag', 'datasets/samples/reviews.jsonl', '--preset', 'textrank', '--top', '1']);
  assert.equal(r.status, 0, r.stderr);
  const ids = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).id as string);
  assert.ok(ids.length > 3);
  assert.deepEqual(ids, ids.map((_, i) => `sample-${String(i + 1).padStart(2, '0')}`));
  // no id, or an id that is not a string or number: the line number
  const mixedInput = '{"text":"程蝶衣"}\n{"id":7,"text":"巩俐"}\n{"id":{"x":1},"text":"张国荣"}\n';
  const mixedFile = join(mkdtempSync(join(tmpdir(), 'filmkw-ids-')), 'mixed.jsonl');
  writeFileSync(mixedFile, mixedInput);
  const mixed = await run(['tag', mixedFile, '--preset', 'textrank']);
  assert.deepEqual(mixed.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).id), ['1', '7', '3']);
  // stdin to stdout is the Unix filter (src/batch/pipe.ts): null instead of a partition's line number
  const piped = await run(['tag', '-', '--format', 'jsonl', '--preset', 'textrank'], mixedInput);
  assert.deepEqual(piped.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).id), [null, '7', null]);
});

test('eval reads a UTF-16 gold file with its BOM like the UTF-8 one', async () => {
  const { readGold } = await import('../../src/eval/readers.js');
  const d = mkdtempSync(join(tmpdir(), 'filmkw-gold16-'));
  const gold = `${TEXTS.map((t, i) => JSON.stringify({ id: `g${i}`, text: t, tag: ['张国荣'] })).join('\n')}\n`;
  writeFileSync(join(d, 'u8.jsonl'), gold);
  writeFileSync(join(d, 'le.jsonl'), Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(gold, 'utf-16le')]));
  writeFileSync(join(d, 'be.jsonl'), Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(gold, 'utf-16be')]));
  const base = readGold(join(d, 'u8.jsonl'));
  assert.equal(base.length, 3);
  assert.deepEqual(readGold(join(d, 'le.jsonl')), base);
  assert.deepEqual(readGold(join(d, 'be.jsonl')), base);
});

test('UTF-16 BOM detection does not depend on how the bytes are chunked (1-byte chunks, a 1-byte input)', async () => {
  const { readRecords } = await import('../../src/io/readers.js');
  const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(JSONL, 'utf-16be')]);
  const read = async (chunks: Buffer[]) => {
    const out: unknown[] = [];
    async function* src() {
      yield* chunks;
    }
    for await (const r of readRecords(src(), { format: 'jsonl' })) out.push(r);
    return out;
  };
  const whole = await read([bytes]);
  assert.equal(whole.length, 3);
  assert.deepEqual(await read([...bytes].map((b) => Buffer.from([b]))), whole);
  assert.deepEqual(await read([Buffer.from('x')]).then((r) => r.length), 1);
});
