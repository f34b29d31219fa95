/**
 * Issue 17, `filmkw tag` (the command run in this process, test/cli/in-process.ts): a 1 MB single document
 * is tagged whole from jsonl, csv and txt, with the same keywords. In the reliability suite (moved from
 * test/reliability/tag-records.test.ts): three megabyte-long documents through the default preset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../../batch/demo-kg.js';
import { filmkw } from '../../cli/in-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SKIP = !existsSync(join(root, 'dist/cli/main.js')) && 'needs `npm run build` (dist/)';
const dir = mkdtempSync(join(tmpdir(), 'filmkw-tagbig-'));
const run = (args: string[], input?: string) => filmkw(args, { input });
type Rec = { id: string | null; line?: number; error?: string; keywords?: { word: string }[] };
const recs = (out: string): Rec[] => (out === '' ? [] : out.trimEnd().split('\n').map((l) => JSON.parse(l) as Rec));

test('a 1 MB single document is tagged whole from jsonl, csv and txt', { skip: SKIP, timeout: 600_000 }, async () => {
  const kg = await demoSnapshot();
  const text = '《长津湖》是一部关于抗美援朝的电影，易烊千玺饰演伍万里，吴京饰演伍千里。'.repeat(28_000); // ≈ 1 MB UTF-8
  assert.ok(Buffer.byteLength(text) > 1_000_000);
  const files: [string, string][] = [
    ['big.jsonl', JSON.stringify({ text }) + '\n'],
    ['big.csv', `text\n"${text}"\n`],
    ['big.txt', text + '\n'],
  ];
  const outs: string[] = [];
  for (const [name, data] of files) {
    const p = join(dir, name);
    writeFileSync(p, data);
    const r = await run(['tag', p, '--kg', kg]);
    assert.equal(r.status, 0, `${name}: ${r.stderr}`);
    const got = recs(r.stdout);
    assert.equal(got.length, 1, name);
    assert.ok(got[0].keywords!.length > 0, name);
    assert.ok(got[0].keywords!.some((k) => k.word === '长津湖' || k.word === '伍万里'), `${name}: ${JSON.stringify(got[0].keywords)}`);
    outs.push(JSON.stringify(got[0].keywords));
  }
  assert.equal(new Set(outs).size, 1, 'the same keywords whatever the format');
});
