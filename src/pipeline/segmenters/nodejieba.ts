/**
 * nodejieba backend (cppjieba; named by the design).
 *
 * nodejieba keeps ONE dictionary configuration per thread (module-global `load`). A segmenter of this
 * backend therefore remembers its configuration and, when another nodejieba segmenter of the same
 * thread loaded a different one in between, reloads its own before tagging. A reload re-reads the
 * dictionaries (about a second); the old cppjieba handle is deleted first, so RSS grows only a little per
 * switch (bench/segment.ts; figures: bench/README.md "Figures behind code comments"). Never alternate two nodejieba segmenters per document; use the node-rs backend
 * (independent instances) for that.
 *
 * The user dictionary is validated by our parser and written, canonicalised, to a content-addressed
 * file in the OS temp directory that nodejieba then loads. This (a) lets lexicon-off load an *empty*
 * user dictionary instead of nodejieba's bundled sample user.dict.utf8 (no silent defaults), (b)
 * keeps compounds (words the node-rs backend cannot hold) out of cppjieba so both backends treat
 * them the same way, and (c) avoids nodejieba's `|`/`;` path splitting and its SIGABRT on a missing
 * file: every file is checked before `load`.
 *
 * Tagging: native `cut(text, true)` + the word → tag cache of segmenters/tag-cache.ts (identical to
 * native `tag`). Its premise holds here: in the cppjieba that nodejieba 3.5.8 builds
 * (submodules/cppjieba, PosTagger.hpp), `Tag` is MixSegment's `Cut` (HMM on, the segmentation that
 * `cut(text, true)` returns) followed by `LookupTag` of each word on its own (the dictionary's tag, or
 * `m`/`eng`/`x` from the word's characters).
 */
import nodejieba from 'nodejieba';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputError, FilmkwError } from '../../errors.js';
import { NODEJIEBA_BASE, nodejiebaDefaultFiles } from '../../lexicon/base.js';
import { createCachedTagging, type CachedTagger, type TagCacheOptions } from './tag-cache.js';


let loadedKey: string | null = null;
let loads = 0;

/** Number of `nodejieba.load` calls made by this module in this thread (for tests and benchmarks). */
export function nodejiebaLoadCount(): number {
  return loads;
}

function requireFile(path: string, what: string): void {
  if (!existsSync(path)) throw inputError(`segment: nodejieba ${what} not found: ${path}`);
}

/** Write `content` to a content-addressed file under the temp dir (atomic rename) and return its path. */
export function materialiseUserDict(content: string): string {
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 20);
  const dir = join(tmpdir(), 'filmkw-userdict');
  const path = join(dir, `${hash}.utf8`);
  if (/[|;]/u.test(path)) {
    throw inputError(`segment: nodejieba splits dictionary paths at "|" and ";"; the temp directory ${dir} contains one (set TMPDIR)`);
  }
  const bytes = Buffer.byteLength(content);
  try {
    if (existsSync(path) && statSync(path).size === bytes) return path;
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, content);
    renameSync(tmp, path);
  } catch (err) {
    throw new FilmkwError('OUTPUT', `segment: cannot write the nodejieba user dictionary ${path}: ${(err as Error).message}`, { cause: err });
  }
  return path;
}


const CPPJIEBA_SEPARATORS = ' \t\n，。';

export interface NodejiebaTagger extends CachedTagger {
  /** Path of the canonical user dictionary file nodejieba loads (empty file when lexicon is off). */
  readonly userDictFile: string;
  /** Make sure this tagger's configuration is the loaded one and return the nodejieba module. */
  native(): typeof nodejieba;
}

/** `opts`: the tag cache's internal knobs (tests only). */
export function createNodejiebaTagger(userDictText: string, opts: TagCacheOptions = {}): NodejiebaTagger {
  const userDictFile = materialiseUserDict(userDictText);
  const files = { ...nodejiebaDefaultFiles(), userDict: userDictFile };
  const key = JSON.stringify(files);
  const ensure = (): void => {
    if (loadedKey === key) return;
    // cppjieba aborts the whole process (uncatchable) on a missing file: check every one first.
    requireFile(files.dict, 'base dictionary');
    requireFile(files.hmmDict, 'HMM model');
    requireFile(files.idfDict, 'IDF dictionary');
    requireFile(files.stopWordDict, 'stop-word list');
    requireFile(files.userDict, 'user dictionary');
    nodejieba.load(files);
    loads++;
    loadedKey = key;
  };
  ensure();
  const tagging = createCachedTagging(
    {
      cut(text) {
        ensure();
        return nodejieba.cut(text, true);
      },
      tag(text) {
        ensure();
        return nodejieba.tag(text);
      },
      // cppjieba cuts the text between its separators (SegmentBase.hpp: space, tab, newline, ，。) independently.
      isBoundary: (word) => word.length === 1 && CPPJIEBA_SEPARATORS.includes(word),
    },
    'nodejieba',
    opts,
  );
  return {
    base: NODEJIEBA_BASE,
    userDictFile,
    tag: tagging.tag,
    cacheStats: tagging.stats,
    native() {
      ensure();
      return nodejieba;
    },
  };
}
