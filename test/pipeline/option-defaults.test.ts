/**
 * Every `@default` in the doc comment of an options type states the value its frozen defaults object
 * holds, and every option has one: the comments are read with TypeScript's parser and compared with the
 * objects the code uses. Each stage also owns its validation rules, one per option. No options type with
 * an @default can be left out: src/ is scanned for them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import ts from 'typescript';
import { DEFAULT_OPTIONS, optionKeys, ruleOf } from '../../src/pipeline/options.js';
import { DEFAULT_EXPORT_OPTIONS } from '../../src/lexicon/dict.js';
import { VISUAL_DEFAULTS } from '../../src/html/vips.js';
import { DEFAULT_COMPARE_OPTIONS } from '../../src/eval/compare.js';
import { DEFAULT_TAG_CACHE_OPTIONS } from '../../src/pipeline/segmenters/tag-cache.js';
import { DEFAULT_READ_GOLD_OPTIONS } from '../../src/eval/readers.js';
import { CRAWL_DEFAULTS } from '../../src/crawl/options.js';
import { TESTWEB_DEFAULTS } from '../../src/crawl/testweb.js';
import { DEFAULT_EVAL_OPTIONS } from '../../src/eval/metrics.js';
import { DEFAULT_PRF_CHART_OPTIONS } from '../../src/eval/charts.js';
import { DECODE_DEFAULTS } from '../../src/html/decode.js';
import { JUDGE_DEFAULTS } from '../../src/html/judge.js';
import { MAINTEXT_DEFAULTS } from '../../src/html/maintext.js';
import { RECORDS_DEFAULTS } from '../../src/html/records.js';
import { RENDER_DEFAULTS } from '../../src/html/render.js';
import { STRUCTURAL_DEFAULTS } from '../../src/html/structural.js';
import { TREE_DEFAULTS } from '../../src/html/tree.js';
import { PAGE_READ_DEFAULTS } from '../../src/html/read.js';
import { BUILDER_DEFAULTS } from '../../src/kg/builder.js';
import { NEO4J_DEFAULTS } from '../../src/kg/neo4j.js';
import { PLAYED_DEFAULTS } from '../../src/kg/played.js';
import { OPENKG_DEFAULTS } from '../../src/kg/sources/openkg.js';
import { SYNTHETIC_DEFAULTS } from '../../src/kg/synthetic.js';
import { ORDERED_DEFAULTS } from '../../src/batch/ordered.js';
import { TAG_RUN_DEFAULTS } from '../../src/batch/tag-run.js';
import { QUEUE_WORKER_DEFAULTS } from '../../src/batch/queue/worker.js';
import { QUEUE_TAG_DEFAULTS } from '../../src/batch/queue/submit.js';
import { GROUP_DEFAULTS } from '../../src/eval/experiments.js';
import { CSV_ROW_DEFAULTS } from '../../src/io/csv.js';
import { KG_BUILD_DEFAULTS } from '../../src/kg/store.js';
import { CRAWL_RUN_DEFAULTS } from '../../src/crawl/crawler.js';
import { IMPORT_DEFAULTS } from '../../src/kg/import.js';
import { SERVE_DEFAULTS, SERVE_LISTEN_DEFAULTS } from '../../src/serve/server.js';
import { DEFAULT_MAX_RECORD_BYTES } from '../../src/io/lines.js';
import { DEFAULT_TEXT_FIELD } from '../../src/io/readers.js';
import { DEFAULT_BACKEND } from '../../src/lexicon/base.js';
import { DEFAULT_STOPWORD_LISTS } from '../../src/pipeline/stopwords.js';

/** Members and keys a table row leaves out of the comparison (each list is checked too). */
interface Exempt {
  /** Members without a default of their own (inputs, options passed on or off when absent): no @default, not in the defaults object. */
  inputs?: string[];
  /** Keys of the defaults object that are internal tunables, not members of the options type. */
  internal?: string[];
  /** Options whose default is computed (from other options, the host, the environment): @default in words, not in the defaults object. */
  computed?: string[];
  /** Options whose default is a long data list named in the code: in the defaults object, no @default. */
  lists?: string[];
}

