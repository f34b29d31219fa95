// `filmkw serve` through the real entry point (bin/filmkw runs dist/: `npm run build` first): a port in
// use is a clear error. Bad flags and files are one-line errors with exit codes (run in this process,
// test/cli/in-process.ts). Serve with its defaults (the URL, the page and the API, exit 0 on SIGTERM):
// test/reliability/slow/serve-process.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, ['bin/filmkw', ...args], { cwd: root, encoding: 'utf8' });

test('filmkw serve: bad flags and files are one-line errors (exit 2 usage, 3 input)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-serve-cli-'));
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"id":"1","keywords":[]}\n{"id":"2","keywords":"x"}\n');
  const cases: [string[], number, RegExp][] = [
    [['serve', '--port', 'abc'], 2, /^filmkw: serve: --port must be an integer from 0 to 65535, got "abc"\n$/u],
    [['serve', '--port', '70000'], 2, /--port must be an integer from 0 to 65535/u],
    [['serve', '--preset', 'nope'], 2, /^filmkw: serve: --preset must be a preset: .*textrank.*, got "nope"\n$/u],
    [['serve', '--gold', 'g.jsonl'], 2, /--input and --gold go with --files/u],
    [['serve', '--files', join(dir, 'missing.jsonl'), '--port', '0'], 3, /cannot read .*missing\.jsonl \(ENOENT\)/u],
    [['serve', '--files', bad, '--port', '0'], 3, /bad\.jsonl:2: field "keywords" must be an array/u],
    [['serve', '--kg', join(dir, 'nokg.fkg')], 3, /nokg\.fkg/u],
  ];
  try {
    for (const [args, code, re] of cases) {
      const r = await filmkw(args);
      assert.equal(r.status, code, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.equal(r.stdout, '');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('filmkw serve: a port in use is a clear error', async () => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const port = (blocker.address() as { port: number }).port;
  try {
    // one light worker warming textrank up: the pool starts before the port is taken, and the rule does not depend on it
    const r = run('serve', '--port', String(port), '--workers', '1', '--preset', 'textrank');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^filmkw: serve: cannot listen on 127\\.0\\.0\\.1:${port} \\(the port is in use\\)\\n$`, 'u'));
  } finally {
    blocker.close();
  }
});
