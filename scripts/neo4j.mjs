#!/usr/bin/env node
// A local Neo4j 5 community server for `--neo4j` and the integration tests, fetched from Maven Central.
//
//   node scripts/neo4j.mjs start  [--home DIR] [--port N|0] [--password PW] [--heap SIZE] [--fresh]
//   node scripts/neo4j.mjs stop   [--home DIR]
//   node scripts/neo4j.mjs status [--home DIR]
//   node scripts/neo4j.mjs env    [--home DIR]
//   (npm run neo4j:start / npm run neo4j:stop)
//
// `start` resolves org.neo4j:neo4j (the community server, version in neo4j/pom.xml) with Maven into Maven's
// local repository (~/.m2, so a second start does not download again), writes DIR/conf/neo4j.conf (Bolt on
// 127.0.0.1 only, HTTP off, auth on), sets the initial password of user `neo4j` with the server's own admin
// tool on the first start, launches `org.neo4j.server.CommunityEntryPoint` in the background, waits until
// Bolt answers a login, and writes DIR/state.json (pid, uri, user, password; mode 0600). It prints the
// connection as `export NEO4J_URI=… NEO4J_USER=… NEO4J_PASSWORD=…` lines on stdout (so
// `eval "$(node scripts/neo4j.mjs start)"` sets them) and everything else on stderr.
//
// DIR defaults to FILMKW_NEO4J_HOME or .neo4j/ in the repository (git-ignored); the graph stays there
// between runs (`--fresh` deletes it first). Port 7687 unless --port (0 = any free port). The password is
// --password, else FILMKW_NEO4J_PASSWORD, else the one of an earlier start in DIR, else a random one; it
// can only be chosen before the first start of DIR. Heap --heap / FILMKW_NEO4J_HEAP (default 1g, initial
// 512m), page cache 256m. `stop` sends SIGTERM and waits (SIGKILL after 60 s); `status` exits 0 when the
// server of DIR runs and answers, 3 otherwise. Exit 1 with one `neo4j: …` line on any failure.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const POM = join(root, 'neo4j', 'pom.xml');
const ENTRY = 'org.neo4j.server.CommunityEntryPoint';
const ADMIN = 'org.neo4j.cli.AdminTool';
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;

class Fail extends Error {}
const say = (msg) => process.stderr.write(`neo4j: ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const [cmd, ...rest] = argv;
  const a = { cmd, home: process.env.FILMKW_NEO4J_HOME || join(root, '.neo4j'), port: undefined, password: undefined, heap: process.env.FILMKW_NEO4J_HEAP || '1g', fresh: false };
  for (let i = 0; i < rest.length; i++) {
    const k = rest[i];
    const val = () => {
      const v = rest[++i];
      if (v === undefined) throw new Fail(`${k} needs a value`);
      return v;
    };
    if (k === '--home') a.home = val();
    else if (k === '--port') a.port = val();
    else if (k === '--password') a.password = val();
    else if (k === '--heap') a.heap = val();
    else if (k === '--fresh') a.fresh = true;
    else throw new Fail(`unknown option ${k} (usage: node scripts/neo4j.mjs start|stop|status|env [--home DIR] [--port N] [--password PW] [--heap SIZE] [--fresh])`);
  }
  if (!['start', 'stop', 'status', 'env'].includes(cmd)) throw new Fail('usage: node scripts/neo4j.mjs start|stop|status|env [--home DIR] [--port N] [--password PW] [--heap SIZE] [--fresh]');
  a.home = resolve(a.home);
  if (a.port !== undefined && !/^\d+$/.test(a.port)) throw new Fail(`--port must be a number, got ${JSON.stringify(a.port)}`);
  if (!/^\d+[mg]$/i.test(a.heap)) throw new Fail(`heap size must look like 512m or 1g, got ${JSON.stringify(a.heap)}`);
  return a;
}

const statePath = (home) => join(home, 'state.json');

function readState(home) {
  try {
    return JSON.parse(readFileSync(statePath(home), 'utf8'));
  } catch {
    return undefined;
  }
}

/** The pid runs and is the Neo4j of `home` (on Linux checked through /proc; elsewhere: the pid is alive). */
function isOurs(pid, home) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(ENTRY) && cmdline.includes(`--home-dir=${home}`);
  } catch {
    return process.platform !== 'linux';
  }
}

function exportLines(s) {
  const q = (v) => `'${String(v).replace(/'/g, `'\\''`)}'`;
  return `export NEO4J_URI=${q(s.uri)}\nexport NEO4J_USER=${q(s.user)}\nexport NEO4J_PASSWORD=${q(s.password)}\n`;
}

