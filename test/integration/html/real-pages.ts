/**
 * The real pages of the integration tests: every page under ../shared/data/html (or $FILMKW_DATA/html),
 * `.html` / `.htm` files and the extensionless saved pages, sorted.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HTML_DIR = join(process.env.FILMKW_DATA ?? join(fileURLToPath(new URL('../../../', import.meta.url)), '..', 'shared', 'data'), 'html');

export const realPages = (): string[] => {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.html?$/i.test(f) || (!f.includes('.') && !f.startsWith('LICENSE'))) out.push(p);
    }
  };
  walk(HTML_DIR);
  return out;
};
