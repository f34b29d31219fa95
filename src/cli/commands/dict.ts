import type { Command } from 'commander';

/** Registers `filmkw dict` (placeholder until implemented). */
export function registerDict(program: Command): void {
  void program;
}
