/**
 * Test helper: a deterministic fake Extractor for the batch tests (no segmenter, no KG).
 * Keywords: the distinct characters of the text that are letters (CJK or Latin), in order of first
 * occurrence, scored 1/(rank+1) + count/1000 — enough to tell documents apart and to check ordering.
 *
 * Special texts: "THROW…" makes extract() throw; "EXIT…" ends the worker thread (process.exit in a
 * worker) to simulate a crash — only when the environment has FAKE_EXIT=1 (so a resumed run with the same
 * arguments gets past it); "SLEEP n …" busy-waits n ms (to shuffle completion order across workers).
 */
import type { Extractor, Keyword } from '../../src/pipeline/api.js';
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
      if (text.startsWith('EXIT') && process.env.FAKE_EXIT === '1') process.exit(3);
      const m = /^SLEEP (\d+)/u.exec(text);
      if (m) {
        const until = Date.now() + Number(m[1]);
        while (Date.now() < until);
      }
      return fakeKeywords(text, call?.topK ?? 5);
    },
  };
}
