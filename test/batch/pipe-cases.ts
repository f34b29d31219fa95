/**
 * The filter-contract case of `filmkw tag - --format txt|jsonl` (src/batch/pipe.ts), shared by
 * test/batch/pipe.test.ts (jsonl, in this process: test/cli/in-process.ts) and
 * test/integration/batch/pipe-processes.test.ts (txt through bin/filmkw processes with real pipes, as Spark's
 * RDD.pipe does): a corpus split into partitions, each piped through its own run, concatenates to the output
 * of one run over the whole corpus, byte for byte, with one output line per input line (blank and bad lines
 * included) and nothing but records on stdout; `--workers 2`, `--pipe` and an input file give the same bytes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filmkw, type CliResult } from '../cli/in-process.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
/** `filmkw tag - ARGS` with `input` on stdin: in this process, or with `binary` through bin/filmkw. */
export async function tag(args: string[], input: string | Uint8Array, binary = false): Promise<CliResult> {
  if (!binary) return filmkw(['tag', '-', ...args], { input });
  const r = spawnSync(process.execPath, ['bin/filmkw', 'tag', '-', ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
export const texts = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => (JSON.parse(l) as { text: string }).text);

/** Input lines; `jsonl` records have ids, `jsonl-noid` records have none (one has the id 3, a number). */
export function lines(format: 'txt' | 'jsonl' | 'jsonl-noid'): string[] {
  const out: string[] = [];
  for (let r = 0; r < 3; r++) {
    texts.forEach((t, i) => {
      const line = t.replace(/\s+/gu, ' ');
      if (format === 'jsonl-noid') out.push(JSON.stringify(r === 1 && i === 2 ? { id: 3, text: line } : { text: line }));
      else out.push(format === 'txt' ? line : JSON.stringify({ id: `r${r}-${i}`, text: line }));
      if (i % 5 === 2) out.push(i % 2 ? '' : '   ');
    });
    out.push(format === 'txt' ? 'x'.repeat(3000) : '{"id":"bad", "text": ', format === 'txt' ? '长津湖' : JSON.stringify({ id: `nofield${r}` }));
  }
  return out;
}

/** Partitions through separate runs (`binary`: bin/filmkw processes) concatenate to one run over the whole input. */
export async function partitionsConcatenate(format: 'txt' | 'jsonl' | 'jsonl-noid', binary: boolean): Promise<void> {
  const input = lines(format);
  const args = ['--format', format.replace('-noid', ''), '--max-record-bytes', '2000', ...(format === 'jsonl' ? ['--id-field', 'id'] : [])];
  const whole = await tag(args, `${input.join('\n')}\n`, binary);
  assert.equal(whole.status, 0, whole.stderr);
  const out = whole.stdout.split('\n');
  assert.equal(out.pop(), '', 'ends with a newline');
  assert.equal(out.length, input.length, 'one line out per line in');
  out.forEach((l, i) => {
    const rec = JSON.parse(l) as { id: string | null; keywords?: unknown[]; error?: string; line?: number };
    assert.equal(rec.line, undefined, 'no line numbers');
    if (input[i].trim() === '') assert.equal(l, '{"id":null,"keywords":[]}');
    else if (format === 'txt') assert.equal(rec.id, null);
    else if (input[i].startsWith('{"id":"bad"')) assert.deepEqual([rec.id, /^invalid JSON/u.test(rec.error ?? '')], [null, true]);
    else if (format === 'jsonl-noid') {
      const own = (JSON.parse(input[i]) as { id?: string | number }).id;
      assert.equal(rec.id, own === undefined ? null : String(own), 'a record without an id of its own: null, not its line number');
    }
    else assert.equal(rec.id, (JSON.parse(input[i]) as { id: string }).id);
  });
  assert.ok(out.some((l) => l.includes('"error":')), 'error records');
  assert.ok(out.some((l) => /"keywords":\[\{"word"/u.test(l)), 'keywords');
  assert.match(whole.stderr, /^tag: \d+ records/u, 'the summary goes to stderr');

  // three partitions at arbitrary line boundaries, the last one without its final newline
  const cuts = [0, 7, 23, input.length];
  let joined = '';
  for (let p = 0; p < 3; p++) {
    const part = input.slice(cuts[p], cuts[p + 1]).join('\n') + (p < 2 ? '\n' : '');
    const r = await tag(args, part, binary);
    assert.equal(r.status, 0, r.stderr);
    joined += r.stdout;
  }
  assert.equal(joined, whole.stdout);
  // and with two worker threads
  const two = await tag([...args, '--workers', '2'], `${input.join('\n')}\n`);
  assert.equal(two.stdout, whole.stdout);
  // --pipe: a no-op here; with an input file it asks for the same contract
  assert.equal((await tag([...args, '--pipe'], `${input.join('\n')}\n`)).stdout, whole.stdout);
  const file = join(mkdtempSync(join(tmpdir(), 'filmkw-pipe-')), 'in.txt');
  writeFileSync(file, `${input.join('\n')}\n`);
  const fromFile = await filmkw(['tag', file, ...args, '--pipe']);
  assert.equal(fromFile.stdout, whole.stdout);
}
