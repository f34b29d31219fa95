import type { Command } from 'commander';

/** Registers `filmkw html` (placeholder until implemented). */
export function registerHtml(program: Command): void {
  void program;
}
