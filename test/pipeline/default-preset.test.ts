/**
 * The library's default preset (options.ts DEFAULT_PRESET = filmkw-rerank): `createExtractor` without a
 * preset loads the bundled re-rank model (models/rerank.json) and gives filmkw-rerank's keywords; and
 * what happens without a KG: no KG at all is a usage error (as for filmkw before), an empty KG — what
 * `filmkw eval --no-kg` and the csl-dev-nokg experiments pass — is ranked by the model with the
 * KG-absent feature values (no entity kinds, no KG edges), which is what a null KG with the KG stages
 * switched off gives too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createExtractor } from '../../src/pipeline/extract.js';
import { DEFAULT_PRESET } from '../../src/pipeline/options.js';
import { loadKg } from '../../src/kg/load.js';
import { KgStore } from '../../src/kg/store.js';
import { FilmkwError } from '../../src/errors.js';

const texts = readFileSync(new URL('../../datasets/samples/reviews.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => (JSON.parse(l) as { text: string }).text);

const KG_FEATURES = ['person', 'movie', 'character', 'genre', 'kgEdges', 'semEdges'];

test('createExtractor without a preset = filmkw-rerank with the bundled model (demo KG); --preset filmkw still ranks by the graph score', async () => {
  assert.equal(DEFAULT_PRESET, 'filmkw-rerank');
  const kg = await loadKg({});
  const byDefault = createExtractor({ kg });
  assert.equal(byDefault.preset, 'filmkw-rerank');
  assert.equal((byDefault.options.rerank as { enabled: boolean }).enabled, true);
  const explicit = createExtractor({ preset: 'filmkw-rerank', kg });
  const filmkw = createExtractor({ preset: 'filmkw', kg });
  let differ = 0;
  for (const t of texts) {
    const got = byDefault.extract(t, { explain: true });
    assert.deepEqual(got, explicit.extract(t, { explain: true }));
    assert.ok(got.length === 5, t.slice(0, 20));
    for (const k of got) assert.ok(k.score > 0 && k.score < 1 && k.explain?.rerank, `${k.word}: σ(logit) of the model`);
    const old = filmkw.extract(t);
    // filmkw's scores are rank × IDF (the document's best is far above 1), not probabilities
    assert.ok(old[0].score > 1, `filmkw ${old[0].word} ${old[0].score}`);
    if (JSON.stringify(old.map((k) => k.word)) !== JSON.stringify(got.map((k) => k.word))) differ++;
  }
  assert.ok(differ > 0, 'the default orders some sample differently from filmkw');
});

test('no KG: a usage error naming the preset; an empty KG: the model ranks with KG-absent features, as a null KG with the KG stages off', () => {
  assert.throws(
    () => createExtractor(),
    (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && /preset filmkw-rerank needs a KG .*pass kg, or use textrank/u.test(e.message),
  );
  const empty = KgStore.fromData({ entities: [], relations: [] });
  const onEmpty = createExtractor({ kg: empty });
  const noKg = createExtractor({ overrides: { 'lexicon.useDomainLexicon': false, 'graph.kgEdges': false, 'semantic.enabled': false } });
  const filmkwEmpty = createExtractor({ preset: 'filmkw', kg: empty });
  let differ = 0;
  for (const t of texts) {
    const got = onEmpty.extract(t, { explain: true });
    assert.deepEqual(noKg.extract(t, { explain: true }), got);
    assert.ok(got.length > 0);
    for (const k of got) {
      assert.ok(k.score > 0 && k.score < 1, `${k.word} ${k.score}`);
      assert.equal(k.kind, undefined);
      for (const f of k.explain!.rerank!.features) if (KG_FEATURES.includes(f.feature)) assert.equal(f.value, 0, `${k.word}: ${f.feature} without a KG`);
    }
    if (JSON.stringify(filmkwEmpty.extract(t).map((k) => k.word)) !== JSON.stringify(got.map((k) => k.word))) differ++;
  }
  // the model is used, not a fallback to filmkw's ranking
  assert.ok(differ > 0);
});
