/**
 * Typed errors and the CLI exit codes (documented in README "Exit codes").
 * Library code throws FilmkwError; only the CLI entry maps them to exit codes.
 */
import { dirname } from 'node:path';

export const EXIT = {
  OK: 0,
  /** The job ran but some records failed (e.g. error records in a batch) — only with --fail-on-error. */
  PARTIAL: 1,
  /** Usage error: unknown option, unknown preset, bad option value. */
  USAGE: 2,
  /** Input problem: missing/unreadable file, wrong format, corrupt snapshot, bad rows under --strict. */
  INPUT: 3,
  /** Neo4j unreachable (connection refused, unknown host). */
  NEO4J_UNAVAILABLE: 4,
  /** Neo4j rejected the credentials. */
  NEO4J_AUTH: 5,
  /** Neo4j failed during the job after retries (server went away, query error). */
  NEO4J_FAILED: 6,
  /** Output could not be written. */
  OUTPUT: 7,
  /** The Redis job queue (`tag --queue`, `worker`) unreachable, or a chunk failed or was refused there. */
  QUEUE: 8,
  /** Bug: an unexpected exception (stack trace printed). */
  INTERNAL: 70,
} as const;

export type ErrorCode = 'USAGE' | 'INPUT' | 'NEO4J_UNAVAILABLE' | 'NEO4J_AUTH' | 'NEO4J_FAILED' | 'OUTPUT' | 'QUEUE';

export class FilmkwError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FilmkwError';
    this.code = code;
  }
  get exitCode(): number {
    return EXIT[this.code];
  }
}

export const usageError = (msg: string) => new FilmkwError('USAGE', msg);
export const inputError = (msg: string, cause?: unknown) => new FilmkwError('INPUT', msg, { cause });

/** Why writing `path` failed, in words, for the usual file-system error codes; undefined for others. */
export function writeFailureReason(code: string | undefined, path: string): string | undefined {
  switch (code) {
    case 'ENOENT':
      return `the directory ${dirname(path)} does not exist`;
    case 'ENOTDIR':
      return `a parent of ${path} is not a directory`;
    case 'EISDIR':
      return 'it is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    default:
      return undefined;
  }
}
