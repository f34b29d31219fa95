// Types of scripts/merged-kg.mjs (for the benches and tests in TypeScript).
export function mergedKgSources(data?: string): string[];
export function importClosure(dist: string, entries: string[]): string[];
export function mergedKgFingerprint(o?: { root?: string; data?: string }): string;
export function mergedKgPath(o?: { root?: string; data?: string; tmp?: string }): string;
export function ensureMergedKg(o?: {
  root?: string;
  data?: string;
  tmp?: string;
  log?: (line: string) => void;
  stdio?: import('node:child_process').StdioOptions;
}): { path: string; built: boolean };
export const STALE_DAYS: number;
export function pruneStaleMergedKgs(tmp: string, now?: number): string[];
