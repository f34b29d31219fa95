// `filmkw serve` with its defaults through the real entry point (bin/filmkw runs dist/: `npm run build`
// first): prints the URL on 127.0.0.1, serves the page and the API, exits 0 on SIGTERM. In the reliability
// suite beside the other signal tests (moved from test/serve/cli.test.ts): the process starts its default
// pool of worker threads, each loading the KG and the default preset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../../../', import.meta.url));

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
