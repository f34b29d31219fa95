/**
 * src/html/rawtext.ts: the script/style pre-scan before parsing. The cut page must parse to the same
 * tree and head as the whole page: edge cases of the end rules, truncated pages, upper-case tags,
 * attributes holding '>', comments that look nested, pages that fool the scan (they must fall back);
 * htmlparser2's own end rule against ours on generated script text; generated tag soup; the real Douban
 * review pages. Every real page of ../shared/data/html: test/integration/html/rawtext-real-pages.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'htmlparser2';
import { commentEnd, CUT_PROBE, cutRawText, rawTextEnd, startTagEnd } from '../../src/html/rawtext.js';
import { parseTree } from '../../src/html/tree.js';
import { decodeHtml } from '../../src/html/decode.js';
import { mulberry32 } from '../../src/util/random.js';
import { same } from './same-parse.js';

const cutText = (html: string): string => cutRawText(html).parts.join('');

test('end rule: </script followed by white space, / or > in any case; not </scriptx, not </ script', () => {
  assert.equal(cutText('<script>a</script>b'), `<script>${CUT_PROBE}</script>b`);
  for (const end of ['</SCRIPT>', '</Script >', '</script/>', '</script\t>', '</script\n>', '</script\f>', '</script\r>'])
    assert.equal(cutText(`<p>x</p><script>var a = 1;${end}<p>y</p>`), `<p>x</p><script>${CUT_PROBE}${end}<p>y</p>`, JSON.stringify(end));
  assert.equal(cutText('<script>a</scriptx>b</ script>c</script>d'), `<script>${CUT_PROBE}</script>d`);
  assert.equal(cutText('<script>if (a<</script>z'), `<script>${CUT_PROBE}</script>z`);
  assert.equal(cutText('<style>p{}</STYLE>q'), `<style>${CUT_PROBE}</STYLE>q`);
  assert.equal(rawTextEnd('ab</scripT\t', 0, 'script'), 2);
  assert.equal(rawTextEnd('ab</scripts>', 0, 'script'), 12, 'no end: the page length');
  for (const h of ['<script>a</script>b', '<script>a</scriptx>b</ script>c</script>d', '<SCRIPT>x</SCRIPT ><p>t</p>', '<style>p{}</STYLE>q']) assert.equal(same(h).fallback, false);
});

test('upper-case and mixed-case start tags, attributes holding ">" and quotes, self-closing syntax', () => {
  assert.equal(cutText('<SCRIPT TYPE="text/javascript">x</SCRIPT>'), `<SCRIPT TYPE="text/javascript">${CUT_PROBE}</SCRIPT>`);
  assert.equal(cutText(`<script data-a="1>2" data-b='>' c=d>x</script>`), `<script data-a="1>2" data-b='>' c=d>${CUT_PROBE}</script>`);
  assert.equal(cutText('<script/>x</script>y'), `<script/>${CUT_PROBE}</script>y`, '<script/> still opens raw text in HTML');
  assert.equal(startTagEnd('<script a = "x>" b>', 7), 18);
  assert.equal(startTagEnd('<script a="x', 7), -1);
  for (const h of [
    '<body><SCRIPT TYPE="text/javascript">document.write("<p>不</p>")</SCRIPT><p>正文</p></body>',
    `<body><script data-a="1>2" data-b='>' c=d>var s = "</p>";</script><p>正文</p></body>`,
    '<body><script/>var x = "<div>";</script><p>正文</p></body>',
    '<body><Style media="a>b">p{color:red}</sTyLe><p>正文</p></body>',
  ])
    assert.equal(same(h).fallback, false, h);
});

test('comments: <!-->, <!--->, --!>, nested-looking comments and <script inside them are not cut', () => {
  for (const [h, out] of [
    ['<!--><script>a</script>', `<!--><script>${CUT_PROBE}</script>`],
    ['<!---><script>a</script>', `<!---><script>${CUT_PROBE}</script>`],
    ['<!----><script>a</script>', `<!----><script>${CUT_PROBE}</script>`],
    ['<!-- x --!><script>a</script>', `<!-- x --!><script>${CUT_PROBE}</script>`],
    ['<!-- <script>a</script> --><p>b</p>', '<!-- <script>a</script> --><p>b</p>'],
    ['<!-- <!-- <script>a</script> --> <script>b</script> -->', `<!-- <!-- <script>a</script> --> <script>${CUT_PROBE}</script> -->`],
    ['<!-- -- > <script>a</script> -->', '<!-- -- > <script>a</script> -->'],
    ['<!-- never closed <script>a</script>', '<!-- never closed <script>a</script>'],
  ] as const)
    assert.equal(cutText(h), out, h);
  assert.equal(commentEnd('<!-->', 4), 5);
  assert.equal(commentEnd('<!--->', 4), 6);
  assert.equal(commentEnd('<!-- a --!> b -->', 4), 11);
  assert.equal(commentEnd('<!-- a', 4), -1);
  for (const h of ['<body><!-- <!-- <script>a</script> --> <script>b</script> --><p>正文</p></body>', '<body><!---><script>x</script><p>正文</p></body>', '<body><!-- a --!><script>x</script><p>正文</p><!-- open'])
    same(h);
});

test('truncated pages: a script running to the end is cut; an unterminated start tag is not', () => {
  assert.equal(cutText('<p>a</p><script>var x = 1; </scr'), `<p>a</p><script>${CUT_PROBE}`);
  assert.equal(cutText('<p>a</p><script src="a.js'), '<p>a</p><script src="a.js');
  assert.equal(cutText('<p>a</p><script>'), '<p>a</p><script>', 'nothing to cut');
  for (const h of ['<body><p>正文</p><script>var x = 1; </scr', '<body><p>正文</p><script>var x', '<body><p>正文</p><script src="a.js', '<body><p>正文</p><style>p{'])
    assert.equal(same(h).fallback, false, h);
  // a page cut off inside an end tag or after a lone '<': htmlparser2 flushes text at the end (for "</div "
  // it reads from position -1, which differs between one string and the written pieces): parsed uncut
  for (const h of ['<body><p>正文</p><script>x</script><p>后</p></div ', '<p>--><SCRIPT type="a>b"><svg></Script ', '<body><script>x</script><p>正文</p><', '<body><script>x</script><p>正文 &amp'])
    assert.equal(same(h).fallback, true, h);
});

test('never cut: JSON-LD (read for metadata), script text holding <!--, U+000F / U+001C, svg/math content, title/textarea text', () => {
  const ld = '<head><script type="application/ld+json">{"author":"甲"}</script></head><body><p>正文</p></body>';
  assert.equal(cutText(ld), ld);
  assert.deepEqual(parseTree(ld).head.jsonLd, ['{"author":"甲"}']);
  for (const h of [
    '<script><!-- document.write("<script>x<\\/script>") --></script><p>b</p>',
    '<script>a\x1c/script>b</script>',
    '<script>a\x0f</script>',
    '<svg><style>p{}</style><script>a</script></svg>',
    '<math><script>a</script></math>',
    '<title><script>a</script></title>',
    '<textarea><style>p{}</style></textarea>',
  ])
    assert.equal(cutText(h), h, JSON.stringify(h));
  assert.equal(cutText('<svg/><script>a</script>'), `<svg/><script>${CUT_PROBE}</script>`);
  assert.equal(cutText('<svg><g/></svg><script>a</script>'), `<svg><g/></svg><script>${CUT_PROBE}</script>`);
  for (const h of ['<body><svg><style>p{}</style><script>if (a<b) x()</script></svg><p>正文</p></body>', '<body><title><script>a</script></title><p>正文</p></body>']) same(h);
});

test('a <script the scan takes for a tag but the parser does not: the check fails and the page is parsed uncut', () => {
  for (const h of [
    '<body><div title="<script>">正文一</div><p>正文二</p><script>x</script></body>', // inside an attribute value
    '<body><?php echo "<script>"; ?><p>正文</p></script><p>后</p></body>', // a bogus comment ends at its '>'
    '<body><![CDATA[<script>]]><p>正文</p></script><p>后</p></body>', // CDATA is a comment in HTML
    '<body><a href=x<script>y>链接</a><p>正文</p></script></body>', // unquoted value holding "<script"
  ]) {
    assert.ok(cutRawText(h).cuts.length > 0, 'the scan does cut something');
    const c = same(h);
    assert.equal(c.fallback, true, h);
  }
});

/** Deterministic integers in [0, n). */
function rng(seed: number): (n: number) => number {
  const next = mulberry32(seed);
  return (n) => Math.floor(next() * n);
}

