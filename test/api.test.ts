/** The public API surface (src/index.ts): names, kinds, and one end-to-end call through it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../src/index.js';

test('public API: exported names (a change here is a breaking change)', () => {
  const names = Object.keys(api).sort();
  assert.deepEqual(names, [
    'DEFAULT_BACKEND',
    'DEFAULT_OPTIONS',
    'DEFAULT_PRESET',
    'ENTITY_KINDS',
    'EXIT',
    'FilmkwError',
    'MatchCache',
    'PRESETS',
    'RELATION_KINDS',
    'SEGMENTER_BACKENDS',
    'applyOverrides',
    'applyTitlePolicy',
    'buildCandidateDoc',
    'buildWordGraph',
    'commonEntityNames',
    'createExtractor',
    'createSegmenter',
    'describeOptions',
    'entityId',
    'exportUserDict',
    'extractFromTokens',
    'findPreset',
    'isCommonWord',
    'jaccard',
    'listPresets',
    'loadStopwords',
    'matchEntities',
    'mergeEntityNodes',
    'normaliseOverrides',
    'normalizeName',
    'optionKeys',
    'parseOverride',
    'positionBias',
    'primaryEntity',
    'rankGraph',
    'resolveAmbiguity',
    'resolveOptions',
    'selectCandidates',
    'toGraphology',
    'toRankInput',
    'writeUserDict',
  ]);
  for (const n of names) assert.notEqual((api as Record<string, unknown>)[n], undefined, n);
});

test('public API: end to end through the package entry', () => {
  const extractor = api.createExtractor({ preset: 'textrank' });
  const keywords = extractor.extract('这部电影的配乐和摄影都很出色，配乐让人难忘，摄影也让人难忘。', { topK: 3 });
  assert.equal(keywords.length, 3);
  assert.deepEqual(Object.keys(keywords[0]).sort(), ['score', 'word']);
  assert.ok(api.listPresets().includes('textrank+mkg') === false && api.findPreset('textrank+mkg')?.name === 'textrank+w+g+r');
  assert.throws(() => api.createExtractor({ preset: 'x' }), (e: unknown) => e instanceof api.FilmkwError && e.exitCode === api.EXIT.USAGE);
});
