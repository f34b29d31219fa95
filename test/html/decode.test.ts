/**
 * src/html/decode.ts: BOM, declared charset (meta / http-equiv / <text encoding>), GBK/GB2312 as
 * GB18030, UTF-8 bytes under a wrong legacy declaration, undeclared GB18030 fallback, and the error
 * cases (empty, not HTML, wrong encoding) naming the file. Real pages: every CWCED page decodes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { decodeHtml, declaredCharset, normalizeCharset } from '../../src/html/decode.js';
import { FilmkwError } from '../../src/errors.js';

const u8 = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const page = (meta: string, body: string): string => `<html><head>${meta}<title>影评</title></head><body><p>${body}</p></body></html>`;
const ZH = '《霸王别姬》是陈凯歌执导的电影，张国荣、张丰毅、巩俐主演。镕';

test('UTF-8 with and without BOM', () => {
  const s = page('<meta charset="utf-8">', ZH);
  const a = decodeHtml(u8(Buffer.from(s, 'utf8')));
  assert.equal(a.encoding, 'utf-8');
  assert.ok(a.html.includes(ZH));
  assert.deepEqual(a.warnings, []);
  const b = decodeHtml(u8(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(s, 'utf8')])));
  assert.equal(b.encoding, 'utf-8');
  assert.equal(b.html, s, 'BOM removed');
  const c = decodeHtml(u8(Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(s, 'utf-16le')])));
  assert.equal(c.encoding, 'utf-16le');
  assert.equal(c.html, s);
});

test('gb2312 / gbk declarations decode as GB18030 (meta charset and http-equiv)', () => {
  for (const meta of ['<meta charset="gb2312">', '<meta http-equiv="Content-Type" content="text/html; charset=GBK">', '<META HTTP-EQUIV=content-type CONTENT="text/html;charset=gb2312">']) {
    const s = page(meta, ZH);
    const r = decodeHtml(u8(iconv.encode(s, 'gb18030')), { path: 'a.html' });
    assert.equal(r.encoding, 'gb18030', meta);
    assert.ok(r.html.includes(ZH), meta);
    assert.deepEqual(r.warnings, [], meta);
  }
});

test('UTF-8 bytes under a gbk declaration are decoded as UTF-8 with a warning', () => {
  const r = decodeHtml(u8(Buffer.from(page('<meta charset="gbk">', ZH), 'utf8')), { path: 'trap.html' });
  assert.equal(r.encoding, 'utf-8');
  assert.ok(r.html.includes(ZH));
  assert.match(r.warnings.join('\n'), /trap\.html: declared charset gbk but the bytes are valid UTF-8/);
});

test('undeclared non-UTF-8 bytes fall back to GB18030; <text encoding> wrapper is read', () => {
  const r = decodeHtml(u8(iconv.encode(page('', ZH), 'gb18030')));
  assert.equal(r.encoding, 'gb18030');
  assert.ok(r.html.includes(ZH));
  assert.equal(declaredCharset('<text id="x" title="t" encoding="gb2312">'), 'gb2312');
  assert.equal(declaredCharset('<meta http-equiv="content-type" content="text/html; charset=utf-8">'), 'utf-8');
  assert.equal(normalizeCharset('GB2312'), 'gb18030');
  assert.equal(normalizeCharset('no-such-charset'), null);
});

test('a few broken bytes are tolerated with a warning', () => {
  const good = iconv.encode(page('<meta charset="gbk">', ZH.repeat(20)), 'gb18030');
  const broken = Buffer.concat([good.subarray(0, 200), Buffer.from([0xff]), good.subarray(200)]);
  const r = decodeHtml(u8(broken), { path: 'b.html' });
  assert.equal(r.encoding, 'gb18030');
  assert.match(r.warnings.join('\n'), /b\.html: [12] undecodable byte sequence/);
});

test('errors: empty, not HTML, wrong encoding — FilmkwError INPUT naming the file', () => {
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array(0), /^html: x\.html: empty page/],
    [u8(Buffer.from('  \n\t ')), /empty page/],
    [u8(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00])), /not HTML \(binary/],
    [u8(Buffer.from('{"id": 1, "text": "只是 JSON"}\n')), /not HTML \(no HTML tag/],
    // Latin-1 text under a gbk declaration: neither GB18030 nor UTF-8 decodes it
    [u8(Buffer.concat([Buffer.from('<html><head><meta charset="gbk"></head><body><p>'), Buffer.from('caf\xe9 cr\xe8me br\xfbl\xe9e, '.repeat(40), 'latin1'), Buffer.from('</p></body></html>')])), /wrong encoding: .*declared charset gbk/],
  ];
  for (const [bytes, re] of cases) {
    assert.throws(
      () => decodeHtml(bytes, { path: 'x.html' }),
      (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && re.test(e.message) && e.message.includes('x.html'),
      String(re),
    );
  }
});

test('Big5 bytes under a gbk declaration: GB18030 gives mojibake without U+FFFD, so the page is read as Big5 with a warning', () => {
  const TW = '《霸王別姬》是陳凱歌執導的電影，張國榮、張豐毅、鞏俐主演。這部電影講述兩位京劇演員半個世紀的悲歡離合。';
  const r = decodeHtml(u8(iconv.encode(page('<meta charset="gbk">', TW.repeat(3)), 'big5')), { path: 'tw.html' });
  assert.equal(r.encoding, 'big5');
  assert.ok(r.html.includes(TW));
  assert.match(r.warnings.join('\n'), /tw\.html: declared charset gbk does not fit the bytes; decoded as big5/);
  // the same text in GBK stays GB18030 (traditional characters are common hanzi too)
  const g = decodeHtml(u8(iconv.encode(page('<meta charset="gbk">', TW.repeat(3)), 'gb18030')));
  assert.equal(g.encoding, 'gb18030');
  assert.ok(g.html.includes(TW));
});

test('wrong encoding: high bytes that GB18030 decodes without U+FFFD but into rare characters are an error, not text', () => {
  const junk = Buffer.alloc(1200);
  for (let i = 0; i < junk.length; i++) junk[i] = i % 2 ? 0x80 + ((i * 37) % 0x7f) : 0x81 + ((i * 13) % 0x7e);
  const bytes = u8(Buffer.concat([Buffer.from('<html><head><meta charset="gbk"></head><body><p>'), junk, Buffer.from('</p></body></html>')]));
  assert.throws(
    () => decodeHtml(bytes, { path: 'junk.html' }),
    (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /junk\.html: wrong encoding: .*common hanzi \(mojibake\)/.test(e.message),
  );
});

test('a page without </html> decodes with a truncation warning', () => {
  const r = decodeHtml(u8(Buffer.from('<html><body><p>' + ZH)));
  assert.match(r.warnings.join('\n'), /may be truncated/);
});

const CWCED = fileURLToPath(new URL('../../../shared/data/html/immortal-autumn+Chinese-Web-Content-Extraction-Dataset/original/', import.meta.url));
test('real pages: all 69 CWCED pages decode (mixed GBK/UTF-8, 2 with a few bad bytes)', { skip: !existsSync(CWCED) && 'needs ../shared/data/html' }, () => {
  const files = readdirSync(CWCED).filter((f) => f.endsWith('.html'));
  assert.equal(files.length, 69);
  const enc: Record<string, number> = {};
  for (const f of files) {
    const r = decodeHtml(u8(readFileSync(join(CWCED, f))), { path: f });
    enc[r.encoding] = (enc[r.encoding] ?? 0) + 1;
    assert.ok(!r.html.slice(0, 20000).includes('\uFFFD\uFFFD\uFFFD'), f);
  }
  assert.deepEqual(enc, { 'utf-8': 22, gb18030: 47 });
});
