/**
 * Text in traditional script (script.ts, option `lexicon.script`) and the cast-list verbs never output
 * (`output.castVerbs`): golden outputs on small fixtures with the demo KG, each of which the pipeline
 * without the option gets wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTraditional, keywordsAsWritten, simplifiedCopy, surfaceAsWritten } from '../../src/pipeline/script.js';
import { createExtractor } from '../../src/pipeline/extract.js';
import { resolveOptions } from '../../src/pipeline/options.js';
import { CAST_VERBS, isCastVerb } from '../../src/pipeline/phrases.js';
import { selectWithModel, type TrainingDocument } from '../../src/eval/rerank-train.js';
import { zeroRerankModel } from '../../src/pipeline/rerank-model.js';
import { RERANK_FEATURES } from '../../src/pipeline/rerank.js';
import { loadKg } from '../../src/kg/load.js';

const TRADITIONAL = '《百鳥朝鳳》講述嗩吶藝人焦三爺收徒的故事。嗩吶是傳統樂器，焦三爺把嗩吶班傳給了天鳴。吳天明導演的遺作。';
const SIMPLIFIED = '《百鸟朝凤》讲述唢呐艺人焦三爷收徒的故事。唢呐是传统乐器，焦三爷把唢呐班传给了天鸣。吴天明导演的遗作。';

test('isTraditional: a text in traditional script, not a simplified one nor one with a stray variant character', () => {
  assert.equal(isTraditional(TRADITIONAL), true);
  assert.equal(isTraditional(SIMPLIFIED), false);
  // one traditional-only character (於) in a simplified text: below the minimum of 2
  assert.equal(isTraditional(`${SIMPLIFIED}生於北京。`), false);
  // two in a long simplified text: below 1 % of its ideographs
  assert.equal(isTraditional(`${SIMPLIFIED.repeat(10)}生於北京，後来`), false);
  assert.equal(isTraditional(''), false);
  assert.equal(isTraditional('Hannibal Lecter 2001'), false);
});

test('simplifiedCopy: the same length, simplified; null for a simplified text; surfaces taken back at the same offsets', () => {
  const copy = simplifiedCopy(TRADITIONAL);
  assert.equal(copy, SIMPLIFIED);
  assert.equal(simplifiedCopy(SIMPLIFIED), null);
  assert.equal(surfaceAsWritten('唢呐班', TRADITIONAL, copy!), '嗩吶班');
  assert.equal(surfaceAsWritten('百鸟朝凤', TRADITIONAL, copy!), '百鳥朝鳳');
  assert.equal(surfaceAsWritten('不在文中', TRADITIONAL, copy!), '不在文中');
  // a surrogate pair keeps its two code units: the lengths still agree
  const withEmoji = `${TRADITIONAL}😀`;
  assert.equal(simplifiedCopy(withEmoji)!.length, withEmoji.length);
  const kws = keywordsAsWritten(
    [{ word: '唢呐', score: 1, explain: { cooc: 0, kg: 0, sem: 0, neighbours: [{ word: '焦三爷', cooc: 1, kg: 0, sem: 0 }], phrase: { words: [{ word: '传统', score: 1 }], occurrences: 1 } } }],
    TRADITIONAL,
    copy!,
  );
  assert.deepEqual([kws[0].word, kws[0].explain!.neighbours[0].word, kws[0].explain!.phrase!.words[0].word], ['嗩吶', '焦三爺', '傳統']);
});

test('lexicon.script simplified: a review in traditional script matches the KG (百鳥朝鳳 a Movie, 吳天明 a Person) and keeps its surfaces', async () => {
  const kg = await loadKg({});
  const run = (script: string) => {
    const ex = createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'lexicon.script': script } });
    let candidates: string[] = [];
    const out = ex.extract(TRADITIONAL, { topK: 5, candidates: (l) => (candidates = l.map((c) => c.text)) });
    return { out: out.map((k) => [k.word, k.kind ?? null]), candidates };
  };
  const asWritten = run('asWritten');
  // the defect: no entity is found (the title only as a bracketed word, not the film), a word cut wrong (統樂器)
  assert.ok(asWritten.out.every(([, kind]) => kind === null), JSON.stringify(asWritten.out));
  assert.ok(asWritten.out.some(([w]) => w === '統樂器'), JSON.stringify(asWritten.out));
  const simplified = run('simplified');
  assert.deepEqual(simplified.out, [['焦三爺', 'Character'], ['百鳥朝鳳', 'Movie'], ['嗩吶', null], ['吳天明', 'Person'], ['天鳴', null]]);
  // every output surface and candidate is the text as written
  for (const w of simplified.candidates) assert.ok(TRADITIONAL.includes(w), w);
  // a simplified text gives the same output with either value
  const ex = (script: string) => createExtractor({ preset: 'filmkw-rerank', kg, overrides: { 'lexicon.script': script } }).extract(SIMPLIFIED, { explain: true });
  assert.deepEqual(ex('simplified'), ex('asWritten'));
});

test('lexicon.script: asWritten in every preset (the committed model was trained so); a bad value is a usage error', () => {
  for (const p of ['textrank', 'textrank+mkg', 'positionrank+mkg', 'filmkw', 'filmkw-rerank']) assert.equal(resolveOptions(p).lexicon.script, 'asWritten', p);
  assert.throws(() => resolveOptions('filmkw-rerank', { 'lexicon.script': 'traditional' }), /lexicon\.script/);
});

const CAST_TEXT = '张三饰演李四，王五饰演赵六。张三饰演的李四是一名警察，王五饰演的赵六是小偷。警察追捕小偷。';

test('output.castVerbs drop: 饰演 (and 王五饰演) is never output, whatever its score; the other words stay', async () => {
  const kg = await loadKg({});
  for (const preset of ['textrank', 'filmkw', 'filmkw-rerank']) {
    const run = (castVerbs: string) => createExtractor({ preset, kg, overrides: { 'output.castVerbs': castVerbs } }).extract(CAST_TEXT, { topK: 8 }).map((k) => k.word);
    const kept = run('keep');
    const dropped = run('drop');
    assert.ok(kept.some(isCastVerb), `${preset}: the defect: ${kept.join(' ')}`);
    assert.ok(!dropped.some((w) => w.includes('饰演')), `${preset}: ${dropped.join(' ')}`);
    // the other words stay (a word a dropped compound hid comes back: 王五 for 王五饰演)
    for (const w of kept.filter((k) => !isCastVerb(k)).slice(0, 3)) assert.ok(dropped.includes(w), `${preset}: ${w}`);
  }
  for (const w of ['饰演', '饰', '张三饰演', '饰演李四', '王五饰演赵六', '客串']) assert.equal(isCastVerb(w), true, w);
  for (const w of ['服饰', '装饰', '饰品', '演员', '表演']) assert.equal(isCastVerb(w), false, w);
  assert.ok(CAST_VERBS.includes('扮演') && CAST_VERBS.includes('客串'));
});

test('output.castVerbs: keep in the paper presets and filmkw, drop in filmkw-rerank; the cross-validation selects the same way', () => {
  for (const p of ['textrank', 'textrank+mkg', 'filmkw']) assert.equal(resolveOptions(p).output.castVerbs, 'keep', p);
  assert.equal(resolveOptions('filmkw-rerank').output.castVerbs, 'drop');
  const x = new Float64Array(RERANK_FEATURES.length);
  const item = (text: string, r: number) => ({ text, charStart: r, phrase: false, x, label: 0 });
  const doc = (castVerbs: 'keep' | 'drop'): TrainingDocument => ({ id: 'd', gold: [], items: [item('饰演', 0), item('警察', 1), item('小偷', 2)], select: { dedup: 'phrases', rescueWords: 'off', castVerbs } });
  // the zero model ties every item: first occurrence decides
  assert.deepEqual(selectWithModel(doc('keep'), zeroRerankModel(), 2), ['饰演', '警察']);
  assert.deepEqual(selectWithModel(doc('drop'), zeroRerankModel(), 2), ['警察', '小偷']);
});
