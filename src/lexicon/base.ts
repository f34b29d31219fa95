/**
 * The segmenters' base lexicons: which backends exist, where each one's bundled base dictionary is, and
 * a base dictionary read as a frequency table (what the user-dictionary export and the title policy
 * measure names against). The segmenters themselves are in src/pipeline/segment.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import nodejieba from 'nodejieba';

export const SEGMENTER_BACKENDS = ['node-rs', 'nodejieba'] as const;
export type SegmenterBackend = (typeof SEGMENTER_BACKENDS)[number];

/** The default backend (measurement in src/pipeline/segment.ts's module header). */
export const DEFAULT_BACKEND: SegmenterBackend = 'node-rs';

let baseDict: Buffer | undefined;
/**
 * The package's dict.txt, read once on first use (its `@node-rs/jieba/dict.js` also reads the 6 MB
 * idf.txt at import, which filmkw never uses: ~40 ms of a cold start).
 */
export function nodeRsBaseDict(): Buffer {
  return (baseDict ??= readFileSync(createRequire(import.meta.url).resolve('@node-rs/jieba/dict.txt')));
}

/** Identifier of the node-rs backend's base dictionary (package-relative, no machine path). */
export const NODE_RS_BASE = '@node-rs/jieba/dict.txt';

/** Identifier of the nodejieba backend's base dictionary (package-relative, no machine path). */
export const NODEJIEBA_BASE = 'nodejieba/submodules/cppjieba/dict/jieba.dict.utf8';

/** nodejieba's bundled dictionary files (absolute paths at runtime; the typings omit these constants). */
export function nodejiebaDefaultFiles(): { dict: string; hmmDict: string; idfDict: string; stopWordDict: string } {
  const m = nodejieba as unknown as Record<string, unknown>;
  const get = (k: string): string => {
    const v = m[k];
    if (typeof v !== 'string') throw new Error(`segment: nodejieba.${k} is missing (unsupported nodejieba version?)`);
    return v;
  };
  return { dict: get('DEFAULT_DICT'), hmmDict: get('DEFAULT_HMM_DICT'), idfDict: get('DEFAULT_IDF_DICT'), stopWordDict: get('DEFAULT_STOP_WORD_DICT') };
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
