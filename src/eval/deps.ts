/**
 * Late-bound access to the KG loader (src/kg/load.ts) and store (src/kg/store.ts): loaded on first use,
 * so `filmkw eval --baseline nodejieba-tfidf` never loads a KG, and a missing module is reported as one
 * clear error instead of an import failure at start-up.
 */
import type { KgView } from '../kg/model.js';

/** What the evaluator needs from the KG modules. */
export interface KgModule {
  loadKg(opts: { kg?: string; onProgress?: (msg: string) => void }): Promise<KgView>;
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

let kgModule: Promise<KgModule> | undefined;
/** The KG loader (loaded once). */
export function kgModules(): Promise<KgModule> {
  kgModule ??= (async () => {
    const loader = await load('../kg/load.js', 'the KG loader');
    if (typeof loader.loadKg !== 'function') throw new Error('eval: src/kg/load.ts does not export loadKg()');
    let emptyKg: (() => KgView) | undefined;
    try {
      const store = await load('../kg/store.js', 'the KG store');
      const KgStore = store.KgStore as { fromData?: (d: { entities: unknown[]; relations: unknown[] }) => KgView } | undefined;
      if (KgStore && typeof KgStore.fromData === 'function') emptyKg = () => KgStore.fromData!({ entities: [], relations: [] });
    } catch {
      emptyKg = undefined;
    }
    return { loadKg: loader.loadKg as KgModule['loadKg'], emptyKg };
  })();
  return kgModule;
}
