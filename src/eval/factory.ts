/**
 * Builds the systems named by the CLI and by experiment configs: a pipeline preset with option
 * overrides (through createExtractor) or a nodejieba baseline (through baselines.ts). Names are checked
 * before anything runs, so a typo in a config fails at once with the list of valid names (exit 2).
 * The KG user dictionary for the `+dict` baselines is written once per builder to a temporary file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KgView } from '../kg/model.js';
import { FilmkwError, usageError } from '../errors.js';
import { BASELINES, baselineNeedsDict, checkBaseline, createBaselineSystem, type BaselineUserDict } from './baselines.js';
import { createExtractor } from '../pipeline/extract.js';
import { loadBundledIdf, type IdfTable } from '../pipeline/idf.js';
import type { DiskCache } from '../lexicon/cache.js';
import type { CorpusStats } from '../pipeline/corpus-stats.js';
import { listPresets } from '../pipeline/presets.js';
import { parseOverride, resolveOptions } from '../pipeline/options.js';
import type { SegmenterBackend } from '../lexicon/base.js';
import { writeUserDict } from '../lexicon/dict.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { SystemSpec } from './experiments.js';
import { extractorSystem, type EvalSystem } from './systems.js';

/** Display name of a system: the preset or baseline, plus its overrides as `key=value`. */
export function systemName(spec: Pick<SystemSpec, 'preset' | 'baseline' | 'overrides'>): string {
  if (spec.baseline !== undefined) return spec.baseline;
  const o = spec.overrides ?? {};
  const keys = Object.keys(o).sort();
  if (keys.length === 0) return spec.preset!;
  return `${spec.preset} [${keys.map((k) => `${k}=${typeof o[k] === 'string' ? o[k] : canonicalJson(o[k])}`).join(', ')}]`;
}

/** Parse repeated `--set key=value` flags: values are JSON when they parse as JSON, strings otherwise. */
export function parseOverrides(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>; // keys are untyped input
  for (const pair of pairs) {
    if (pair.indexOf('=') <= 0) throw usageError(`eval: --set expects key=value, got "${pair}"`);
    const [key, value] = parseOverride(pair);
    out[key] = value;
  }
  return out;
}

/** Options of {@link SystemBuilder}. */
export interface SystemBuilderOptions {
  /** KG handed to presets and used for the `+dict` user dictionary; null = run without a KG. */
  kg: KgView | null;
  /** Segmenter backend passed to createExtractor (pipeline default when absent). */
  backend?: string;
  /** On-disk cache for the extractors (the CLI passes its cache); absent: none. */
  cache?: DiskCache | null;
  /** Corpus statistics for the re-ranker's corpus features; null: none; absent: the extractor's default. */
  corpusStats?: CorpusStats | null;
}

/** Builds systems for one evaluation run; call {@link dispose} at the end. */
export class SystemBuilder {
  private dictDir: string | undefined;
  private userDict: BaselineUserDict | undefined;
  /** The IDF table, loaded once for all systems that use the prior. */
  private idf: IdfTable | undefined;

  constructor(private readonly options: SystemBuilderOptions) {}

  /** Check every preset and baseline name; throws a usage error listing the valid names. */
  async validate(specs: readonly SystemSpec[]): Promise<void> {
    const presets = specs.filter((s) => s.preset !== undefined);
    for (const s of specs) if (s.baseline !== undefined) checkBaseline(s.baseline);
    if (presets.length === 0) return;
    const names = listPresets();
    for (const s of presets) {
      // The pipeline's resolver knows preset aliases and checks every override key and value.
      try {
        resolveOptions(s.preset!, s.overrides ?? {});
      } catch (err) {
        if (err instanceof FilmkwError && /unknown preset/i.test(err.message)) {
          throw usageError(`eval: unknown preset "${s.preset}" (valid presets: ${names.join(', ')}; baselines: ${BASELINES.join(', ')})`);
        }
        throw err;
      }
    }
  }

  /** Build (and start) the system of a spec. */
  async build(spec: SystemSpec): Promise<EvalSystem> {
    await this.validate([spec]);
    if (spec.baseline !== undefined) {
      const name = checkBaseline(spec.baseline);
      return createBaselineSystem(name, { userDict: baselineNeedsDict(name) ? await this.kgUserDict() : null });
    }
    const cache = this.options.cache ?? null;
    const usesIdf = resolveOptions(spec.preset, spec.overrides ?? {}).prior.idf === 'multiply';
    const extractor = createExtractor({
      preset: spec.preset,
      overrides: spec.overrides ?? {},
      kg: this.options.kg,
      cache,
      idf: usesIdf ? (this.idf ??= loadBundledIdf({ cache })) : null,
      ...(this.options.corpusStats !== undefined ? { corpusStats: this.options.corpusStats } : {}),
      ...(this.options.backend ? { backend: this.options.backend as SegmenterBackend } : {}),
    });
    return extractorSystem(systemName(spec), extractor);
  }

  private async kgUserDict(): Promise<BaselineUserDict> {
    if (this.userDict) return this.userDict;
    if (!this.options.kg) throw usageError('eval: the +dict baselines need a KG (drop --no-kg)');
    this.dictDir = mkdtempSync(join(tmpdir(), 'filmkw-eval-'));
    const path = join(this.dictDir, 'kg-user-dict.txt');
    // Frequencies are computed against nodejieba's base dictionary (the baselines' segmenter).
    const written = writeUserDict(this.options.kg, path, { backend: 'nodejieba' });
    this.userDict = { path, entries: written.stats.entries };
    return this.userDict;
  }

  /** Remove the temporary user dictionary. */
  dispose(): void {
    if (this.dictDir) rmSync(this.dictDir, { recursive: true, force: true });
    this.dictDir = undefined;
    this.userDict = undefined;
  }
}