async function boltAnswers(s, timeoutMs = 5000) {
  const { default: neo4j } = await import('neo4j-driver');
  const driver = neo4j.driver(s.uri, neo4j.auth.basic(s.user, s.password), { connectionTimeout: timeoutMs, connectionAcquisitionTimeout: timeoutMs });
  try {
    await driver.verifyAuthentication();
    return { ok: true };
  } catch (err) {
    return { ok: false, err };
  } finally {
    await driver.close();
  }
}

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

function portFree(port) {
  return new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
  });
}

function need(cmd, args, what) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Fail(`${cmd} not found or not working (${what}); install it (Debian: apt-get install openjdk-17-jre-headless maven)`);
  return `${r.stdout}${r.stderr}`;
}

/** Resolves the server's jars with Maven (into ~/.m2) and returns the class path; reuses DIR/classpath.txt when still valid. */
function classpath(home) {
  const file = join(home, 'classpath.txt');
  if (existsSync(file) && statSync(file).mtimeMs > statSync(POM).mtimeMs) {
    const cp = readFileSync(file, 'utf8').trim();
    if (cp && cp.split(':').every((j) => existsSync(j))) return cp;
  }
  need('mvn', ['-v'], 'Maven resolves the Neo4j server from Maven Central');
  say('resolving the Neo4j server with Maven (first time: ~150 MB into ~/.m2) ...');
  const r = spawnSync('mvn', ['-B', '-q', '-f', POM, 'dependency:build-classpath', `-Dmdep.outputFile=${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-15).join('\n');
    process.stderr.write(`${tail}\n`);
    throw new Fail(`could not resolve the Neo4j server from Maven Central (mvn exit ${r.status ?? r.signal}); see the Maven output above`);
  }
  return readFileSync(file, 'utf8').trim();
}

function writeConf(home, port) {
  mkdirSync(join(home, 'conf'), { recursive: true });
  const conf = [
    '# written by scripts/neo4j.mjs on every start',
    'server.default_listen_address=127.0.0.1',
    `server.bolt.listen_address=127.0.0.1:${port}`,
    `server.bolt.advertised_address=127.0.0.1:${port}`,
    'server.http.enabled=false',
    'server.https.enabled=false',
    'dbms.security.auth_enabled=true',
    'server.memory.pagecache.size=256m',
    'db.tx_log.rotation.retention_policy=2 files',
    'dbms.usage_report.enabled=false',
    '',
  ].join('\n');
  writeFileSync(join(home, 'conf', 'neo4j.conf'), conf);
}

function jvmArgs(heap, cp) {
  const initial = /^(\d+)g$/i.test(heap) || parseInt(heap, 10) >= 512 ? '512m' : heap;
  return [
    `-Xms${initial}`,
    `-Xmx${heap}`,
    '-XX:+UseG1GC',
    '-XX:+ExitOnOutOfMemoryError',
    '-XX:-OmitStackTraceInFastThrow',
    '-XX:+DisableExplicitGC',
    '-Dfile.encoding=UTF-8',
    '-Dio.netty.tryReflectionSetAccessible=true',
    '--add-opens=java.base/java.nio=ALL-UNNAMED',
    '--add-opens=java.base/java.io=ALL-UNNAMED',
    '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
    '-cp',
    cp,
  ];
}

async function start(a) {
  const running = readState(a.home);
  if (running && isOurs(running.pid, a.home)) {
    if (a.fresh) throw new Fail(`the server of ${a.home} runs (pid ${running.pid}); stop it before --fresh`);
    if ((await boltAnswers(running)).ok) {
      say(`already running (pid ${running.pid}) at ${running.uri}; data in ${a.home}`);
      process.stdout.write(exportLines(running));
      return;
    }
    throw new Fail(`a server of ${a.home} runs (pid ${running.pid}) but does not answer at ${running.uri}; run \`node scripts/neo4j.mjs stop\` first`);
  }
  need('java', ['-version'], 'Neo4j 5 needs Java 17 or 21');
  if (a.fresh) rmSync(join(a.home, 'data'), { recursive: true, force: true });
  mkdirSync(a.home, { recursive: true });
  const cp = classpath(a.home);

  const credsFile = join(a.home, 'credentials.json');
  const hasData = existsSync(join(a.home, 'data', 'dbms', 'auth.ini'));
  let creds = hasData && existsSync(credsFile) ? JSON.parse(readFileSync(credsFile, 'utf8')) : undefined;
  const wanted = a.password ?? process.env.FILMKW_NEO4J_PASSWORD;
  if (creds && wanted !== undefined && wanted !== creds.password) {
    throw new Fail(`the graph in ${a.home} was created with another password; start without --password, or add --fresh to start over (deletes the graph)`);
  }
  if (!creds && hasData) throw new Fail(`${a.home} holds a graph whose password is not known (credentials.json missing); add --fresh to start over (deletes the graph)`);

  let port = a.port === undefined ? 7687 : Number(a.port);
  if (port === 0) port = await freePort();
  if (!(await portFree(port))) throw new Fail(`port ${port} on 127.0.0.1 is in use (another Neo4j?); choose one with --port N, or --port 0 for any free port`);
  writeConf(a.home, port);
  const env = { ...process.env, NEO4J_HOME: a.home, NEO4J_CONF: join(a.home, 'conf') };

  if (!creds) {
    const password = wanted ?? randomBytes(15).toString('base64url');
    if (password.length < 8) throw new Fail('the password must have at least 8 characters (Neo4j 5 default policy)');
    const r = spawnSync('java', ['-cp', cp, ADMIN, 'dbms', 'set-initial-password', password], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Fail(`set-initial-password failed: ${`${r.stdout}${r.stderr}`.trim().split('\n').slice(-3).join(' ')}`);
    creds = { user: 'neo4j', password };
    writeFileSync(credsFile, JSON.stringify(creds) + '\n', { mode: 0o600 });
  }

  mkdirSync(join(a.home, 'logs'), { recursive: true });
  const logFile = join(a.home, 'logs', 'console.log');
  const log = openSync(logFile, 'a');
  const child = spawn('java', [...jvmArgs(a.heap, cp), ENTRY, `--home-dir=${a.home}`, `--config-dir=${join(a.home, 'conf')}`], {
    cwd: a.home,
    env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  let exited = null;
  child.on('exit', (code, signal) => (exited = signal ?? code));
  const state = { pid: child.pid, uri: `bolt://127.0.0.1:${port}`, user: creds.user, password: creds.password, home: a.home, heap: a.heap, startedAt: new Date().toISOString() };
  writeFileSync(statePath(a.home), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  say(`starting Neo4j (pid ${child.pid}, heap ${a.heap}) at ${state.uri}; log ${join(a.home, 'logs')}`);

  const t0 = Date.now();
  let last;
  for (;;) {
    if (exited !== null) {
      rmSync(statePath(a.home), { force: true });
      const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
      process.stderr.write(`${tail}\n`);
      throw new Fail(`the server exited during start-up (${exited}); see ${logFile} and ${join(a.home, 'logs', 'neo4j.log')}`);
    }
    const r = await boltAnswers(state, 3000);
    if (r.ok) break;
    last = r.err;
    if (Date.now() - t0 > START_TIMEOUT_MS) {
      await stopPid(child.pid, a.home);
      throw new Fail(`Bolt did not answer at ${state.uri} within ${START_TIMEOUT_MS / 1000} s (${last?.message ?? last}); see ${join(a.home, 'logs', 'neo4j.log')}`);
    }
    await sleep(500);
  }
  child.unref();
  say(`Neo4j answers at ${state.uri} after ${((Date.now() - t0) / 1000).toFixed(1)} s (user ${state.user}); stop it with: node scripts/neo4j.mjs stop${a.home === resolve(root, '.neo4j') ? '' : ` --home ${a.home}`}`);
  process.stdout.write(exportLines(state));
}

async function stopPid(pid, home) {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return 'gone';
  }
  const t0 = Date.now();
  while (isOurs(pid, home)) {
    if (Date.now() - t0 > STOP_TIMEOUT_MS) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
      await sleep(500);
      return 'killed';
    }
    await sleep(250);
  }
  return 'stopped';
}

async function stop(a) {
  const s = readState(a.home);
  if (!s || !isOurs(s.pid, a.home)) {
    rmSync(statePath(a.home), { force: true });
    say(`not running (${a.home})`);
    return;
  }
  const how = await stopPid(s.pid, a.home);
  rmSync(statePath(a.home), { force: true });
  say(how === 'killed' ? `did not stop within ${STOP_TIMEOUT_MS / 1000} s: killed (pid ${s.pid})` : `stopped (pid ${s.pid})`);
}

async function status(a) {
  const s = readState(a.home);
  if (!s || !isOurs(s.pid, a.home)) {
    say(`not running (${a.home})`);
    return 3;
  }
  const r = await boltAnswers(s);
  say(r.ok ? `running (pid ${s.pid}) at ${s.uri}, user ${s.user}; data in ${a.home}` : `pid ${s.pid} runs but Bolt does not answer at ${s.uri}: ${r.err?.message}`);
  if (r.ok) process.stdout.write(exportLines(s));
  return r.ok ? 0 : 3;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.cmd === 'start') return start(a).then(() => 0);
  if (a.cmd === 'stop') return stop(a).then(() => 0);
  if (a.cmd === 'status') return status(a);
  const s = readState(a.home);
  if (!s || !isOurs(s.pid, a.home)) throw new Fail(`not running (${a.home}); start it with: node scripts/neo4j.mjs start`);
  process.stdout.write(exportLines(s));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(err instanceof Fail ? err.message : `unexpected failure: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
