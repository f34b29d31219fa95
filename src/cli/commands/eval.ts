import type { Command } from 'commander';

/** Registers `filmkw eval` (placeholder until implemented). */
export function registerEval(program: Command): void {
  void program;
}
