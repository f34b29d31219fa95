/** Test helper: n JSON-lines documents of a few hundred characters (the bundled samples, numbered). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `{"id":"d<i>","text":…}` lines; tagging 10,000 of them takes a few seconds (long enough to interrupt). */
export function longDocs(n: number): string[] {
  const texts = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).text as string);
  return Array.from({ length: n }, (_, i) => JSON.stringify({ id: `d${i}`, text: `${texts[i % texts.length]}第${i}条。` }));
}
