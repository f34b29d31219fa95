/**
 * Test helper: a deterministic fake Extractor for the batch tests (no segmenter, no KG).
 * Keywords: the distinct characters of the text that are letters (CJK or Latin), in order of first
 * occurrence, scored 1/(rank+1) + count/1000 — enough to tell documents apart and to check ordering.
 *
 * Special texts: "THROW…" makes extract() throw; "EXIT…" ends the worker thread (process.exit in a
 * worker) to simulate a crash — only when the environment has FAKE_EXIT=1 (so a resumed run with the same
 * arguments gets past it); with FAKE_EXIT_AFTER_CHECKPOINT=<progress file> the worker first waits (up to
 * 30 s) until that checkpoint records some output, so the crash always comes after a checkpoint with
 * records (with several workers the crash could otherwise win the race against the first write); "SLEEP n …" busy-waits n ms (to shuffle completion order across workers);
 * "OOM…" allocates until the thread runs out of heap (a pool with a heap cap, issue 26).
 */
import type { Extractor, Keyword } from '../../src/pipeline/api.js';
import { readFileSync } from 'node:fs';
import { usageError } from '../../src/errors.js';

export interface FakeArgs {
  /** Throw from the factory (to test start-up failures). */
  failCreate?: 'usage' | 'plain';
  /** Name reported as preset. @default 'fake' */
  preset?: string;
}

export function fakeKeywords(text: string, topK = 5): Keyword[] {
  const counts = new Map<string, number>();
  for (const ch of text) if (/\p{L}/u.test(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  return [...counts.entries()].slice(0, topK).map(([word, n], i) => ({ word, score: 1 / (i + 1) + n / 1000 + 1e-9 }));
}

export function createFakeExtractor(args: FakeArgs = {}): Extractor {
  if (args.failCreate === 'usage') throw usageError('fake: unknown preset "nope"; valid presets: fake');
  if (args.failCreate === 'plain') throw new Error('fake: cannot load dictionaries');
  return {
    preset: args.preset ?? 'fake',
    options: { kg: null },
    extract(text, call) {
      if (text.startsWith('THROW')) throw new Error('fake failure on purpose');
      if (text.startsWith('OOM')) {
        const hoard: number[][] = [];
        for (;;) hoard.push(new Array<number>(1 << 16).fill(hoard.length));
      }
      if (text.startsWith('EXIT') && process.env.FAKE_EXIT === '1') {
        waitForCheckpoint(process.env.FAKE_EXIT_AFTER_CHECKPOINT);
        process.exit(3);
      }
      const m = /^SLEEP (\d+)/u.exec(text);
      if (m) {
        const until = Date.now() + Number(m[1]);
        while (Date.now() < until);
      }
      const keywords = fakeKeywords(text, call?.topK ?? 5);
      // the document context comes through: a film or a title given with the record is the first keyword
      const context = [call?.film ? `film=${call.film}` : '', call?.title ? `title=${call.title}` : ''].filter(Boolean).join(' ');
      return context ? [{ word: context, score: 2 }, ...keywords].slice(0, call?.topK ?? 5) : keywords;
    },
    candidateSurfaces: (text) => [...new Set(fakeKeywords(text, 1_000).map((k) => k.word))],
    resolveFilm: (film) => (film.startsWith('known') ? { id: `movie/name/${film}`, name: film } : null),
  };
}

/** Blocks until the progress file at `path` records at least one output record (see module header). */
function waitForCheckpoint(path: string | undefined): void {
  if (!path) return;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    try {
      if ((JSON.parse(readFileSync(path, 'utf8')) as { records?: number }).records! > 0) return;
    } catch {
      /* not written yet, or being replaced */
    }
    Atomics.wait(sleeper, 0, 0, 5);
  }
}
