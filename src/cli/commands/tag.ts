import type { Command } from 'commander';

/** Registers `filmkw tag` (placeholder until implemented). */
export function registerTag(program: Command): void {
  void program;
}
