import type { Command } from 'commander';

/** Registers `filmkw kg` (placeholder until implemented). */
export function registerKg(program: Command): void {
  void program;
}
