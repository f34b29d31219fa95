/**
 * Redis connections of the queue (BullMQ over ioredis) and the retry rule of the submitter: while Redis
 * is unreachable (restarted, network cut), each operation is retried until `timeoutMs` has passed
 * without success, then the run stops with one clear message (and can be resumed).
 */
import { FilmkwError } from '../../errors.js';
import { showUrl } from './protocol.js';

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
export async function retrying<T>(url: string, timeoutMs: number, what: string, op: () => Promise<T>, onRetry?: (err: Error) => void): Promise<T> {
  const start = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (err instanceof FilmkwError) throw err;
      if (Date.now() - start >= timeoutMs) {
        throw new FilmkwError('QUEUE', `${what}: Redis at ${showUrl(url)} did not answer for ${Math.round(timeoutMs / 1000)} s (${(err as Error).message})`, { cause: err });
      }
      if (attempt === 0) onRetry?.(err as Error);
      await sleep(Math.min(250 * (attempt + 1), 1000));
    }
  }
}
