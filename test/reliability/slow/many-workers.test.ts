/**
 * Issue 17, through bin/filmkw (run `npm run build` first): `tag` with 11 worker threads prints no
 * MaxListeners warning and gives the output of one worker. In the reliability suite (moved from
 * test/reliability/crashes.test.ts): each of the eleven threads loads the KG and its preset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoSnapshot } from '../../batch/demo-kg.js';
import { longDocs } from '../cli-helpers.js';
import { filmkw } from '../../cli/in-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const skip = existsSync(join(root, 'dist', 'cli', 'main.js')) ? false : 'dist/ is missing: run `npm run build` first';
const bin = join(root, 'bin', 'filmkw');
const run = (args: string[], input?: string) => filmkw(args, { input });
/** bin/filmkw itself: a warning is printed by the process. */
const runBinary = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });

test('tag --workers 10 (and more): no MaxListeners warning, the same output as one worker', { skip }, async () => {
  const kg = await demoSnapshot();
  const d = mkdtempSync(join(tmpdir(), 'filmkw-w10-'));
  const input = join(d, 'in.jsonl');
  writeFileSync(input, `${longDocs(40).join('\n')}\n`);
  const one = await run(['tag', input, '--kg', kg, '--preset', 'textrank']);
  const many = runBinary(['tag', input, '--kg', kg, '--preset', 'textrank', '--workers', '11']);
  assert.equal(many.status, 0, many.stderr);
  assert.doesNotMatch(many.stderr, /MaxListeners|Warning/u);
  assert.equal(many.stdout, one.stdout);
});
