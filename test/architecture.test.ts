/**
 * The direction of dependencies between the folders of src/ (issue 16): every import of every src/**.ts
 * file is read (TypeScript's own pre-processor: static imports, `export … from`, `import type`, dynamic
 * `import('…')`, plus `new URL('….js', import.meta.url)` module URLs), resolved to the folder it lands in,
 * and checked against the layers below (an import may go to its own layer or a lower one, never up), and
 * the folder graph is searched for a cycle (depth-first, the cycle is printed). A folder that is not in
 * the table fails the test: a new module says where it belongs. Between files, every import cycle (a
 * strongly connected group of modules) is reported; the known ones are listed in KNOWN_CYCLES until they
 * are broken (issue 28), and a cycle that is not in the list, or a listed one that is gone, fails the test.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/**
 * Layers from the bottom up (the README's layout table). Folders of one layer may import each other
 * (the cycle check still applies); `index.ts`, the public API, sits on top of the library, below the CLI.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['util', 'errors.ts'], // shared helpers, error type
  ['html', 'io'], // ingestion: page parsing, input readers
  ['kg'], // the knowledge graph and its sources
  ['lexicon'], // KG names → user dictionary → segmenter lexicon, title-policy rules
  ['pipeline'], // keyword extraction stages
  ['batch', 'eval', 'crawl', 'serve'], // batch runs, evaluation, crawler, server
  ['index.ts'], // public library API
  ['cli'], // the filmkw command
];

/** A module's unit: its first path component below src/ (a folder, or a top-level file). */
function unitOf(file: string): string {
  return relative(src, file).split(sep)[0];
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

/** Relative specifiers imported by a source text. */
export function importsOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  const specs = info.importedFiles.map((f) => f.fileName);
  for (const m of text.matchAll(/new URL\(\s*['"]([^'"]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/gu)) specs.push(m[1]);
  return specs.filter((s) => s.startsWith('.'));
}

export interface Edge {
  from: string;
  to: string;
  file: string;
  spec: string;
}

/** Folder-level import edges of the files (self-edges left out). */
export function folderEdges(files: readonly string[]): Edge[] {
  const edges: Edge[] = [];
  for (const file of files) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(src + sep)) continue;
      const from = unitOf(file);
      const to = unitOf(target.replace(/\.js$/u, '.ts'));
      if (from !== to) edges.push({ from, to, file: relative(root, file), spec });
    }
  }
  return edges;
}

/** Edges that go up a layer, and units not in any layer. */
export function layerViolations(edges: readonly Edge[], layers: readonly (readonly string[])[] = LAYERS): string[] {
  const level = new Map<string, number>();
  layers.forEach((units, i) => units.forEach((u) => level.set(u, i)));
  const out: string[] = [];
  for (const e of edges) {
    for (const u of [e.from, e.to]) if (!level.has(u)) out.push(`${e.file}: src/${u} is in no layer of test/architecture.test.ts`);
    const a = level.get(e.from), b = level.get(e.to);
    if (a !== undefined && b !== undefined && b > a) out.push(`${e.file} imports ${e.spec}: ${e.from} (layer ${a}) must not depend on ${e.to} (layer ${b})`);
  }
  return [...new Set(out)];
}

/** A cycle of the folder graph as [a, b, …, a], or null when there is none. */
export function findCycle(edges: readonly { from: string; to: string }[]): string[] | null {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)!.add(e.to);
  }
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (u: string): string[] | null => {
    state.set(u, 'open');
    path.push(u);
    for (const v of [...(next.get(u) ?? [])].sort()) {
      if (state.get(v) === 'open') return [...path.slice(path.indexOf(v)), v];
      if (!state.has(v)) {
        const c = visit(v);
        if (c) return c;
      }
    }
    path.pop();
    state.set(u, 'done');
    return null;
  };
  for (const u of [...next.keys()].sort()) {
    if (!state.has(u)) {
      const c = visit(u);
      if (c) return c;
    }
  }
  return null;
}

