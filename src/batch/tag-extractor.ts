/**
 * The production extractor factory of `filmkw tag` (used by the main thread with --workers 1 and by every
 * pool worker): loads the KG as told by {@link TagKgSource} and calls createExtractor once.
 */
import type { Extractor } from '../pipeline/api.js';
import type { KgView } from '../kg/model.js';
import { createExtractor } from '../pipeline/extract.js';
import { loadSnapshot } from '../kg/snapshot.js';
import type { SegmenterBackend } from '../lexicon/base.js';
import { DiskCache } from '../lexicon/cache.js';
import { corpusStatsFromPacked } from '../pipeline/corpus-stats.js';

/** Where a worker gets its KG: a snapshot file (written by the main thread if needed), or none. */
export type TagKgSource = { snapshot: string } | null;

export interface TagExtractorArgs {
  preset?: string;
  overrides?: Record<string, unknown>;
  backend?: SegmenterBackend;
  /** Directory of the on-disk cache (src/lexicon/cache.ts); null/absent: none. */
  cacheDir?: string | null;
  kg: TagKgSource;
  /**
   * The corpus statistics (`--corpus-stats`): a packed table (pipeline/corpus-stats.ts) and its name, null for none; absent: the
   * extractor's default (the shipped table when the model reads it).
   */
  corpusStats?: { packed: Uint8Array; source: string } | null;
}

/** Build the extractor of a tag run from a KG already in memory (main thread). */
export function tagExtractorWithKg(args: Omit<TagExtractorArgs, 'kg'>, kg: KgView | null): Extractor {
  const cache = args.cacheDir ? new DiskCache(args.cacheDir) : null;
  const corpusStats = args.corpusStats === undefined ? undefined : args.corpusStats === null ? null : corpusStatsFromPacked(args.corpusStats.packed, args.corpusStats.source);
  return createExtractor({ preset: args.preset, overrides: args.overrides, backend: args.backend, kg, cache, corpusStats });
}

/** Factory used by the workers (factory.ts spec `{export: 'createTagExtractor'}`). */
export async function createTagExtractor(args: TagExtractorArgs): Promise<Extractor> {
  const kg = args.kg ? await loadSnapshot(args.kg.snapshot) : null;
  return tagExtractorWithKg(args, kg);
}
