#!/usr/bin/env node
// Builds the front end of `filmkw serve` (web/) into dist/web/: web/src/main.ts bundled with esbuild
// (sigma, graphology and the layout included) as app.js, plus index.html and app.css copied. Run by
// `npm run build` (and so by `npm ci` through `prepare`).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, 'web', 'src', 'main.ts')],
  bundle: true,
  format: 'iife',
  target: 'es2020',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
for (const f of ['index.html', 'app.css']) copyFileSync(join(root, 'web', f), join(out, f));