test('htmlparser2 ends script text where rawTextEnd does (generated script bodies)', () => {
  const rnd = rng(7);
  const bits = ['a', ' ', '<', '/', '>', '</', 'script', 'SCRIPT', 'Script', 'scripts', '</script', '</scrip', '<</', '\t', '\n', '\r', '\f', '"', "'", 'x', '&lt;', '-', '--', '!'];
  for (let k = 0; k < 3000; k++) {
    let body = '';
    for (let i = rnd(14); i >= 0; i--) body += bits[rnd(bits.length)];
    const html = `<script>${body}</script>`;
    let text = '';
    let inScript = false;
    const p = new Parser({ onopentag: (n) => void (inScript = n === 'script'), ontext: (t) => void (inScript && (text += t)), onclosetag: () => void (inScript = false) }, { decodeEntities: true, lowerCaseTags: true });
    p.write(html);
    p.end();
    assert.equal(text, html.slice(8, rawTextEnd(html, 8, 'script')), JSON.stringify(html));
  }
});

test('generated tag soup: the cut parse equals the uncut parse', () => {
  const rnd = rng(11);
  const bits = [
    '<script>', '</script>', '<SCRIPT type="a>b">', '</Script ', '<style>', '</style>', '<script/>', '<!--', '-->', '--!>', '<!-->', '<p>', '</p>', '<div class="x">', '</div>',
    '正文', 'text ', '"', "'", '>', '<', '<svg>', '</svg>', '<math>', '<title>', '</title>', '<textarea>', '</textarea>', '<a href=x>', '</a>', '<body>', '<head>',
    '<script type="application/ld+json">', '{"a":1}', '<![CDATA[', ']]>', '<?x ', '<div title="', '<iframe>', '</iframe>', '<br>', '&amp;', '<', '</', '/',
    '\x1c', '\x0f', '</script/', '<scripT\n', '<!DOCTYPE html>', '<!x>', '</ x>', '<p/>', '<plaintext>', '<xmp>', '</xmp>', '<noscript>', '<foreignObject>',
    '<select>', '<option>', '<table>', '<td>', '<li>', '<div hidden>', '<span style="display:none">', '</STYLE\t', '<style/>', '<svg/>', '</div ', '&amp',
  ];
  let cut = 0;
  for (let k = 0; k < 5000; k++) {
    let h = '';
    for (let i = 4 + rnd(30); i >= 0; i--) h += bits[rnd(bits.length)];
    const c = same(h, JSON.stringify(h));
    if (c.cuts && !c.fallback) cut++;
  }
  assert.ok(cut > 500, `cuts used on ${cut} of 5000 generated pages`);
});

const HTML_DIR = join(process.env.FILMKW_DATA ?? join(fileURLToPath(new URL('../../', import.meta.url)), '..', 'shared', 'data'), 'html');

test('real Douban review pages: ≥ 98 % of the page is cut', { skip: !existsSync(join(HTML_DIR, 'YPdeHQQ+python')) && 'needs ../shared/data/html' }, () => {
  for (const f of ['douban.html', '豆瓣电影影评.html']) {
    const html = decodeHtml(readFileSync(join(HTML_DIR, 'YPdeHQQ+python', f)), { path: f }).html;
    const { cut } = parseTree(html);
    assert.equal(cut.fallback, false);
    assert.ok(cut.chars / html.length > 0.98, `${f}: ${cut.chars} of ${html.length}`);
  }
});
