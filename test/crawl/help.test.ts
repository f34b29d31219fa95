/**
 * `filmkw crawl --help` names every crawl mode (CRAWL_MODES) with a line of its own, and how to get strict
 * filtering (issue 27: the help showed four of the six). Run `npm run build` first: bin/filmkw imports dist/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CRAWL_MODES } from '../../src/crawl/options.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('crawl --help: a Modes section with one line per mode of CRAWL_MODES, the default marked; strict filtering named; the examples write into scratch/', () => {
  const r = spawnSync(process.execPath, ['bin/filmkw', 'crawl', '--help'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const modes = r.stdout.slice(r.stdout.indexOf('\nModes (--mode):\n'));
  assert.ok(modes.length > 1 && r.stdout.includes('\nModes (--mode):\n'), 'a Modes section');
  const listed = [...modes.matchAll(/^ {2}([a-z-]+) {2,}\S/gmu)].map((m) => m[1]);
  assert.deepEqual(listed.slice(0, CRAWL_MODES.length), [...CRAWL_MODES], 'every mode, in order, one line each');
  assert.match(modes, /^ {2}focused {5}the default/mu);
  assert.match(modes, /--set tunnel=false/u);
  // the default depth budget, and how to turn it off (issue 27)
  assert.match(modes, /^Depth budget \(focused, static, one-step\)/mu);
  assert.match(modes, /--set depthBudget=0 --max-depth 8/u);
  assert.match(r.stdout, /--max-depth <n> +largest link depth from a seed \(default 1000/u);
  for (const ex of modes.split('\n').filter((l) => /^ {2}filmkw crawl /u.test(l))) assert.match(ex, /--out scratch\//u, ex);
  // every line fits a terminal of 100 columns
  for (const line of r.stdout.split('\n')) assert.ok(line.length <= 100, line);
});
