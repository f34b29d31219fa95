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
  /** Stopped by SIGINT (128 + 2, the shell's convention). */
  SIGINT: 130,
  /** Stopped by SIGTERM (128 + 15). */
  SIGTERM: 143,
} as const;

export type ErrorCode = 'USAGE' | 'INPUT' | 'NEO4J_UNAVAILABLE' | 'NEO4J_AUTH' | 'NEO4J_FAILED' | 'OUTPUT' | 'QUEUE' | 'SIGINT' | 'SIGTERM';

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

/**
 * Names that must never be used as keys taken from untyped input (option keys, config keys, field
 * names): assigning them reaches Object.prototype (`__proto__`), or reading them finds an inherited
 * value instead of nothing (`constructor`, `toString`, … — every property of Object.prototype).
 */
export function forbiddenKeyPart(key: string): string | undefined {
  return key.split('.').find((part) => part === '__proto__' || part === 'prototype' || part === 'constructor' || Object.prototype.hasOwnProperty.call(Object.prototype, part));
}

/** Usage error for a key of untyped input that names a built-in object property (see {@link forbiddenKeyPart}). */
export function checkUntrustedKey(key: string, where: string): void {
  const part = forbiddenKeyPart(key);
  if (part !== undefined) {
    throw usageError(`${where}: "${key}" is not allowed: "${part}" is a built-in property of JavaScript objects, not an option or field name`);
  }
}
