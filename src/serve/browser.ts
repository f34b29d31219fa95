/**
 * How the viewer is opened in Debian's headless chromium (the browser tests and bench/serve.ts):
 * the rendered HTML mode's flags (src/html/render.ts) but with WebGL on, drawn in software by
 * SwiftShader, since sigma.js draws the word graph with WebGL.
 */
import { CHROMIUM_ARGS } from '../html/render.js';

export const VIEWER_CHROMIUM_ARGS: readonly string[] = Object.freeze([
  ...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu'),
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
]);