/** options type (file, interface) → the defaults object it documents */
const TABLE: [string, string, object, Exempt?][] = [
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
  ['src/pipeline/output.ts', 'OutputOptions', DEFAULT_OPTIONS.output],
  ['src/lexicon/dict.ts', 'ExportUserDictOptions', DEFAULT_EXPORT_OPTIONS],
  ['src/html/vips.ts', 'VisualOptions', VISUAL_DEFAULTS],
  ['src/eval/compare.ts', 'CompareOptions', DEFAULT_COMPARE_OPTIONS],
  ['src/eval/readers.ts', 'ReadGoldOptions', DEFAULT_READ_GOLD_OPTIONS],
  ['src/pipeline/segmenters/tag-cache.ts', 'TagCacheOptions', DEFAULT_TAG_CACHE_OPTIONS],
  ['src/crawl/options.ts', 'CrawlOptions', CRAWL_DEFAULTS],
  ['src/crawl/testweb.ts', 'TestWebOptions', TESTWEB_DEFAULTS],
  ['src/eval/metrics.ts', 'EvalOptions', DEFAULT_EVAL_OPTIONS],
  ['src/eval/charts.ts', 'PrfChartOptions', DEFAULT_PRF_CHART_OPTIONS, { inputs: ['title'] }],
  ['src/html/decode.ts', 'DecodeOptions', DECODE_DEFAULTS, { internal: ['sniffBytes', 'maxBadRatio', 'maxBadAbsolute', 'tagSearchBytes', 'minCommonShare', 'minCjkChars'] }],
  ['src/html/judge.ts', 'JudgeOptions', JUDGE_DEFAULTS, { inputs: ['optional'] }],
  ['src/html/tree.ts', 'TreeOptions', TREE_DEFAULTS],
  ['src/html/maintext.ts', 'MainTextOptions', MAINTEXT_DEFAULTS, { internal: ['maxMetaLineChars'] }],
  ['src/html/structural.ts', 'StructuralOptions', STRUCTURAL_DEFAULTS],
  ['src/html/records.ts', 'RecordsOptions', RECORDS_DEFAULTS],
  ['src/html/render.ts', 'RenderOptions', RENDER_DEFAULTS],
  ['src/html/read.ts', 'PageReadOptions', PAGE_READ_DEFAULTS],
  ['src/kg/builder.ts', 'BuilderOptions', BUILDER_DEFAULTS],
  ['src/kg/played.ts', 'PlayedOptions', PLAYED_DEFAULTS, { lists: ['roleNouns', 'cutAfter', 'notNames', 'titles'] }],
  ['src/kg/sources/openkg.ts', 'OpenKgOptions', OPENKG_DEFAULTS],
  ['src/kg/synthetic.ts', 'SyntheticOptions', SYNTHETIC_DEFAULTS],
  ['src/kg/neo4j-config.ts', 'Neo4jTuning', NEO4J_DEFAULTS.tuning],
  ['src/kg/store.ts', 'KgBuildOptions', KG_BUILD_DEFAULTS],
  ['src/io/csv.ts', 'CsvRowOptions', CSV_ROW_DEFAULTS, { inputs: ['maxRecordBytes', 'expectedFields'] }],
  ['src/eval/experiments.ts', 'GroupSpec', GROUP_DEFAULTS, { inputs: ['id', 'title', 'description', 'systems'] }],
  ['src/crawl/crawler.ts', 'CrawlRun', CRAWL_RUN_DEFAULTS, { inputs: ['seeds', 'out', 'via', 'resume', 'onProgress'] }],
  ['src/batch/queue/submit.ts', 'QueueTagOptions', QUEUE_TAG_DEFAULTS, { inputs: ['queue'] }],
  ['src/batch/ordered.ts', 'OrderedOptions', ORDERED_DEFAULTS, { computed: ['window'] }],
  ['src/batch/tag-run.ts', 'TagRunOptions', TAG_RUN_DEFAULTS, {
    inputs: ['input', 'format', 'textField', 'encoding', 'idField', 'filmField', 'titleField', 'corpusStats', 'out', 'resume', 'topK', 'explain', 'preset', 'overrides', 'backend', 'kg', 'neo4j', 'cacheDir', 'pipe', 'ordered', 'factory', 'workerHeapMb'],
    computed: ['stderr', 'stdout'],
  }],
  ['src/batch/queue/worker.ts', 'QueueWorkerOptions', QUEUE_WORKER_DEFAULTS, { inputs: ['queue', 'kg', 'signal', 'factory'], computed: ['name', 'cacheDir', 'stderr'] }],
  ['src/kg/import.ts', 'ImportOptions', IMPORT_DEFAULTS, { inputs: ['onProgress', 'openkg', 'builder'] }],
  ['src/serve/limits.ts', 'ServeLimits', SERVE_DEFAULTS],
];

/**
 * Options types without a defaults object of their own, whose default for one option is a named constant
 * of the code (or a field of one): (file, interface, option) → that value. Their other options are inputs, or have a
 * default computed or taken from the environment, which the @default describes in words.
 */
