/**
 * The segmenters' base lexicons: which backends exist, where each one's bundled base dictionary is, and
 * a base dictionary read as a frequency table (what the user-dictionary export and the title policy
 * measure names against). The segmenters themselves are in src/pipeline/segment.ts.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

export const SEGMENTER_BACKENDS = ['node-rs', 'nodejieba'] as const;
export type SegmenterBackend = (typeof SEGMENTER_BACKENDS)[number];

/** The default backend (measurement in src/pipeline/segment.ts's module header). */
export const DEFAULT_BACKEND: SegmenterBackend = 'node-rs';

let baseDict: Buffer | undefined;
/**
 * The package's dict.txt, read once on first use (its `@node-rs/jieba/dict.js` also reads the 6 MB
 * idf.txt at import, which filmkw never uses; its cost: bench/README.md "Figures behind code comments").
 */
export function nodeRsBaseDict(): Buffer {
  return (baseDict ??= readFileSync(createRequire(import.meta.url).resolve('@node-rs/jieba/dict.txt')));
}

/** Identifier of the node-rs backend's base dictionary (package-relative, no machine path). */
export const NODE_RS_BASE = '@node-rs/jieba/dict.txt';

/** Identifier of the nodejieba backend's base dictionary (package-relative, no machine path). */
export const NODEJIEBA_BASE = 'nodejieba/submodules/cppjieba/dict/jieba.dict.utf8';

/** nodejieba's bundled dictionary files, as `nodejieba.load()` defaults to them. */
export interface NodejiebaFiles {
  dict: string;
  hmmDict: string;
  userDict: string;
  idfDict: string;
  stopWordDict: string;
}

/**
 * nodejieba's bundled dictionary files (absolute paths at runtime): the one place that locates them. Found
 * from the package's folder (its index.js names the same files as its DEFAULT_* constants, which the
 * typings omit), so neither nodejieba's module nor its native addon is loaded to learn four paths.
 */
export function nodejiebaDefaultFiles(): NodejiebaFiles {
  const dir = join(dirname(createRequire(import.meta.url).resolve('nodejieba/package.json')), 'submodules', 'cppjieba', 'dict');
  return {
    dict: join(dir, 'jieba.dict.utf8'),
    hmmDict: join(dir, 'hmm_model.utf8'),
    userDict: join(dir, 'user.dict.utf8'),
    idfDict: join(dir, 'idf.utf8'),
    stopWordDict: join(dir, 'stop_words.utf8'),
  };
}

/** A base dictionary as a frequency table. */
export interface BaseLexicon {
  readonly backend: SegmenterBackend;
  /** word → frequency (jieba `dict.txt` column 2). */
  readonly freq: ReadonlyMap<string, number>;
  /** Sum of all frequencies. */
  readonly total: number;
}

const lexicons = new Map<SegmenterBackend, BaseLexicon>();

/** The backend's base dictionary as a frequency table (parsed once per process, ~0.3 s). */
export function baseLexicon(backend: SegmenterBackend = DEFAULT_BACKEND): BaseLexicon {
  let lex = lexicons.get(backend);
  if (lex) return lex;
  let text: string;
  if (backend === 'nodejieba') {
    text = readFileSync(nodejiebaDefaultFiles().dict, 'utf8');
  } else {
    text = nodeRsBaseDict().toString('utf8');
  }
  const freq = new Map<string, number>();
  let total = 0;
  for (const line of text.split('\n')) {
    const a = line.indexOf(' ');
    if (a <= 0) continue;
    const b = line.indexOf(' ', a + 1);
    const f = Number(line.slice(a + 1, b < 0 ? undefined : b));
    if (!Number.isFinite(f)) continue;
    const w = line.slice(0, a);
    freq.set(w, f);
    total += f;
  }
  lex = Object.freeze({ backend, freq, total });
  lexicons.set(backend, lex);
  return lex;
}
