/**
 * Every `@default` in the doc comment of an options type states the value its frozen defaults object
 * holds, and every option has one: the comments are read with TypeScript's parser and compared with the
 * objects the code uses. Each stage also owns its validation rules, one per option.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import ts from 'typescript';
import { DEFAULT_OPTIONS, optionKeys, ruleOf } from '../../src/pipeline/options.js';
import { DEFAULT_EXPORT_OPTIONS } from '../../src/lexicon/dict.js';
import { VISUAL_DEFAULTS } from '../../src/html/vips.js';
import { DEFAULT_COMPARE_OPTIONS } from '../../src/eval/compare.js';
import { DEFAULT_TAG_CACHE_OPTIONS } from '../../src/pipeline/segmenters/tag-cache.js';
import { DEFAULT_READ_GOLD_OPTIONS } from '../../src/eval/readers.js';

/** options type (file, interface) → the defaults object it documents */
const TABLE: [string, string, object][] = [
  ['src/pipeline/segment.ts', 'LexiconOptions', DEFAULT_OPTIONS.lexicon],
  ['src/pipeline/candidates.ts', 'CandidateOptions', DEFAULT_OPTIONS.candidates],
  ['src/pipeline/kg-match.ts', 'KgMatchOptions', DEFAULT_OPTIONS.kgMatch],
  ['src/lexicon/title-policy.ts', 'TitlePolicyOptions', DEFAULT_OPTIONS.titles],
  ['src/pipeline/graph.ts', 'GraphOptions', DEFAULT_OPTIONS.graph],
  ['src/pipeline/graph.ts', 'SemanticOptions', DEFAULT_OPTIONS.semantic],
  ['src/pipeline/rank.ts', 'RankOptions', DEFAULT_OPTIONS.rank],
  ['src/pipeline/idf.ts', 'PriorOptions', DEFAULT_OPTIONS.prior],
  ['src/pipeline/phrases.ts', 'PhraseOptions', DEFAULT_OPTIONS.phrases],
  ['src/pipeline/rerank.ts', 'RerankOptions', DEFAULT_OPTIONS.rerank],
  ['src/pipeline/core.ts', 'OutputOptions', DEFAULT_OPTIONS.output],
  ['src/lexicon/dict.ts', 'ExportUserDictOptions', DEFAULT_EXPORT_OPTIONS],
  ['src/html/vips.ts', 'VisualOptions', VISUAL_DEFAULTS],
  ['src/eval/compare.ts', 'CompareOptions', DEFAULT_COMPARE_OPTIONS],
  ['src/eval/readers.ts', 'ReadGoldOptions', DEFAULT_READ_GOLD_OPTIONS],
  ['src/pipeline/segmenters/tag-cache.ts', 'TagCacheOptions', DEFAULT_TAG_CACHE_OPTIONS],
];

/** property → the text of its @default tag (undefined when it has none) */
export function documentedDefaults(source: string, iface: string): Map<string, string | undefined> {
  const sf = ts.createSourceFile('x.ts', source, ts.ScriptTarget.ES2022, true);
  const out = new Map<string, string | undefined>();
  let found = false;
  sf.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== iface) return;
    found = true;
    for (const m of node.members) {
      if (!ts.isPropertySignature(m) || !m.name || !ts.isIdentifier(m.name)) continue;
      const tag = ts.getJSDocTags(m).find((t) => t.tagName.text === 'default');
      out.set(m.name.text, tag ? ts.getTextOfJSDocComment(tag.comment)?.trim() : undefined);
    }
  });
  if (!found) throw new Error(`no interface ${iface}`);
  return out;
}

/** The value a @default text states: a JS literal (quotes, arrays, objects, numbers, booleans), or `NAME ('value')`. */
export function parseDefault(text: string): unknown {
  const named = /^[A-Z][A-Z0-9_]* \((.*)\)$/u.exec(text);
  const literal = named ? named[1] : text;
  return JSON.parse(literal.replace(/'/gu, '"').replace(/([{,]\s*)([A-Za-z_]\w*)\s*:/gu, '$1"$2":'));
}

test('parseDefault reads the forms the comments use', () => {
  assert.equal(parseDefault("'contextual'"), 'contextual');
  assert.deepEqual(parseDefault("['Movie', 'Character']"), ['Movie', 'Character']);
  assert.equal(parseDefault('1e-4'), 0.0001);
  assert.equal(parseDefault('true'), true);
  assert.equal(parseDefault("DEFAULT_BACKEND ('node-rs')"), 'node-rs');
  assert.deepEqual(parseDefault("{ Movie: 'nz', Genre: 'n' }"), { Movie: 'nz', Genre: 'n' });
  assert.throws(() => parseDefault('about five'));
});

for (const [file, iface, defaults] of TABLE) {
  test(`${iface} (${file}): every option has an @default equal to the defaults object`, () => {
    const documented = documentedDefaults(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), iface);
    assert.deepEqual([...documented.keys()].sort(), Object.keys(defaults).sort(), 'the same options in the type and the defaults object');
    for (const [key, text] of documented) {
      assert.ok(text !== undefined, `${iface}.${key} has no @default`);
      assert.deepEqual(parseDefault(text), (defaults as Record<string, unknown>)[key], `${iface}.${key}: @default ${text}`);
    }
    assert.ok(Object.isFrozen(defaults), 'the defaults object is frozen');
  });
}

test('every pipeline option has a validation rule from its stage, and its default passes it', async () => {
  const { checkRule } = await import('../../src/util/option-rules.js');
  for (const path of optionKeys()) {
    const rule = ruleOf(path);
    assert.ok(rule, path);
    const [g, k] = path.split('.');
    const value = (DEFAULT_OPTIONS as unknown as Record<string, Record<string, unknown>>)[g][k];
    assert.equal(checkRule(rule, value), null, `${path} = ${JSON.stringify(value)}`);
  }
});
