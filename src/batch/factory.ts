/**
 * How a worker (or the main thread) builds its Extractor: a module URL, the name of an exported factory
 * function, and its JSON-serialisable arguments. Every worker calls the same factory with the same
 * arguments, so every worker has the same extractor; tests swap in a fake factory module.
 */
import type { Extractor } from '../pipeline/api.js';

export interface ExtractorFactorySpec {
  /** URL (href) of the module exporting the factory. */
  module: string;
  /** Name of the exported function `(args) => Extractor | Promise<Extractor>`. */
  export: string;
  /** Arguments (structured-clonable). */
  args: unknown;
}

/** Import the factory module and build the extractor. */
export async function loadFactory(spec: ExtractorFactorySpec): Promise<Extractor> {
  const mod = (await import(spec.module)) as Record<string, unknown>;
  const fn = mod[spec.export];
  if (typeof fn !== 'function') throw new Error(`tag: ${spec.module} does not export a function ${spec.export}()`);
  return (await (fn as (a: unknown) => Extractor | Promise<Extractor>)(spec.args)) as Extractor;
}

/** URL of a sibling module of `moduleUrl`, with the same extension (.ts under tsx, .js from dist/). */
export function siblingModule(name: string, moduleUrl: string): string {
  const ext = moduleUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${ext}`, moduleUrl).href;
}
