/**
 * The classification of the Neo4j driver's errors (neo4j.ts jobs): any error becomes a FilmkwError with one
 * clear line and the code the CLI maps to an exit code (NEO4J_AUTH, NEO4J_UNAVAILABLE, NEO4J_FAILED).
 */
import neo4j from 'neo4j-driver';
import { FilmkwError } from '../errors.js';
import { redactUri } from './neo4j-config.js';

export type Phase = 'connect' | 'schema' | 'write' | 'read';

const AUTH_CODES = new Set([
  'Neo.ClientError.Security.Unauthorized',
  'Neo.ClientError.Security.AuthenticationRateLimit',
  'Neo.ClientError.Security.CredentialsExpired',
  'Neo.ClientError.Security.TokenExpired',
]);

const CONNECT_CAUSE = /no answer from the server|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ECONNRESET|EPIPE|closed by server|Connection acquisition timed out|Failed to connect|Could not perform discovery|No routing servers|connection timeout/i;

/** One line: the "Caused by" part of the driver's message if any, else its first sentence; no newlines. */
export function shortCause(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; cause?: unknown };
  let msg = typeof e?.message === 'string' ? e.message : String(err);
  const caused = /Caused by:\s*(.+)$/s.exec(msg);
  if (caused) msg = caused[1];
  else if (/^Failed to connect to server/.test(msg) && e.cause) msg = shortCause(e.cause);
  else if (/^Could not perform discovery/.test(msg) && e.cause) msg = `${shortCause(e.cause)} (routing discovery)`;
  msg = msg.replace(/\s+/g, ' ').trim();
  if (msg.length > 240) msg = msg.slice(0, 237) + '...';
  return msg;
}

export function codeOf(err: unknown): string {
  const c = (err as { code?: unknown })?.code;
  return typeof c === 'string' ? c : '';
}

/**
 * Maps any error from the driver to a FilmkwError with one clear line:
 *   - NEO4J_AUTH: the server rejected the credentials (Unauthorized, rate limit, expired credentials);
 *   - NEO4J_UNAVAILABLE: the server cannot be reached while connecting (refused, unknown host, closed
 *     during the handshake, acquisition timeout, ServiceUnavailable/SessionExpired at connect);
 *   - NEO4J_FAILED: everything else, in particular losing the server during a job after the driver's
 *     retries (the message then says "after retries"), a query error, an unknown database; the
 *     message says that the import can be re-run and converges.
 * `ctx.phase` @default 'connect'. A FilmkwError is returned unchanged.
 */
export function classifyNeo4jError(err: unknown, ctx: { uri?: string; user?: string; phase?: Phase; database?: string } = {}): FilmkwError {
  if (err instanceof FilmkwError) return err;
  const phase = ctx.phase ?? 'connect';
  const where = ctx.uri ? ` at ${redactUri(ctx.uri)}` : '';
  const code = codeOf(err);
  const cause = shortCause(err);
  if (AUTH_CODES.has(code)) {
    const who = ctx.user ? ` for user "${ctx.user}"` : '';
    return new FilmkwError('NEO4J_AUTH', `neo4j: authentication failed${who}${where}: ${cause} [${code}]; check NEO4J_USER and NEO4J_PASSWORD`, { cause: err });
  }
  if (code === 'Neo.ClientError.Database.DatabaseNotFound') {
    const db = ctx.database ? ` "${ctx.database}"` : '';
    return new FilmkwError('NEO4J_FAILED', `neo4j: database${db} does not exist${where} (check NEO4J_DATABASE): ${cause}`, { cause: err });
  }
  const message = String((err as Error)?.message ?? '');
  const connectish = code === neo4j.error.SERVICE_UNAVAILABLE || code === neo4j.error.SESSION_EXPIRED || CONNECT_CAUSE.test(message);
  const codeText = code && code !== 'N/A' ? ` [${code}]` : '';
  if (phase === 'connect') {
    const protocol = code === neo4j.error.PROTOCOL_ERROR || /Bolt protocol|handshake|protocol version|responded HTTP/i.test(message);
    if (connectish || protocol) {
      const hint = protocol && !connectish ? '; is it a Neo4j 5 server speaking Bolt?' : '';
      return new FilmkwError('NEO4J_UNAVAILABLE', `neo4j: cannot connect to ${ctx.uri ? redactUri(ctx.uri) : 'the server'}: is the server running? (${cause}${hint})`, { cause: err });
    }
    return new FilmkwError('NEO4J_FAILED', `neo4j: connecting${where} failed: ${cause}${codeText}`, { cause: err });
  }
  const job = phase === 'read' ? 'reading the KG' : phase === 'schema' ? 'creating the constraints' : 'the import';
  const rerun = phase === 'read' ? 'the read can be retried' : 'the import can be re-run and converges to the same graph (MERGE)';
  const lost = connectish ? 'lost the server' : 'failed';
  const retried = neo4j.isRetryableError(err) ? ' after retries' : '';
  return new FilmkwError('NEO4J_FAILED', `neo4j: ${job}${where} ${lost}${retried}: ${cause}${codeText}; ${rerun}`, { cause: err });
}
