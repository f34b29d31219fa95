#!/usr/bin/env node
// Walks the README's examples in the order they appear, as written, in a fresh clone of this checkout
// (npm run test:readme; the clone in a temporary folder, with a link to ../shared next to it), and checks that each one exits 0, that every ```json example is a line an earlier
// example printed, and that afterwards `git status` shows nothing the examples left behind.
//
//   node scripts/readme-walk.mjs [--long] [--keep] [--link-modules] [--list] [--clone DIR]
//
// What runs: every command of every ```sh block (continuation lines joined; a section's commands share one
// bash, so `P=…` holds for the lines after it) and the ```ts library snippet. Each README section (a heading
// of level 2 or 3) gets its own bash; what a section left running (`serve`, `replay … &`, a worker) is
// stopped at its end. The walk changes only port numbers: 6379, 8080 and Neo4j's Bolt port become free
// ports, so that a walk never meets another server of the machine; the examples get a TMPDIR and a
// cache folder of their own (a fresh user's, not this machine's cached KG). The RULES below say which commands
// run in the background (and when they are ready), which need something this machine may lack (then they
// are skipped, said why, and so is every command that reads what they would have written), which are long
// (`--long` runs them: the test suites, benchmarks, regenerating eval/results/) and which cannot run
// here at all (Spark, Hadoop). `npm ci && …`: the clone's own `npm ci` was the walk's first step.
//
// --keep       keep the clone (its path is printed)
// --link-modules  link the checkout's node_modules into the clone and build, instead of `npm ci` (fast, for
//              working on the README; not a fresh install)
// --list       print the plan (what would run, what not and why) and run nothing
// --clone DIR  walk an existing clone (no clone, no install)
// Exit 0: every example that ran succeeded and the clone is clean; 1 otherwise.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const log = (s) => process.stderr.write(`${s}\n`);

/** Longest a foreground example may take before the walk calls it hung. */
const COMMAND_DEADLINE_MS = 30 * 60_000;
/** Longest a background example may take to be ready. */
const READY_DEADLINE_MS = 5 * 60_000;

/**
 * How to treat a command (matched on its README text). `needs`: what it needs beyond Node (checked on
 * this machine); `long`: run only with --long; `never`: cannot run here; `background`: runs until stopped
 * (`ready`: a pattern its output shows once it is ready; default: any output); `strip`: a prefix the walk
 * has done already.
 */
