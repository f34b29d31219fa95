// `filmkw serve` through the real entry point (bin/filmkw runs dist/: `npm run build` first): prints
// the URL, answers, stops cleanly on SIGTERM; a port in use is a clear error. Bad flags and files are
// one-line errors with exit codes (run in this process, test/cli/in-process.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filmkw } from '../cli/in-process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, ['bin/filmkw', ...args], { cwd: root, encoding: 'utf8' });

test('filmkw serve: prints the URL on 127.0.0.1, serves the page and the API, exits 0 on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-serve-cli-'));
  const tags = join(dir, 'tags.jsonl');
  writeFileSync(tags, '{"id":"1","keywords":[{"word":"长津湖","score":1,"kind":"Movie","entityId":"movie/name/长津湖"}]}\n');
  const child = spawn(process.execPath, ['bin/filmkw', 'serve', '--port', '0', '--files', tags], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /filmkw serve: (http:\/\/127\.0\.0\.1:\d+\/)/u.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/u);
    assert.match(await page.text(), /<script src="app.js"><\/script>/u);
    const info = (await (await fetch(`${url}api/info`)).json()) as { batch: { name: string; records: number }[] };
    assert.deepEqual(info.batch.map((b) => [b.name, b.records]), [['tags.jsonl', 1]]);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    assert.equal(code, 0);
    assert.equal(err, '');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('filmkw serve: bad flags and files are one-line errors (exit 2 usage, 3 input)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-serve-cli-'));
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"id":"1","keywords":[]}\n{"id":"2","keywords":"x"}\n');
  const cases: [string[], number, RegExp][] = [
    [['serve', '--port', 'abc'], 2, /^filmkw: serve: --port must be an integer from 0 to 65535, got "abc"\n$/u],
    [['serve', '--port', '70000'], 2, /--port must be an integer from 0 to 65535/u],
    [['serve', '--preset', 'nope'], 2, /unknown --preset "nope" \(valid: .*textrank/u],
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
    const r = run('serve', '--port', String(port));
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^filmkw: serve: cannot listen on 127\\.0\\.0\\.1:${port} \\(the port is in use\\)\\n$`, 'u'));
  } finally {
    blocker.close();
  }
});
