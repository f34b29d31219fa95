import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { readGold, parseGold } from '../../src/eval/readers.js';
import { FilmkwError } from '../../src/errors.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/eval/${name}`, import.meta.url));
const shared = (rel: string) => fileURLToPath(new URL(`../../../shared/data/${rel}`, import.meta.url));

/** Asserts an input error (exit 3) whose message matches. */
const rejects = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FilmkwError, `not a FilmkwError: ${String(err)}`);
    assert.equal(err.code, 'INPUT');
    assert.match(err.message, message);
    return true;
  });

test('jsonl: reads id, text and tag; skips blank lines; numeric ids become strings', () => {
  const docs = readGold(fixture('tiny.jsonl'));
  assert.equal(docs.length, 2);
  assert.deepEqual(docs.map((d) => [d.id, d.line, d.gold.length]), [['d1', 1, 5], ['2', 3, 5]]);
  assert.equal(docs[0].gold[0], '长津湖');
  assert.match(docs[1].text, /^唢呐艺人/);
});

test('jsonl: text and id fields are configurable; a missing id becomes file:line', () => {
  const docs = parseGold('{"body":"甲乙","key":"k1","tag":["甲"]}\n{"body":"丙","tag":["丙"]}\n', 'mem.jsonl', { textField: 'body', idField: 'key' });
  assert.deepEqual(docs.map((d) => [d.id, d.text]), [['k1', '甲乙'], ['mem.jsonl:2', '丙']]);
});

test('jsonl: bad lines are reported with file:line and the field', () => {
  rejects(() => readGold(fixture('bad-json.jsonl'), {}, 'bad-json.jsonl'), /^bad-json\.jsonl:2: invalid JSON/);
  rejects(() => readGold(fixture('bad-text.jsonl'), {}, 'bad-text.jsonl'), /^bad-text\.jsonl:2: field "text" is missing.*--text-field/);
  rejects(() => readGold(fixture('bad-text.jsonl'), { textField: 'content' }, 'bad-text.jsonl'), /^bad-text\.jsonl:1: field "content" is missing/);
  rejects(() => readGold(fixture('bad-tag.jsonl'), {}, 'bad-tag.jsonl'), /^bad-tag\.jsonl:1: field "tag" is not an array/);
  rejects(() => readGold(fixture('empty-tag.jsonl'), {}, 'empty-tag.jsonl'), /^empty-tag\.jsonl:1: field "tag" is empty/);
  rejects(() => readGold(fixture('dup-id.jsonl'), {}, 'dup-id.jsonl'), /^dup-id\.jsonl:2: duplicate id "a" \(first on line 1\)/);
  rejects(() => parseGold('[1,2]\n', 'arr.jsonl'), /^arr\.jsonl:1: expected a JSON object/);
  rejects(() => parseGold('{"text":"x","tag":["x",""]}\n', 'e.jsonl'), /^e\.jsonl:1: field "tag"\[1\] must be a non-empty string/);
  rejects(() => parseGold('\n\n', 'blank.jsonl'), /no documents/);
  rejects(() => readGold(fixture('no-such-file.jsonl'), {}, 'no-such-file.jsonl'), /no-such-file\.jsonl: cannot read gold file \(ENOENT\)/);
});

test('csl: three columns, keywords split on _, BOM and CRLF tolerated, ids are file:line', () => {
  const docs = readGold(fixture('tiny-csl.tsv'), { format: 'csl' });
  assert.equal(docs.length, 2);
  assert.deepEqual(docs[0].gold, ['Rodrigues参数', '姿态控制', '飞行器']);
  assert.deepEqual(docs[1].gold, ['全过程管理', '水运工程']);
  assert.equal(docs[0].id, 'tiny-csl.tsv:1');
  assert.match(docs[0].text, /^采用修正的/);
  assert.doesNotMatch(docs[1].text, /\r/);
});

test('csl: bad lines are reported with file:line', () => {
  rejects(() => readGold(fixture('bad-cols.tsv'), { format: 'csl' }, 'bad-cols.tsv'), /^bad-cols\.tsv:2: expected 3 tab-separated columns.*found 2/);
  rejects(() => readGold(fixture('bad-kw.tsv'), { format: 'csl' }, 'bad-kw.tsv'), /^bad-kw\.tsv:1: column 3 \(keywords\) has an empty keyword/);
});

test('reader options: unknown format or key is a usage error listing valid values', () => {
  assert.throws(() => parseGold('', 'x', { format: 'tsv' as never }), /unknown gold format "tsv" \(valid: jsonl, csl\)/);
  assert.throws(() => parseGold('', 'x', { text: 'body' } as never), /unknown reader option "text"/);
});