/**
 * Import cycles between files known today, each a group of modules that import each other (the strongly
 * connected components of the file graph, files sorted, joined by ↔). Remove an entry when its cycle is
 * broken; never add one without a reason next to it.
 */
export const KNOWN_CYCLES: readonly string[] = [];

/** Module-level import edges of the files (file → imported file, both relative to the repository). */
export function fileEdges(files: readonly string[]): { from: string; to: string }[] {
  const edges: { from: string; to: string }[] = [];
  for (const file of files) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec).replace(/\.js$/u, '.ts');
      if (target.startsWith(src + sep)) edges.push({ from: relative(root, file).split(sep).join('/'), to: relative(root, target).split(sep).join('/') });
    }
  }
  return edges;
}

/** The import cycles of a graph: its strongly connected components of two or more nodes (Tarjan), each sorted and joined by ↔, in order. */
export function importCycles(edges: readonly { from: string; to: string }[]): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) out.push(group.sort().join(' ↔ '));
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort();
}

test('the checker sees every kind of import and finds cycles and upward edges', () => {
  const text = [
    "import { a } from '../kg/model.js';",
    "import type { B } from './b.js';",
    "export { c } from '../lexicon/dict.js';",
    "const m = await import('../pipeline/core.js');",
    "const u = new URL('../../cli/main.js', import.meta.url);",
    "import nodejieba from 'nodejieba';",
  ].join('\n');
  assert.deepEqual(importsOf(text), ['../kg/model.js', './b.js', '../lexicon/dict.js', '../pipeline/core.js', '../../cli/main.js']);
  assert.deepEqual(findCycle([{ from: 'kg', to: 'lexicon' }, { from: 'lexicon', to: 'pipeline' }, { from: 'pipeline', to: 'kg' }]), ['kg', 'lexicon', 'pipeline', 'kg']);
  assert.equal(findCycle([{ from: 'pipeline', to: 'lexicon' }, { from: 'lexicon', to: 'kg' }, { from: 'pipeline', to: 'kg' }]), null);
  const up = layerViolations([{ from: 'kg', to: 'pipeline', file: 'src/kg/x.ts', spec: '../pipeline/y.js' }]);
  assert.equal(up.length, 1);
  assert.match(up[0], /kg \(layer 2\) must not depend on pipeline \(layer 4\)/u);
  assert.match(layerViolations([{ from: 'newthing', to: 'kg', file: 'src/newthing/a.ts', spec: '../kg/b.js' }])[0], /src\/newthing is in no layer/u);
  const e = (from: string, to: string) => ({ from, to });
  assert.deepEqual(importCycles([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd'), e('d', 'e'), e('e', 'd'), e('f', 'a')]), ['a ↔ b ↔ c', 'd ↔ e']);
  assert.deepEqual(importCycles([e('a', 'b'), e('b', 'c'), e('a', 'c')]), []);
});

test('src/: imports point down the layers and the folder graph has no cycle', () => {
  const files = sourceFiles(src);
  assert.ok(files.length > 50, `found only ${files.length} source files`);
  const edges = folderEdges(files);
  assert.ok(edges.some((e) => e.from === 'pipeline' && e.to === 'lexicon'), 'the import scan found no pipeline → lexicon edge');
  assert.deepEqual(layerViolations(edges), []);
  assert.equal(findCycle(edges), null);
});

test('src/: every import cycle between files is a known one, and every known one is still there', () => {
  const cycles = importCycles(fileEdges(sourceFiles(src)));
  const unknown = cycles.filter((c) => !KNOWN_CYCLES.includes(c));
  const gone = KNOWN_CYCLES.filter((c) => !cycles.includes(c));
  assert.deepEqual(unknown, [], `new import cycle(s): break them, or list them in KNOWN_CYCLES with the reason:\n${unknown.join('\n')}`);
  assert.deepEqual(gone, [], `cycle(s) broken: remove them from KNOWN_CYCLES:\n${gone.join('\n')}`);
});
