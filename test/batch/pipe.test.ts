/**
 * `filmkw tag - --format txt|jsonl` (stdin to stdout, no extra flag), the Unix-filter contract
 * (src/batch/pipe.ts): a corpus split into partitions, each piped through its own run, concatenates to the
 * output of one run over the whole corpus, byte for byte, with one output line per input line (blank and
 * bad lines included) and nothing but records on stdout. `--pipe` is the same contract where it is not
 * implied (an input file, --out). The txt case runs bin/filmkw processes with real pipes, as Spark's
 * RDD.pipe does; the others run the command in this process (test/cli/in-process.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { filmkw, type CliResult } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** `filmkw tag - ARGS` with `input` on stdin: in this process, or with `binary` through bin/filmkw. */
async function tag(args: string[], input: string | Uint8Array, binary = false): Promise<CliResult> {
  if (!binary) return filmkw(['tag', '-', ...args], { input });
  const r = spawnSync(process.execPath, ['bin/filmkw', 'tag', '-', ...args], { cwd: root, encoding: 'utf8', input, maxBuffer: 1 << 26 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const texts = readFileSync(join(root, 'datasets', 'samples', 'reviews.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => (JSON.parse(l) as { text: string }).text);

/** Input lines; `jsonl` records have ids, `jsonl-noid` records have none (one has the id 3, a number). */
function lines(format: 'txt' | 'jsonl' | 'jsonl-noid'): string[] {
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

for (const format of ['txt', 'jsonl', 'jsonl-noid'] as const) {
  const binary = format === 'txt';
  test(`tag - --format ${format.replace('-noid', '')}${format === 'jsonl-noid' ? ' (records without ids)' : ''}: partitions through separate ${binary ? 'processes' : 'runs'} concatenate to one run`, async () => {
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
  });
}

test('tag - --out FILE is not a filter: ids are line numbers, error records carry their line, blank lines are not records', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'filmkw-pipe-')), 'o.jsonl');
  const r = await tag(['--format', 'jsonl', '--out', out], '{"text":"程蝶衣"}\n\n{"id":7,"text":"巩俐"}\n{"text":\n');
  assert.equal(r.status, 0, r.stderr);
  const recs = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; line?: number });
  assert.deepEqual(recs.map((x) => [x.id, x.line]), [['1', undefined], ['7', undefined], ['4', 4]]);
  // the same input to stdout: the filter
  const f = await tag(['--format', 'jsonl'], '{"text":"程蝶衣"}\n\n{"id":7,"text":"巩俐"}\n{"text":\n');
  assert.deepEqual(f.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { id: string | null }).id), [null, null, '7', null]);
  assert.doesNotMatch(f.stdout, /"line":/u);
});

test('tag - in UTF-16 (by its BOM) and GBK: one line out per line in, as for UTF-8 (lines are counted after decoding)', async () => {
  // 上 is 0A 4E in UTF-16LE: a byte count of 0x0A would see an extra line
  const text = '上海的电影\n\n程蝶衣上场\n\n';
  const utf8 = await tag(['--format', 'txt'], text);
  assert.equal(utf8.stdout.split('\n').length - 1, 4);
  const le = await tag(['--format', 'txt'], Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
  assert.equal(le.status, 0, le.stderr);
  assert.equal(le.stdout, utf8.stdout);
  assert.match(le.stderr, /read as utf-16le/u);
  const gbk = await tag(['--format', 'txt', '--encoding', 'gbk'], iconv.encode(text, 'gbk'));
  assert.equal(gbk.stdout, utf8.stdout);
});

test('tag - --format csv is not a filter (a header row): the record id is its line number, as from a file', async () => {
  const r = await tag(['--format', 'csv'], 'text\n程蝶衣\n');
  assert.equal(r.status, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { id: string }).id, '2');
});

test('tag --pipe takes only one-record-per-line formats', async () => {
  const r = await tag(['--format', 'csv', '--pipe'], 'text\na\n');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^filmkw: tag: --pipe reads one record per line: --format txt or jsonl, not csv\n$/u);
});

test('tag - --film-field --title-field (the document context) keeps the filter contract: partitions concatenate to one run, one line per line', async () => {
  const films = ['长津湖', '没有这部电影', ''];
  const input = texts.map((t, i) => JSON.stringify({ id: `f${i}`, text: t.replace(/\s+/gu, ' '), film: films[i % 3], headline: `标题${i}` }));
  const args = ['--format', 'jsonl', '--id-field', 'id', '--film-field', 'film', '--title-field', 'headline', '--explain'];
  const whole = await tag(args, `${input.join('\n')}\n`);
  assert.equal(whole.status, 0, whole.stderr);
  assert.equal(whole.stdout.trimEnd().split('\n').length, input.length);
  assert.match(whole.stderr, /tag: WARNING: 1 film of \d+ records? not in the KG \("没有这部电影"\)/u);
  let joined = '';
  for (const [a, b] of [[0, 2], [2, input.length]]) joined += (await tag(args, `${input.slice(a, b).join('\n')}\n`)).stdout;
  assert.equal(joined, whole.stdout);
});
