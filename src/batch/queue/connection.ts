/**
 * Redis connections of the queue (BullMQ over ioredis) and the retry rule of the submitter: while Redis
 * is unreachable (restarted, network cut), each operation is retried until `timeoutMs` has passed
 * without success, then the run stops with one clear message (and can be resumed).
 */
import { Redis } from 'ioredis';
import { FilmkwError } from '../../errors.js';
import { showUrl } from './protocol.js';

/**
 * A Redis client of our own for a BullMQ Queue (which then shares it and leaves it open): BullMQ's own
 * close waits for a connection that may never come back, so the submitter disconnects this one itself.
 * Commands fail after one reconnection attempt; {@link retrying} decides when to give up.
 */
const lastErrors = new WeakMap<Redis, string>();

/** The last connection error of a client from {@link redisClient}, while it is not connected. */
export const lastRedisError = (client: Redis): string | undefined => lastErrors.get(client);

export function redisClient(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, retryStrategy: (times: number) => Math.min(100 * times, 1000) });
  // connection errors surface through the commands (retrying), which quote the last one
  client.on('error', (err: Error) => lastErrors.set(client, err.message));
  client.on('ready', () => lastErrors.delete(client));
  return client;
}

/** Close a BullMQ queue and disconnect its client, without waiting more than a second for Redis. */
export async function closeQueue(queue: { close(): Promise<void> }, client: Redis): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    void queue.close().catch(() => {});
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([queue.close().catch(() => {}), new Promise<void>((r) => (timer = setTimeout(r, 1000)))]);
  clearTimeout(timer);
  client.disconnect();
}

/** BullMQ connection options for a `redis://` URL (ioredis reconnects on its own, at most every second). */
export function connection(url: string, blocking: boolean): Record<string, unknown> {
  return {
    url,
    // workers and event readers block on Redis and must wait for it forever; the submitter's commands
    // fail fast so that its own retry loop (below) decides when to give up
    maxRetriesPerRequest: blocking ? null : 1,
    enableOfflineQueue: true,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run a Redis operation, retrying it for up to `timeoutMs` while it fails. */
export async function retrying<T>(url: string, timeoutMs: number, what: string, op: () => Promise<T>, onRetry?: (err: Error) => void, why?: () => string | undefined): Promise<T> {
  const start = Date.now();
  for (let attempt = 0; ; attempt++) {
    let timer: NodeJS.Timeout | undefined;
    try {
      // an operation can also hang while the client waits for a connection: bound it by the time left
      const left = Math.max(1, timeoutMs - (Date.now() - start));
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), left);
      });
      return await Promise.race([op(), late]);
    } catch (err) {
      if (err instanceof FilmkwError) throw err;
      if (Date.now() - start >= timeoutMs) {
        throw new FilmkwError('QUEUE', `${what}: Redis at ${showUrl(url)} did not answer for ${Math.round(timeoutMs / 1000)} s (${why?.() ?? (err as Error).message})`, { cause: err });
      }
      if (attempt === 0) onRetry?.(err as Error);
      await sleep(Math.min(250 * (attempt + 1), 1000));
    } finally {
      clearTimeout(timer);
    }
  }
}
