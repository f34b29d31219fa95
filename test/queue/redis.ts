/**
 * Test helper: a real Redis for the queue tests.
 *
 * - {@link sharedRedis}: FILMKW_TEST_REDIS (set by .ci/run, which starts a private redis-server), else a
 *   private redis-server started here when the `redis-server` binary is installed; each test file takes
 *   its own database number so files running in parallel do not share a queue.
 * - {@link privateRedis}: a redis-server of its own (the restart tests stop and start it).
 *
 * Without Redis the tests skip with a message, unless FILMKW_REQUIRE_REDIS=1 (set by .ci/run): then they
 * fail, so CI never skips them silently.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REQUIRE = process.env.FILMKW_REQUIRE_REDIS === '1';
const BINARY = process.env.FILMKW_REDIS_SERVER ?? 'redis-server';

export function haveRedisServer(): boolean {
  return spawnSync(BINARY, ['--version'], { encoding: 'utf8' }).status === 0;
}

/** Why the tests cannot run, or null. */
export function redisSkipReason(needServer: boolean): string | null {
  if (!needServer && process.env.FILMKW_TEST_REDIS) return null;
  if (haveRedisServer()) return null;
  const why = needServer
    ? 'no redis-server binary (apt-get install redis-server, or run .ci/run)'
    : 'no Redis: set FILMKW_TEST_REDIS=redis://host:port or install redis-server (.ci/run does both)';
  if (REQUIRE) throw new Error(`FILMKW_REQUIRE_REDIS=1 but ${why}`);
  return why;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitPort(port: number, up: boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (open === up) return;
    if (Date.now() > end) throw new Error(`redis on port ${port} did not come ${up ? 'up' : 'down'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A redis-server of its own, on a free port, without persistence unless `persist`. */
export class PrivateRedis {
  private proc: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'filmkw-redis-'));
  private constructor(readonly port: number, private readonly persist: boolean) {}

  static async start(persist = false): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort(), persist);
    await r.up();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', this.persist ? 'yes' : 'no', '--appendfsync', 'always'];
    const proc = spawn(BINARY, args, { stdio: 'ignore' });
    this.proc = proc;
    // never leave a server behind, even when the test process ends before its after hooks
    process.once('exit', () => proc.kill('SIGKILL'));
    await waitPort(this.port, true);
  }

  /** Kill the server (SIGKILL: nothing is saved on the way out). */
  async down(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
    await waitPort(this.port, false);
  }

  async stop(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let shared: PrivateRedis | null = null;

/** A Redis URL for this test file, on database `db` (1–15). Call {@link stopShared} in an `after` hook. */
export async function sharedRedis(db: number): Promise<string> {
  const base = process.env.FILMKW_TEST_REDIS ?? (shared ??= await PrivateRedis.start()).url;
  return `${base.replace(/\/\d*$/u, '')}/${db}`;
}

export async function stopShared(): Promise<void> {
  await shared?.stop();
  shared = null;
}
