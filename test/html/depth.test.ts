/**
 * src/html/depth.ts: the nesting cap between htmlparser2's tokenizer and its parser (issue 26: 400k nested
 * divs took about 2 minutes per page). The work is counted, never timed: the parser's stack, which each
 * start and end tag searches, never holds more than cap + 1 elements; pages within the cap give the same
 * tree as htmlparser2 alone (the fixtures here, every real page in test/integration/html/); what is
 * dropped keeps its text where a reader expects it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'htmlparser2';
import render from 'dom-serializer';
import { textContent } from 'domutils';
import { cappedParser, NESTING_DEFAULTS } from '../../src/html/depth.js';
import { parseHtmlCapped } from '../../src/html/structural.js';
import { parseTree, textWithBreaks } from '../../src/html/tree.js';
import { FilmkwError } from '../../src/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every `.html` file under `dir` (sorted). */
function htmlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...htmlFiles(p));
    else if (/\.html?$/u.test(name)) out.push(p);
  }
  return out;
}

test('the parser stack stays at cap + 1 for any nesting (counted), and the dropped tags are counted', () => {
  const cases: [string, string, number][] = [
    ['nested divs', '<div>'.repeat(100_000) + 'x' + '</div>'.repeat(100_000), 100_000],
    ['unclosed divs', '<div>'.repeat(100_000) + 'x', 100_000],
    ['nested anchors and spans', '<span><a href="#">'.repeat(50_000) + 'x', 100_000],
    ['tables', '<table><tr><td>'.repeat(30_000) + 'x', 90_000],
  ];
  for (const [name, html, tags] of cases) {
    for (const cap of [8, 64, NESTING_DEFAULTS.maxDepth]) {
      const { parser, stats } = cappedParser({}, {}, cap);
      parser.end(html);
      assert.ok(stats.maxDepth <= cap + 1, `${name}, cap ${cap}: stack ${stats.maxDepth}`);
      assert.ok(stats.dropped >= tags - 3 * (cap + 1) && stats.dropped < tags, `${name}, cap ${cap}: ${stats.dropped} dropped of ${tags}`);
    }
  }
});

test('pages within the cap parse exactly as with htmlparser2 alone (the fixture pages; every real page: test/integration/html/depth-real-pages.test.ts)', () => {
  const files = htmlFiles(join(root, 'test', 'fixtures', 'html'));
  assert.ok(files.length >= 10, `${files.length} pages`);
  for (const f of files) {
    const html = readFileSync(f, 'latin1');
    const { doc, depth } = parseHtmlCapped(html);
    assert.equal(depth.dropped, 0, f);
    assert.ok(depth.maxDepth < NESTING_DEFAULTS.maxDepth, f);
    assert.equal(render(doc), render(parseDocument(html, { decodeEntities: true, withStartIndices: true })), f);
  }
});

test('text below the cap is kept in the element at the cap; what follows the deep block lands where it belongs', () => {
  const html = `<body>${'<div>'.repeat(40)}深处<b>粗</b>${'</div>'.repeat(40)}<p id="after">之后</p></body>`;
  const { doc, depth } = parseHtmlCapped(html, 16);
  assert.ok(depth.dropped > 0);
  assert.equal(textContent(doc), '深处粗之后');
  const body = doc.children.find((c) => 'name' in c && c.name === 'body') as { children: { name?: string; attribs?: Record<string, string> }[] };
  assert.equal(body.children.at(-1)?.attribs?.id, 'after', 'the p is a child of body, not of a deep div');
  assert.equal(body.children.filter((c) => c.name === 'div').length, 1);
});

test('a raw-text element at the cap keeps its contents out of the text; below the cap its tag is dropped and its text kept', () => {
  const cap = 8;
  // html, body and 6 divs fill the cap: the script opens right at it
  const atCap = `<html><body>${'<div>'.repeat(6)}<script>var secret = "<div>";</script>可见${'</div>'.repeat(6)}</body></html>`;
  const t = parseTree(atCap, { maxDepth: cap });
  assert.equal(textWithBreaks(t.root).replace(/\s+/gu, ''), '可见');
  const { parser, stats } = cappedParser({}, {}, cap);
  parser.end(atCap);
  assert.ok(stats.maxDepth <= cap + 1);
  assert.equal(stats.dropped, 0, 'the script is passed on at the cap');
});

test('parseTree: maxDepth is validated (FilmkwError USAGE), and the default cap keeps real nesting', () => {
  for (const bad of [0, 7, 100_001, 1.5, Number.NaN]) {
    assert.throws(() => parseTree('<p>x</p>', { maxDepth: bad }), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /maxDepth must be an integer in \[8, 100000\]/u.test(e.message), String(bad));
  }
  const t = parseTree(`<html><body>${'<div>'.repeat(300)}<p>三百层</p>${'</div>'.repeat(300)}</body></html>`);
  assert.equal(t.depth.dropped, 0);
  assert.equal(t.depth.maxDepth, 303);
});