export const RULES = [
  { match: /^npm ci && /u, strip: /^npm ci && /u, why: 'the clone was installed with npm ci first' },
  { match: /^npm run test:readme\b/u, never: 'this walk itself' },
  { match: /^npm test\b|&& npm test\b/u, long: 'the whole test suite' },
  { match: /^npm run test:/u, long: 'a test suite' },
  { match: /^npm run (experiments|bench|crawl-eval)(\s|$)/u, long: 'regenerates committed results (eval/, bench/)' },
  { match: /^npm run (train:rerank|experiments|corpus:stats)/u, needs: ['shared'] },
  { match: /^\.\/bin\/filmkw experiments /u, long: 'runs every experiment system on film-dev' },
  { match: /^npm run train:rerank -- .*--compare/u, long: 'cross-validates two recipes' },
  { match: /^node --import tsx bench\//u, long: 'a benchmark' },
  { match: /^npm run train:rerank -- .*--out scratch\/(base|script)\.json/u, long: 'trains on film-train and film-train-b, for the held-out comparison after it' },
  { match: /^node scripts\/rerank-heldout\.mjs /u, long: 'scores trained models on film-dev' },
  { match: /^(tags = |tags\.zip\()/u, never: 'PySpark, not a shell command' },
  { match: /^hadoop jar /u, never: 'needs a Hadoop cluster' },
  // the test web: built from ../shared/data (minutes of CPU) and served; the crawl through it needs it running
  { match: /^\.\/bin\/filmkw crawl testweb --out scratch\/testweb/u, long: 'builds the test web from the shared data (minutes)' },
  { match: /--via http:\/\/127\.0\.0\.1:8080/u, needs: ['testweb'] },
  { match: /^redis-server /u, needs: ['redis'], background: true, ready: /Ready to accept connections/u },
  { match: /redis:\/\//u, needs: ['redis'] },
  { match: /^\.\/bin\/filmkw worker /u, background: true, ready: /worker/u },
  { match: /^\.\/bin\/filmkw serve\b/u, background: true, ready: /http:\/\/127\.0\.0\.1:\d+\//u },
  { match: /^\.\/bin\/filmkw replay /u, background: true, ready: /127\.0\.0\.1:\d+/u },
  { match: /^curl /u, needs: ['curl'] },
  { match: /^iconv /u, needs: ['iconv'] },
  { match: /neo4j:start|--neo4j\b|neo4j:stop/u, needs: ['neo4j'] },
  { match: /\.\.\/shared\//u, needs: ['shared'] },
];

/** What each need is, and whether this machine has it. */
const NEEDS = {
  shared: { what: '../shared/data next to the clone', has: () => existsSync(join(root, '..', 'shared', 'data')) },
  redis: { what: 'redis-server (apt-get install redis-server)', has: () => which('redis-server') },
  neo4j: { what: 'Java 17+ and Maven for a local Neo4j (apt-get install openjdk-17-jre-headless maven)', has: () => which('java') && which('mvn') },
  curl: { what: 'curl', has: () => which('curl') },
  iconv: { what: 'iconv', has: () => which('iconv') },
  // built and served by the two examples before the crawl, which run with --long
  testweb: { what: 'the test web the two examples above build and serve (with --long)', has: (opts) => Boolean(opts.long) && NEEDS.shared.has() },
};
const which = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** The README's examples: sections (## / ###) with their ```sh commands and ```json / ```ts blocks, in order. */
export function readExamples(text) {
  const sections = [];
  let section = { title: '(top)', items: [] };
  sections.push(section);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heading = /^(#{2,3}) (.*)$/u.exec(lines[i]);
    if (heading) {
      section = { title: heading[2], items: [] };
      sections.push(section);
      continue;
    }
    const fence = /^```(\w*)\s*$/u.exec(lines[i]);
    if (!fence || !['sh', 'json', 'ts'].includes(fence[1])) {
      if (fence) i = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      continue;
    }
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].startsWith('```')) end++;
    const body = lines.slice(start, end);
    if (fence[1] !== 'sh') section.items.push({ kind: fence[1], line: start + 1, text: body.join('\n') });
    else {
      for (let j = 0; j < body.length; j++) {
        const first = j;
        let cmd = body[j];
        while (cmd.endsWith('\\') && j + 1 < body.length) cmd = `${cmd}\n${body[++j]}`;
        if (cmd.trim() === '' || cmd.trimStart().startsWith('#')) continue;
        section.items.push({ kind: 'sh', line: start + first + 1, text: cmd });
      }
    }
    i = end;
  }
  return sections.filter((s) => s.items.length > 0);
}

/** The scratch paths a command writes (`--out P`, `> P`, `split … P`) and reads (every other scratch/ path). */
function paths(text) {
  const writes = new Set();
  for (const m of text.matchAll(/(?:--out\s+|>\s*|split\s[^&;|]*?)(scratch\/[^\s;|&)]+)/gu)) writes.add(m[1]);
  const reads = new Set();
  for (const m of text.matchAll(/(?<![\w/])(scratch\/[^\s;|&)'"]+)/gu)) if (!writes.has(m[1])) reads.add(m[1]);
  return { writes, reads };
}

/** The plan: each example with what to do (`run` / `skip` with the reason) and its rules. */
export function plan(sections, opts = { long: false }) {
  const notWritten = new Map(); // scratch path → why the command that writes it did not run
  const has = Object.fromEntries(Object.entries(NEEDS).map(([k, v]) => [k, v.has(opts)]));
  const out = [];
  for (const s of sections) {
    const items = [];
    for (const item of s.items) {
      // a rule matches the command as written, or once what the walk did already is taken off (`npm ci && `)
      const bare = RULES.reduce((t, r) => (r.strip ? t.replace(r.strip, '') : t), item.text);
      const rules = item.kind === 'sh' ? RULES.filter((r) => r.match.test(item.text) || r.match.test(bare)) : [];
      let skip = null;
      for (const r of rules) {
        if (r.never) skip ??= `cannot run here: ${r.never}`;
        else if (r.long && !opts.long) skip ??= `long (${r.long}): --long runs it`;
        for (const n of r.needs ?? []) if (!skip && !has[n]) skip = `needs ${NEEDS[n].what}`;
      }
      const { writes, reads } = item.kind === 'sh' ? paths(item.text) : { writes: new Set(), reads: new Set(/scratch\/[\w.-]+/u.exec(item.text) ?? []) };
      if (!skip && item.kind === 'ts' && !has.shared) skip = `needs ${NEEDS.shared.what}`;
      for (const p of reads) {
        for (const [w, why] of notWritten) if (!skip && (p === w || p.startsWith(w.endsWith('/') ? w : `${w}/`) || w.startsWith(p))) skip = `reads ${w}, which an example not run writes (${why})`;
      }
      if (skip) for (const w of writes) notWritten.set(w, skip);
      items.push({ ...item, rules, skip });
    }
    out.push({ title: s.title, items });
  }
  return out;
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/** Process groups of the open section shells: stopped if the walk itself is stopped. */
const groups = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const pid of groups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    process.exit(sig === 'SIGINT' ? 130 : 143);
  });
}

/** One section's commands in one bash (state shared between its lines), its background jobs stopped at the end. */
class SectionShell {
  constructor(cwd, env) {
    this.bash = spawn('bash', ['--norc', '--noprofile'], { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
    groups.add(this.bash.pid);
    this.pending = '';
    this.waiters = [];
    this.bash.stdout.setEncoding('utf8').on('data', (d) => {
      this.pending += d;
      let nl;
      while ((nl = this.pending.indexOf('\n')) >= 0) {
        const line = this.pending.slice(0, nl);
        this.pending = this.pending.slice(nl + 1);
        const m = /^__WALK__ (\S+)$/u.exec(line);
        if (m) this.waiters.shift()?.(m[1]);
      }
    });
    this.exited = new Promise((r) => this.bash.once('exit', r));
    this.bash.once('exit', () => this.waiters.splice(0).forEach((w) => w('exited')));
  }
  /** Send a script; resolves with what it echoes as __WALK__ (the exit status, or a pid). */
  send(script, deadlineMs) {
    return new Promise((res) => {
      const timer = setTimeout(() => res('timeout'), deadlineMs);
      this.waiters.push((v) => {
        clearTimeout(timer);
        res(v);
      });
      this.bash.stdin.write(script);
    });
  }
  async close() {
    this.bash.stdin.end();
    try {
      process.kill(-this.bash.pid, 'SIGTERM');
    } catch {
      /* gone already */
    }
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 10_000))]);
    try {
      process.kill(-this.bash.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    groups.delete(this.bash.pid);
  }
}

const tail = (path, n = 6) => (existsSync(path) ? readFileSync(path, 'utf8').trimEnd().split('\n').slice(-n).join('\n') : '');

/** Wait until `path` matches `ready` (or has output), the process is gone, or the deadline passes. */
async function ready(path, pattern, pid) {
  const t0 = Date.now();
  while (Date.now() - t0 < READY_DEADLINE_MS) {
    const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (pattern ? pattern.test(text) : text.length > 0) return 'ready';
    try {
      process.kill(Number(pid), 0);
    } catch {
      return `ended before it was ready: ${tail(path)}`;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return `not ready after ${READY_DEADLINE_MS / 1000} s: ${tail(path)}`;
}

async function main() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const steps = plan(readExamples(readme), { long: flag('--long') });
  if (flag('--list')) {
    for (const s of steps) {
      process.stdout.write(`## ${s.title}\n`);
      for (const it of s.items) process.stdout.write(`  ${it.skip ? 'skip' : 'run '} L${it.line} ${it.text.split('\n')[0]}${it.skip ? `  — ${it.skip}` : ''}\n`);
    }
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), 'filmkw-readme-walk-'));
  const given = args.includes('--clone') ? resolve(args[args.indexOf('--clone') + 1]) : null;
  const clone = given ?? join(work, 'filmkw');
  if (!given) {
    log(`readme-walk: cloning ${root} (HEAD) into ${clone}`);
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone], { stdio: 'inherit' });
    if (flag('--link-modules')) {
      symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
      // the .gitignore's `node_modules/` matches a folder, not this link: the clone's git is told of it
      appendFileSync(join(clone, '.git', 'info', 'exclude'), '/node_modules\n');
      execFileSync('npm', ['run', 'build', '--silent'], { cwd: clone, stdio: 'inherit' });
    } else {
      log('readme-walk: npm ci in the clone');
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }
  // the examples read ../shared/…: next to the clone, a link to the checkout's neighbour
  if (!existsSync(join(clone, '..', 'shared')) && existsSync(join(root, '..', 'shared'))) symlinkSync(join(root, '..', 'shared'), join(clone, '..', 'shared'));
  const ports = { 6379: await freePort(), 8080: await freePort() };
  // a temporary folder of the walk's own: what the examples cache there ($TMPDIR/filmkw-merged-<fingerprint>.fkg, which
  // train:rerank and experiments build once and then reuse) is built by the clone's code, never an older
  // checkout's file left in the machine's /tmp; no KG or Neo4j of the caller's environment either
  const env = { ...process.env, FILMKW_CACHE_DIR: join(work, 'cache'), TMPDIR: join(work, 'tmp'), FORCE_COLOR: '0' };
  for (const k of Object.keys(env)) if (k.startsWith('NEO4J_') || k === 'FILMKW_KG') delete env[k];
  const logs = join(work, 'logs');
  execFileSync('mkdir', ['-p', logs, env.TMPDIR]);
  const printed = [];
  const results = [];
  let n = 0;
  for (const s of steps) {
    const shell = new SectionShell(clone, env);
    try {
      for (const it of s.items) {
        n++;
        const head = `L${it.line} ${it.text.split('\n')[0].slice(0, 110)}`;
        if (it.skip) {
          results.push({ ...it, status: 'skip' });
          log(`skip ${head}  — ${it.skip}`);
          continue;
        }
        if (it.kind === 'json') {
          const ok = printed.some((l) => l === it.text.trim());
          results.push({ ...it, status: ok ? 'ok' : 'FAIL', why: ok ? '' : 'no earlier example printed this line' });
          log(`${ok ? 'ok  ' : 'FAIL'} ${head} (a line an earlier example printed)`);
          continue;
        }
        let text = it.text;
        for (const r of it.rules) if (r.strip) text = text.replace(r.strip, '');
        text = text.replace(/\b6379\b/gu, String(ports[6379])).replace(/\b8080\b/gu, String(ports[8080])).replace(/npm run -s neo4j:start(?! --)/u, 'npm run -s neo4j:start -- --port 0');
        const out = join(logs, `${n}.out`);
        const err = join(logs, `${n}.err`);
        const t0 = Date.now();
        let status;
        let why = '';
        if (it.kind === 'ts') {
          const r = spawnSync(process.execPath, ['--input-type=module', '-e', text], { cwd: clone, env, encoding: 'utf8', timeout: COMMAND_DEADLINE_MS });
          status = r.status === 0 ? 'ok' : 'FAIL';
          why = r.status === 0 ? '' : `exit ${r.status}: ${r.stderr.trim().split('\n').slice(-4).join(' / ')}`;
        } else if (it.rules.some((r) => r.background)) {
          const rule = it.rules.find((r) => r.background);
          const pid = await shell.send(`{\n${text.replace(/&\s*(#.*)?$/u, '')}\n} </dev/null >${out} 2>&1 &\necho "__WALK__ $!"\n`, 60_000);
          const r = await ready(out, rule.ready, pid);
          status = r === 'ready' ? 'ok' : 'FAIL';
          why = r === 'ready' ? '' : r;
        } else {
          const code = await shell.send(`{\n${text}\n} </dev/null >${out} 2>${err}\necho "__WALK__ $?"\n`, COMMAND_DEADLINE_MS);
          status = code === '0' ? 'ok' : 'FAIL';
          if (code !== '0') why = code === 'timeout' ? `still running after ${COMMAND_DEADLINE_MS / 60000} min` : `exit ${code}: ${tail(err, 4).replace(/\n/gu, ' / ')}`;
          if (existsSync(out)) printed.push(...readFileSync(out, 'utf8').split('\n'));
        }
        results.push({ ...it, status, why });
        log(`${status === 'ok' ? 'ok  ' : 'FAIL'} ${head} (${((Date.now() - t0) / 1000).toFixed(1)} s)${why ? `\n       ${why}` : ''}`);
      }
    } finally {
      await shell.close();
    }
  }
  if (existsSync(join(clone, '.neo4j'))) spawnSync(process.execPath, ['scripts/neo4j.mjs', 'stop'], { cwd: clone, stdio: 'ignore' });
  // what the examples left in the clone: untracked files (outside scratch/, whose .gitignore covers it) and
  // changed tracked files (only the long regenerating examples may change eval/ and bench/ results)
  const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: clone, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .filter((l) => !(flag('--link-modules') && l.endsWith(' node_modules')));
  const ran = results.filter((r) => r.status !== 'skip').length;
  const failed = results.filter((r) => r.status === 'FAIL');
  log(`readme-walk: ${ran} examples run, ${failed.length} failed, ${results.length - ran} not run (reasons above)`);
  if (status.length > 0) log(`readme-walk: the examples left the clone unclean (git status):\n${status.map((l) => `  ${l}`).join('\n')}`);
  if (flag('--keep') || given) log(`readme-walk: clone kept at ${clone} (the outputs and logs of the examples in ${work})`);
  else rmSync(work, { recursive: true, force: true });
  return failed.length === 0 && status.length === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(await main());
