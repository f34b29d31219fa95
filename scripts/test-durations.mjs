// A node:test reporter (used by scripts/run-tests.mjs beside the spec reporter): at the end of the run, the
// time of each test file and its slowest test, slowest first. A file with a process of its own is timed
// with its process start; a file run in a group process (run-tests.mjs groups the fast suite's files by
// folder) by the sum of its tests, and each group's process is listed too. FILMKW_TEST_DURATIONS=all lists
// every file, otherwise the ten slowest. The times are kept (FILMKW_TEST_TIMES) to start the longest
// processes of the next run first; no test depends on them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';

const groupDir = process.env.FILMKW_TEST_GROUPS;
const isGroup = (file) => groupDir !== undefined && file.startsWith(groupDir + sep);

export default async function* durations(source) {
  const files = new Map(); // file → { ms: own process time or 0, tests: [name, ms][], failed }
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
      // the event of a whole process (one file, or a group)
      if (event.type === 'test:complete') e.ms = ms;
      if (event.type === 'test:fail') e.failed = true;
      continue;
    }
    if (event.type === 'test:complete') continue; // pass/fail carry the same duration
    e.tests.push([name, ms]);
    if (event.type === 'test:fail') e.failed = true;
  }
  const line = (ms, label, e) => {
    const slowest = [...e.tests].sort((a, b) => b[1] - a[1])[0];
    const note = slowest && e.tests.length > 1 ? `  (slowest test ${(slowest[1] / 1000).toFixed(1)} s: ${slowest[0].slice(0, 70)})` : '';
    return `${(ms / 1000).toFixed(1).padStart(7)} s  ${label}${e.failed ? '  FAILED' : ''}${note}\n`;
  };
  const rows = [...files].filter(([file]) => !isGroup(file)).map(([file, e]) => ({ file: relative(process.cwd(), file), ms: e.ms || e.tests.reduce((s, [, ms]) => s + ms, 0), e }));
  rows.sort((a, b) => b.ms - a.ms || (a.file < b.file ? -1 : 1));
  saveTimes(rows);
  const all = process.env.FILMKW_TEST_DURATIONS === 'all';
  const shown = all ? rows : rows.slice(0, 10);
  if (shown.length > 0) {
    yield `\ntest files by time (${all ? 'all' : `slowest ${shown.length} of ${rows.length}`}; FILMKW_TEST_DURATIONS=all lists every file):\n`;
    for (const r of shown) yield line(r.ms, r.file, r.e);
  }
  const groups = [...files].filter(([file]) => isGroup(file)).sort((a, b) => b[1].ms - a[1].ms);
  if (groups.length > 0) {
    yield 'processes of the grouped files, by wall time:\n';
    for (const [file, e] of groups) yield line(e.ms, `group ${relative(groupDir, file).replace(/\.test\.mjs$/u, '')} (one process)`, e);
  }
}

/**
 * The time of each file, merged into FILMKW_TEST_TIMES (set by scripts/run-tests.mjs), which orders the
 * processes of the next run (the longest first). A file that cannot be written is only a lost order.
 */
function saveTimes(rows) {
  const path = process.env.FILMKW_TEST_TIMES;
  if (!path || rows.length === 0) return;
  let times = {};
  try {
    times = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // none yet
  }
  for (const r of rows) times[r.file.split(sep).join('/')] = Math.round(r.ms);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(times, null, 1)}\n`);
  } catch {
    // no order next time
  }
}
