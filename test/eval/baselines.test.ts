import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBaselineSystem, checkBaseline, BASELINES } from '../../src/eval/baselines.js';
import { FilmkwError } from '../../src/errors.js';

const text = '以易烊千玺扮演的伍万里这个孩子的视角，拎起长津湖整篇故事的主线。伍万里跟着哥哥上了战场。';

test('unknown baseline: usage error listing the valid ones', () => {
  assert.throws(() => checkBaseline('jieba'), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && e.message.includes(BASELINES.join(', ')));
});

test('+dict baselines need a user dictionary', async () => {
  await assert.rejects(createBaselineSystem('nodejieba-tfidf+dict'), /needs the KG user dictionary/);
});

test('nodejieba baselines run in workers; the KG user dictionary changes the segmentation', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-bl-'));
  const dict = join(dir, 'user.dict.txt');
  writeFileSync(dict, '易烊千玺 nr\n伍万里 nr\n');
  const systems = await Promise.all([
    createBaselineSystem('nodejieba-tfidf'),
    createBaselineSystem('nodejieba-tfidf+dict', { userDict: { path: dict, entries: 2 } }),
  ]);
  try {
    const done: number[] = [];
    const [plain] = await systems[0].extractAll([text], 5, (d) => done.push(d));
    const [withDict] = await systems[1].extractAll([text], 5);
    assert.deepEqual(done, [1]);
    assert.equal(plain.length, 5);
    // Without the dictionary jieba splits 易/烊/千/玺 and 伍/万里.
    assert.ok(!plain.includes('伍万里') && !plain.includes('易烊千玺'), `plain: ${plain.join(' ')}`);
    assert.ok(withDict.includes('伍万里') && withDict.includes('易烊千玺'), `+dict: ${withDict.join(' ')}`);
    assert.equal(systems[1].options.userDictEntries, 2);
    assert.equal(systems[0].options.method, 'extract');
    // Same input, same output (deterministic).
    assert.deepEqual((await systems[0].extractAll([text], 5))[0], plain);
  } finally {
    await Promise.all(systems.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('textrank baseline returns at most topK words and an empty list for an empty text', async () => {
  const s = await createBaselineSystem('nodejieba-textrank');
  try {
    const out = await s.extractAll([text, ''], 3);
    assert.equal(out.length, 2);
    assert.ok(out[0].length > 0 && out[0].length <= 3);
    assert.deepEqual(out[1], []);
    assert.equal(s.options.method, 'textRankExtract');
  } finally {
    await s.close();
  }
});
