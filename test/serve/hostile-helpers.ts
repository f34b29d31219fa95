/**
 * Helpers of the `filmkw serve` hostile-request tests (test/serve/hostile.test.ts, the fast suite, and
 * test/reliability/slow/serve-hostile-load.test.ts, the floods and budgets): servers of the demo KG,
 * raw HTTP requests, and the check that a server is still alive.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { loadKg } from '../../src/kg/load.js';
import type { KgStore } from '../../src/kg/store.js';
import { startServer, type RunningServer, type ServeLimits } from '../../src/serve/server.js';

export const SHORT = '以易烊千玺扮演的伍万里这个孩子的视角，拎起《长津湖》整篇故事的主线。吴京饰演的连长伍千里是他的哥哥。';

let kg: KgStore | null = null;
const servers: RunningServer[] = [];

/**
 * A server of the demo KG with one light worker and `limits`; closed by {@link closeServers}. `preset`: the
 * preset its threads warm up and requests without one get (default: the product's, the dearest to warm up;
 * `textrank` where no request depends on it).
 */
export async function server(limits: Partial<ServeLimits> = {}, host?: string, preset?: string): Promise<RunningServer> {
  kg ??= await loadKg();
  const s = await startServer({ kg, kgLabel: 'demo', batch: [], port: 0, host, preset, limits: { workers: 1, ...limits } });
  servers.push(s);
  return s;
}

/** Closes every server started so far (a test file's `after`). */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

/** A raw HTTP request (fetch would set Host, Origin and Sec-Fetch-* itself). */
export function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export const post = (s: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The server answers GET /api/info and extracts a short text. */
export async function alive(s: RunningServer): Promise<void> {
  assert.equal((await raw(`${s.url}api/info`)).status, 200, 'GET /api/info answers');
  const r = await post(s, 'api/extract', { text: SHORT, preset: 'textrank' });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.ok(r.json.keywords.length > 0, 'a benign extraction gets keywords');
}
