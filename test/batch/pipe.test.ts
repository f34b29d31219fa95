/**
 * `filmkw tag - --pipe`, the Unix-filter contract (src/batch/pipe.ts), through the real entry point: a
 * corpus split into partitions, each piped through its own process, concatenates to the output of one
 * run over the whole corpus, byte for byte, with one output line per input line (blank and bad lines
 * included) and nothing but records on stdout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tag = (args: string[], input: string) => spawnSync(process.execPath, ['bin/filmkw', 'tag', '-', ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
const texts = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => (JSON.parse(l) as { text: string }).text);

function lines(format: 'txt' | 'jsonl'): string[] {
  const out: string[] = [];
  for (let r = 0; r < 3; r++) {
    texts.forEach((t, i) => {
      const line = t.replace(/\s+/gu, ' ');
      out.push(format === 'txt' ? line : JSON.stringify({ id: `r${r}-${i}`, text: line }));
      if (i % 5 === 2) out.push(i % 2 ? '' : '   ');
    });
    out.push(format === 'txt' ? 'x'.repeat(3000) : '{"id":"bad", "text": ', format === 'txt' ? '长津湖' : JSON.stringify({ id: `nofield${r}` }));
  }
  return out;
}

for (const format of ['txt', 'jsonl'] as const) {
  test(`tag - --format ${format} --pipe: partitions through separate processes concatenate to one run`, () => {
    const input = lines(format);
    const args = ['--format', format, '--pipe', '--max-record-bytes', '2000', ...(format === 'jsonl' ? ['--id-field', 'id'] : [])];
    const whole = tag(args, `${input.join('\n')}\n`);
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
      const r = tag(args, part);
      assert.equal(r.status, 0, r.stderr);
      joined += r.stdout;
    }
    assert.equal(joined, whole.stdout);
    // and with two worker threads
    const two = tag([...args, '--workers', '2'], `${input.join('\n')}\n`);
    assert.equal(two.stdout, whole.stdout);
  });
}

test('tag --pipe takes only one-record-per-line formats', () => {
  const r = tag(['--format', 'csv', '--pipe'], 'text\na\n');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^filmkw: tag: --pipe reads one record per line: --format txt or jsonl, not csv\n$/u);
});