const filmDev = shared('annotated/film-dev.jsonl');
test('real data: film-dev.jsonl has 180 documents with 5 tags each', { skip: existsSync(filmDev) ? false : '../shared/data absent' }, () => {
  const docs = readGold(filmDev);
  assert.equal(docs.length, 180);
  assert.ok(docs.every((d) => d.gold.length === 5 && d.gold.every((g) => d.text.includes(g))));
});

const cslDev = shared('bench/csl-kg/dev.tsv');
test('real data: csl-kg dev.tsv has 1000 documents', { skip: existsSync(cslDev) ? false : '../shared/data absent' }, () => {
  const docs = readGold(cslDev, { format: 'csl' });
  assert.equal(docs.length, 1000);
  assert.equal(docs[0].gold.join('_'), '修正Rodrigues参数模型_平方和优化_大角度机动_Lyapunov函数');
});

test('jsonl: groupField (eval --by) reads a string or number per document, (none) when absent; a bad value is a bad line', () => {
  const docs = parseGold('{"id":1,"text":"a","tag":["a"],"kind":"review"}\n{"id":2,"text":"b","tag":["b"],"kind":3}\n{"id":3,"text":"c","tag":["c"]}\n', 'g.jsonl', { groupField: 'kind' });
  assert.deepEqual(docs.map((d) => d.group), ['review', '3', '(none)']);
  assert.equal(parseGold('{"id":1,"text":"a","tag":["a"],"kind":"x"}\n', 'g.jsonl')[0].group, undefined, 'no groups unless asked');
  assert.throws(() => parseGold('{"id":1,"text":"a","tag":["a"],"kind":["x"]}\n', 'g.jsonl', { groupField: 'kind' }), /g\.jsonl:1: field "kind" \(--by\) must be a string or number/);
  assert.throws(() => parseGold('x\ta\tb\n', 'g.tsv', { format: 'csl', groupField: 'kind' }), /need the jsonl format/);
  assert.throws(() => parseGold('{"id":1,"text":"a","tag":["a"]}\n', 'g.jsonl', { groupField: '__proto__' }), FilmkwError);
});

test('jsonl: a groupField that no record has a value in is an input error naming the file and the field (a typo, not one group)', () => {
  const content = '{"id":1,"text":"a","tag":["a"],"kind":null}\n\n{"id":2,"text":"b","tag":["b"],"film":"x"}\n';
  assert.throws(
    () => parseGold(content, 'g.jsonl', { groupField: 'knid' }),
    (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && e.exitCode === 3 && e.message === 'g.jsonl: no record has a value in the field "knid" (--by); the first record\'s fields: id, text, tag, kind',
  );
  assert.throws(() => parseGold(content, 'g.jsonl', { groupField: 'kind' }), /no record has a value in the field "kind"/, 'null everywhere is no value');
  assert.deepEqual(parseGold(content, 'g.jsonl', { groupField: 'film' }).map((d) => d.group), ['(none)', 'x'], 'one record with it is enough');
  assert.equal(parseGold(content, 'g.jsonl').length, 2, 'no groupField: no check');
});

test('jsonl gold: the document context (filmField, titleField) is read when asked for; a wrong type and a field no record has are input errors', () => {
  const content = ['{"id":"a","text":"甲","tag":["x"],"doubanId":"10831445","title":"标题"}', '{"id":"b","text":"乙","tag":["y"],"doubanId":26752088}', '{"id":"c","text":"丙","tag":["z"]}'].join('\n');
  const docs = parseGold(content, 'g.jsonl', { filmField: 'doubanId', titleField: 'title' });
  assert.deepEqual(docs.map((d) => [d.id, d.film, d.title]), [['a', '10831445', '标题'], ['b', '26752088', undefined], ['c', undefined, undefined]]);
  assert.deepEqual(parseGold(content, 'g.jsonl').map((d) => [d.film, d.title]), [[undefined, undefined], [undefined, undefined], [undefined, undefined]], 'not asked for: not read');
  assert.throws(() => parseGold(content, 'g.jsonl', { filmField: 'film' }), /g\.jsonl: no record has a value in the field "film" \(--film-field\)/u);
  assert.throws(() => parseGold('{"id":"a","text":"甲","tag":["x"],"title":["t"]}', 'g.jsonl', { titleField: 'title' }), /g\.jsonl:1: field "title" \(--title-field\) must be a string/u);
  assert.throws(() => parseGold('to keywords\t文本\tx_y', 'd.tsv', { format: 'csl', filmField: 'film' }), /--film-field and --title-field need the jsonl format/u);
});
