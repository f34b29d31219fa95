/**
 * src/html/records.ts and `filmkw html records` (src/cli/commands/html-records.ts): bad pages give
 * error lines, a truncated page keeps its complete records, directories, --mode, --out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { decodeHtml, listPages, recordsOfFile, resolveMode, looksTruncated } from '../../src/html/records.js';
import { registerHtmlRecords, setRendererFactory } from '../../src/cli/commands/html-records.js';
import { FilmkwError } from '../../src/errors.js';
import { routeUsageErrors } from '../../src/cli/usage-errors.js';

const FIX = fileURLToPath(new URL('../fixtures/html/records/', import.meta.url));

test('bad pages give one error line each, never a throw', async () => {
  for (const [name, re] of [
    ['empty.html', /empty page/],
    ['not-html.html', /does not decode|not HTML/],
    ['wrong-encoding.html', /declared charset gbk/],
  ] as const) {
    const r = await recordsOfFile(join(FIX, name), name);
    assert.equal(r.lines.length, 1, name);
    const l = r.lines[0];
    assert.ok('error' in l, name);
    assert.deepEqual(Object.keys(l), ['id', 'error'], 'the documented {id, error} shape');
    assert.equal(l.id, name);
    assert.match(l.error, re);
    assert.equal(r.records, 0);
  }
  const missing = await recordsOfFile(join(FIX, 'nope.html'), 'nope.html');
  assert.ok('error' in missing.lines[0] && /ENOENT/u.test(missing.lines[0].error));
});

test('a truncated page keeps its complete records and marks them', async () => {
  assert.equal(looksTruncated(readFileSync(join(FIX, 'truncated.html'), 'utf8')), true);
  const r = await recordsOfFile(join(FIX, 'truncated.html'), 'truncated.html', { mode: 'structural' });
  assert.deepEqual(r.lines.map((l) => ('title' in l ? l.title : '?')), ['山间来信', '海上灯塔', '夏日列车']);
  assert.ok(r.lines.every((l) => 'warning' in l && /truncated/.test(l.warning!)));
});

test('GBK page decodes from its meta charset; UTF-8 bytes win over a wrong gbk declaration', async () => {
  const r = await recordsOfFile(join(FIX, 'gbk-list.html'), 'gbk-list.html');
  assert.equal(r.records, 5);
  assert.equal((r.lines[0] as { title: string }).title, '第1条公告：基金净值披露说明');
  const d = decodeHtml(new TextEncoder().encode('<html><head><meta charset="gbk"></head><body>中文</body></html>'));
  assert.equal(d.encoding, 'utf-8');
  assert.match(d.warnings[0], /declared charset gbk but the bytes are (valid )?UTF-8/);
});

test('a page without record groups gives one empty line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fk-rec-'));
  try {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'one.html'), '<html><body><p>一段正文。</p></body></html>');
    const r = await recordsOfFile(join(dir, 'one.html'), 'one.html');
    assert.deepEqual(r.lines, [{ file: 'one.html', mode: 'structural', n: 0, empty: true, reason: 'no group of similar record blocks' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('listPages: sorted *.html under a directory, relative names; missing path is an input error', async () => {
  const pages = await listPages(FIX);
  assert.deepEqual(pages.map((p) => p.display), ['douban-list.html', 'empty.html', 'gbk-list.html', 'news-tables.html', 'not-html.html', 'truncated.html', 'wrong-encoding.html']);
  await assert.rejects(listPages(join(FIX, 'nope')), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT' && /no such file/.test(e.message));
});

test('resolveMode: structural fallback with a note when chromium is absent; rendered demanded → input error', () => {
  assert.deepEqual(resolveMode('structural'), { mode: 'structural' });
  const auto = resolveMode('auto', '/nonexistent/chromium');
  assert.equal(auto.mode, 'structural');
  assert.match(auto.note!, /not found, using the structural mode/);
  assert.throws(() => resolveMode('rendered', '/nonexistent/chromium'), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT');
});

/** Runs the command in-process; stdout is not captured (the test runner talks over it): use --out. */
async function runCli(args: string[]): Promise<{ err: string }> {
  const program = new Command().exitOverride();
  const html = program.command('html');
  registerHtmlRecords(html);
  routeUsageErrors(program); // commander's usage errors as the CLI gives them (FilmkwError USAGE)
  let err = '';
  const ew = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  try {
    await program.parseAsync(['node', 'filmkw', 'html', 'records', ...args]);
  } finally {
    process.stderr.write = ew;
  }
  return { err };
}

test('CLI: a directory in structural mode → one JSON line per record / bad page, summary on stderr', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fk-rec-'));
  const outFile = join(dir, 'all.jsonl');
  const { err } = await runCli([FIX, '--mode', 'structural', '--out', outFile]);
  const lines = readFileSync(outFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const byFile = (f: string) => lines.filter((l) => l.file === f || l.id === f); // records name their page in `file`, error lines in `id`
  assert.equal(byFile('douban-list.html').length, 4);
  assert.equal(byFile('news-tables.html').length, 10);
  assert.equal(byFile('empty.html').length, 1);
  assert.ok(lines.every((l) => l.error || l.mode === 'structural'));
  assert.equal(lines.filter((l) => l.error).length, 3);
  assert.match(err, /7 page\(s\), 22 record\(s\), 3 error page\(s\), 0 page\(s\) without records; mode structural/);
  rmSync(dir, { recursive: true, force: true });
});

test('CLI: --out writes the file; bad --mode is a usage error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fk-rec-'));
  try {
    const outFile = join(dir, 'r.jsonl');
    await runCli([join(FIX, 'douban-list.html'), '--mode', 'structural', '--out', outFile]);
    const recs = readFileSync(outFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { subjectId: string });
    assert.deepEqual(recs.map((r) => r.subjectId), ['1000001', '1000002', '1000003', '1000004']);
    await assert.rejects(runCli([FIX, '--mode', 'fast']), (e: unknown) => e instanceof FilmkwError && e.code === 'USAGE' && e.message === 'html records: --mode must be auto, rendered or structural, got "fast"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI --mode auto: when the browser cannot start, the structural mode runs and stderr says so; --mode rendered fails', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fk-rec-'));
  setRendererFactory(() => Promise.reject(new FilmkwError('INPUT', 'html records: cannot start chromium at /usr/bin/chromium: boom')));
  try {
    const outFile = join(dir, 'r.jsonl');
    const { err } = await runCli([join(FIX, 'douban-list.html'), '--out', outFile]);
    if (existsSync('/usr/bin/chromium')) assert.match(err, /cannot start chromium at \/usr\/bin\/chromium: boom; using the structural mode/);
    else assert.match(err, /not found, using the structural mode/);
    assert.match(err, /mode structural/);
    const recs = readFileSync(outFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { mode: string });
    assert.equal(recs.length, 4);
    assert.ok(recs.every((r) => r.mode === 'structural'));
    await assert.rejects(runCli([join(FIX, 'douban-list.html'), '--mode', 'rendered', '--out', outFile]), (e: unknown) => e instanceof FilmkwError && e.code === 'INPUT');
  } finally {
    setRendererFactory(null);
    rmSync(dir, { recursive: true, force: true });
  }
});
