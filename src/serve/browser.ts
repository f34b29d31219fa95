/**
 * How the viewer is opened in Debian's headless chromium (the browser tests and bench/serve.ts):
 * the rendered HTML mode's flags (src/html/render.ts) but with WebGL on, drawn in software by
 * SwiftShader, since sigma.js draws the word graph with WebGL, and with the network block's one
 * exception the viewer needs: 127.0.0.1, where `filmkw serve` listens (every other host still resolves
 * to nothing, so the viewer is shown to fetch nothing from elsewhere).
 */
import { CHROMIUM_ARGS, NETWORK_BLOCK_ARGS } from '../html/render.js';

/** The network block of the rendered HTML mode, but for the loopback address the viewer is served on. */
export const VIEWER_NETWORK_ARGS: readonly string[] = Object.freeze(['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']);

export const VIEWER_CHROMIUM_ARGS: readonly string[] = Object.freeze([
  ...CHROMIUM_ARGS.filter((a) => a !== '--disable-gpu' && !NETWORK_BLOCK_ARGS.includes(a)),
  ...VIEWER_NETWORK_ARGS,
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
]);