const NAMED: [string, string, string, unknown][] = [
  ['src/io/lines.ts', 'SplitLinesOptions', 'maxLineBytes', DEFAULT_MAX_RECORD_BYTES],
  ['src/io/readers.ts', 'ReaderOptions', 'maxRecordBytes', DEFAULT_MAX_RECORD_BYTES],
  ['src/io/readers.ts', 'ReaderOptions', 'textField', DEFAULT_TEXT_FIELD],
  ['src/kg/neo4j-config.ts', 'Neo4jWriteOptions', 'batchSize', NEO4J_DEFAULTS.batchSize],
  ['src/kg/neo4j-config.ts', 'Neo4jReadOptions', 'pageSize', NEO4J_DEFAULTS.pageSize],
  ['src/pipeline/segment.ts', 'CreateSegmenterOptions', 'backend', DEFAULT_BACKEND],
  ['src/pipeline/stopwords.ts', 'LoadStopwordsOptions', 'lists', DEFAULT_STOPWORD_LISTS],
  ['src/serve/server.ts', 'ServeResources', 'host', SERVE_LISTEN_DEFAULTS.host],
  ['src/serve/server.ts', 'StartOptions', 'port', SERVE_LISTEN_DEFAULTS.port],
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

for (const [file, iface, defaults, exempt = {}] of TABLE) {
  test(`${iface} (${file}): every option has an @default equal to the defaults object`, () => {
    const documented = documentedDefaults(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), iface);
    const { inputs = [], internal = [], computed = [], lists = [] } = exempt;
    for (const key of inputs) {
      assert.ok(documented.has(key) && documented.get(key) === undefined, `${iface}.${key}: an input without @default`);
      assert.ok(!Object.hasOwn(defaults, key), `${iface}.${key}: an input, not in the defaults object`);
      documented.delete(key);
    }
    for (const key of computed) {
      assert.ok(documented.get(key) !== undefined && !Object.hasOwn(defaults, key), `${iface}.${key}: a computed default, described by its @default`);
      documented.delete(key);
    }
    for (const key of internal) assert.ok(Object.hasOwn(defaults, key) && !documented.has(key), `${key}: an internal key of the defaults object, not an option of ${iface}`);
    const options = Object.keys(defaults).filter((k) => !internal.includes(k));
    assert.deepEqual([...documented.keys()].sort(), options.sort(), 'the same options in the type and the defaults object');
    for (const key of lists) {
      assert.ok(documented.get(key) === undefined && Array.isArray((defaults as Record<string, unknown>)[key]), `${iface}.${key}: a data list without @default`);
      documented.delete(key);
    }
    for (const [key, text] of documented) {
      assert.ok(text !== undefined, `${iface}.${key} has no @default`);
      assert.deepEqual(parseDefault(text), (defaults as Record<string, unknown>)[key], `${iface}.${key}: @default ${text}`);
    }
    assert.ok(Object.isFrozen(defaults), 'the defaults object is frozen');
  });
}

for (const [file, iface, key, value] of NAMED) {
  test(`${iface}.${key} (${file}): its @default is the constant the code uses`, () => {
    const text = documentedDefaults(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), iface).get(key);
    assert.ok(text !== undefined, `${iface}.${key} has no @default`);
    assert.deepEqual(parseDefault(text), value, `${iface}.${key}: @default ${text}`);
  });
}

test('every options type of src/ with an @default is listed: in TABLE, or each of its @default options in NAMED', () => {
  const root = new URL('../../', import.meta.url);
  const files = (readdirSync(new URL('src/', root), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => `src/${f.split('\\').join('/')}`);
  const tagged: string[] = [];
  for (const file of files) {
    const source = readFileSync(new URL(file, root), 'utf8');
    if (!source.includes('@default')) continue;
    const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
    const names = new Set<string>();
    sf.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node)) names.add(node.name.text);
    });
    for (const iface of names) {
      for (const [key, text] of documentedDefaults(source, iface)) if (text !== undefined) tagged.push(`${file} ${iface}.${key}`);
    }
  }
  const listed = new Set(TABLE.map(([file, iface]) => `${file} ${iface}`));
  const named = new Set(NAMED.map(([file, iface, key]) => `${file} ${iface}.${key}`));
  const missing = tagged.filter((t) => !listed.has(t.slice(0, t.lastIndexOf('.'))) && !named.has(t));
  assert.deepEqual(missing, [], 'options with an @default that no row checks');
  assert.ok(tagged.length > 200, `found ${tagged.length} @default tags`);
});

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
