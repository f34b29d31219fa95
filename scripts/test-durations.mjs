// A node:test reporter (used by scripts/run-tests.mjs beside the spec reporter): at the end of the run, the
// wall time of each test file (its process start-up included) and of its slowest tests, slowest first.
// `--test-reporter=./scripts/test-durations.mjs` with `FILMKW_TEST_DURATIONS=all` lists every file;
// otherwise the ten slowest. Durations are for information only: no test depends on them.
import { relative } from 'node:path';

export default async function* durations(source) {
  const files = new Map(); // file → { ms, tests: [name, ms][] , failed }
  const entry = (file) => {
    let e = files.get(file);
    if (!e) files.set(file, (e = { ms: 0, tests: [], failed: false }));
    return e;
  };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail' && event.type !== 'test:complete') continue;
    const { file, name, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    const ms = details?.duration_ms ?? 0;
    const e = entry(file);
    if (name === file) {
      // the file's own event (its process, when tests run one process per file)
      if (event.type === 'test:complete') e.ms = ms;
      continue;
    }
    if (event.type === 'test:complete') continue; // pass/fail carry the same duration
    e.tests.push([name, ms]);
    if (event.type === 'test:fail') e.failed = true;
  }
  const rows = [...files].map(([file, e]) => ({ file: relative(process.cwd(), file), ms: e.ms || e.tests.reduce((s, [, ms]) => s + ms, 0), e }));
  rows.sort((a, b) => b.ms - a.ms || (a.file < b.file ? -1 : 1));
  const all = process.env.FILMKW_TEST_DURATIONS === 'all';
  const shown = all ? rows : rows.slice(0, 10);
  if (shown.length === 0) return;
  yield `\ntest files by wall time (${all ? 'all' : `slowest ${shown.length} of ${rows.length}`}; FILMKW_TEST_DURATIONS=all lists every file):\n`;
  for (const r of shown) {
    const slowest = [...r.e.tests].sort((a, b) => b[1] - a[1])[0];
    const note = slowest && r.e.tests.length > 1 ? `  (slowest test ${(slowest[1] / 1000).toFixed(1)} s: ${slowest[0].slice(0, 70)})` : '';
    yield `${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.file}${r.e.failed ? '  FAILED' : ''}${note}\n`;
  }
}
