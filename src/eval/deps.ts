/**
 * Late-bound access to the pipeline and KG modules the evaluator drives (createExtractor, listPresets,
 * loadKg, writeUserDict). They are loaded on first use, so `filmkw eval --baseline nodejieba-tfidf`
 * works without touching the pipeline, and a missing module is reported as one clear error instead of
 * an import failure at start-up.
 */
import type { Extractor } from '../pipeline/api.js';
import type { KgView } from '../kg/model.js';

/** What the evaluator needs from the pipeline (src/pipeline/extract.ts, presets.ts). */
export interface PipelineModule {
  createExtractor(opts: { preset?: string; overrides?: Record<string, unknown>; kg?: KgView | null; backend?: string }): Extractor | Promise<Extractor>;
  /** Preset names (or objects with a `name`). */
  listPresets(): readonly (string | { name: string })[];
  /**
   * Resolve a preset plus overrides without building anything (src/pipeline/options.ts), used to reject
   * an unknown preset or option before a long run starts. Throws a usage error.
   */
  resolveOptions?(preset: string, overrides?: Record<string, unknown>): unknown;
}

/** What the evaluator needs from the KG modules (src/kg/load.ts, src/kg/dict.ts). */
export interface KgModule {
  loadKg(opts: { kg?: string; onProgress?: (msg: string) => void }): Promise<KgView>;
  writeUserDict(kg: KgView, path: string): unknown;
  /** An empty KG (for runs "without the KG"), if the store can build one. */
  emptyKg?(): KgView;
}

async function load(rel: string, what: string): Promise<Record<string, unknown>> {
  const url = new URL(rel, import.meta.url).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`eval: cannot load ${what} (${(err as Error).message})`, { cause: err });
  }
}

function fn<T>(mod: Record<string, unknown>, name: string, where: string): T {
  if (typeof mod[name] !== 'function') throw new Error(`eval: ${where} does not export ${name}()`);
  return mod[name] as T;
}

let pipeline: Promise<PipelineModule> | undefined;
/** The extraction pipeline (loaded once). */
export function pipelineModule(): Promise<PipelineModule> {
  pipeline ??= (async () => {
    const extract = await load('../pipeline/extract.js', 'the extraction pipeline');
    const presets = await load('../pipeline/presets.js', 'the pipeline presets');
    const options = await load('../pipeline/options.js', 'the pipeline options').catch(() => ({}) as Record<string, unknown>);
    return {
      createExtractor: fn<PipelineModule['createExtractor']>(extract, 'createExtractor', 'src/pipeline/extract.ts'),
      listPresets: fn<PipelineModule['listPresets']>(presets, 'listPresets', 'src/pipeline/presets.ts'),
      resolveOptions: typeof options.resolveOptions === 'function' ? (options.resolveOptions as PipelineModule['resolveOptions']) : undefined,
    };
  })();
  return pipeline;
}

let kgModule: Promise<KgModule> | undefined;
/** The KG loader and user-dictionary writer (loaded once). */
export function kgModules(): Promise<KgModule> {
  kgModule ??= (async () => {
    const loader = await load('../kg/load.js', 'the KG loader');
    const dict = await load('../kg/dict.js', 'the user dictionary exporter');
    let emptyKg: (() => KgView) | undefined;
    try {
      const store = await load('../kg/store.js', 'the KG store');
      const KgStore = store.KgStore as { fromData?: (d: { entities: unknown[]; relations: unknown[] }) => KgView } | undefined;
      if (KgStore && typeof KgStore.fromData === 'function') emptyKg = () => KgStore.fromData!({ entities: [], relations: [] });
    } catch {
      emptyKg = undefined;
    }
    return {
      loadKg: fn<KgModule['loadKg']>(loader, 'loadKg', 'src/kg/load.ts'),
      writeUserDict: fn<KgModule['writeUserDict']>(dict, 'writeUserDict', 'src/kg/dict.ts'),
      emptyKg,
    };
  })();
  return kgModule;
}

/** Preset names as plain strings. */
export const presetNames = (p: PipelineModule): string[] => p.listPresets().map((x) => (typeof x === 'string' ? x : x.name));
