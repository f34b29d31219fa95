/** Test helper of the raw-text cut (src/html/rawtext.ts): the cut parse of a page must equal the uncut one. */
import assert from 'node:assert/strict';
import { parseTree, type TNode } from '../../src/html/tree.js';

const ser = (n: TNode): unknown => (n.type === 'text' ? [n.value, n.text, n.link] : [n.tag, n.attrs, n.text, n.link, n.anchors, n.children.map(ser)]);

/** Parses with the cut (whatever share of the page it holds) and without; asserts the same tree and head; returns the cut info. */
export function same(html: string, msg = html.slice(0, 200)) {
  const a = parseTree(html, { cutMinShare: 0 });
  const b = parseTree(html, { cutRawText: false });
  assert.deepEqual(ser(a.root), ser(b.root), msg);
  assert.deepEqual(a.head, b.head, msg);
  assert.equal(b.cut.cuts, 0);
  return a.cut;
}
