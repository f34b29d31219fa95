/**
 * `filmkw serve`: the local viewer's HTTP server (Hono on @hono/node-server). It serves the built
 * front end (dist/web, made by scripts/build-web.mjs) and a JSON API that other programs can use too
 * (README "Viewer"):
 *
 *   GET  /api/info                     presets, KG, batch files, limits, the extraction pools' load
 *   GET  /api/samples                  the bundled sample texts (datasets/samples/reviews.jsonl)
 *   POST /api/extract                  {text, preset?, options?, topK?, explain?, film?, title?} → keywords, occurrences, word graph
 *                                      (film, title: the document context; the answer's `film` says how the KG resolved it)
 *   POST /api/compare                  {text, presets: [2–4 names], options?, topK?, gold?} → the results and their differences
 *   GET  /api/kg/search?q=&kind=       entities whose name or alias contains q (of one kind: the viewer's film picker asks for Movie)
 *   GET  /api/kg/entity?name=          entities named q (name or alias), with their neighbourhood
 *   GET  /api/kg/entity/<id>           one entity by id, with its neighbourhood
 *   GET  /api/batch                    the tag outputs given on the command line
 *   GET  /api/batch/<n>?offset=&limit=&keyword=&entity=   a page of records of file n (entity: id, name or alias), most frequent keywords
 *
 * Errors are JSON `{"error": "...", "field"?: "..."}` with 400 (bad request, naming the field), 403
 * (foreign Host or cross-origin request), 404, 413 (body over the cap, or a request over its time,
 * memory, graph or response budget), 415 (a POST that is not application/json), 503 (busy: retry) or 500.
 * The server binds 127.0.0.1 unless told otherwise; on any loopback address it answers only requests
 * whose Host is a loopback name (no DNS rebinding), and it refuses POSTs from other origins
 * (src/serve/guard.ts). Extraction runs off the event loop in a pool of worker threads with a time and
 * a memory budget per request (src/serve/pool.ts, src/serve/extract-worker.ts), so one request can
 * neither freeze nor crash the server.
 */
import { readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { serve, type ServerType } from '@hono/node-server';
import { FilmkwError } from '../errors.js';
import { ENTITY_KINDS, type EntityKind } from '../kg/model.js';
import type { KgStore } from '../kg/store.js';
import { saveSnapshot } from '../kg/snapshot.js';
import { DEFAULT_PRESET, resolveOptions } from '../pipeline/options.js';
import { findPreset, listPresets } from '../pipeline/presets.js';
import { KgBrowser } from './kg-browse.js';
import { queryBatch, type BatchFile } from './batch.js';
import { SERVE_DEFAULTS, type ServeLimits } from './limits.js';
import { hostAllowed, jsonNestedDeeperThan, MAX_BODY_DEPTH, postRefusal } from './guard.js';
import { ExtractionPool, type PoolReply } from './pool.js';
import type { ServeTask } from './extract-worker.js';

/** Where {@link startServer} listens unless told (frozen): loopback, any free port. */
export const SERVE_LISTEN_DEFAULTS = Object.freeze({ host: '127.0.0.1', port: 0 });

export interface ServeResources {
  kg: KgStore;
  /** How the KG was given (path or "demo KG"), for the page. */
  kgLabel: string;
  batch: readonly BatchFile[];
  /** Preset of the page's first view. */
  preset?: string;
  limits?: Partial<ServeLimits>;
  /** Folder of the built front end (default: dist/web of the package). */
  webDir?: string;
  /** The address the server binds (for the Host check). @default '127.0.0.1' */
  host?: string;
  /** A snapshot file of `kg` for the extraction workers; absent: the server writes a temporary one. */
  kgSnapshot?: string;
}

/** A request error: 400 naming the field. */
class BadRequest extends Error {
  constructor(
    message: string,
    readonly field?: string,
    readonly status: 400 | 404 | 413 = 400,
  ) {
    super(message);
  }
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The bundled samples (id, title, text, gold tag) shown in the page's sample menu; [] when absent. */
function readSamples(): unknown[] {
  const file = fileURLToPath(new URL('../../datasets/samples/reviews.jsonl', import.meta.url));
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      return { id: String(o.id), title: typeof o.title === 'string' ? o.title : undefined, text: String(o.text), tag: Array.isArray(o.tag) ? o.tag : undefined };
    });
}

/** The front end folder of the package (the same from src/serve and dist/serve). */
export function defaultWebDir(): string {
  return fileURLToPath(new URL('../../dist/web/', import.meta.url));
}

const WEB_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
  '/app.css': 'app.css',
};
const CONTENT_TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Longest `film` or `title` of a request. */
const MAX_CONTEXT_CHARS = 500;

interface ExtractRequest {
  text: string;
  /** The document context: the film the text is about (a Douban id, a film name or a KG film id) and its title. */
  film?: string;
  title?: string;
  preset: string;
  options: Record<string, unknown>;
  topK: number | undefined;
  explain: boolean;
}

export { SERVE_DEFAULTS, type ServeLimits };

/** The limits with the defaults filled in, validated (FilmkwError USAGE naming the limit). */
export function resolveLimits(given: Partial<ServeLimits> = {}): ServeLimits {
  for (const k of Object.keys(given)) {
    if (!Object.prototype.hasOwnProperty.call(SERVE_DEFAULTS, k)) throw new FilmkwError('USAGE', `serve: unknown limit ${JSON.stringify(k)} (valid: ${Object.keys(SERVE_DEFAULTS).join(', ')})`);
  }
  const limits: ServeLimits = { ...SERVE_DEFAULTS, ...given };
  for (const [k, v] of Object.entries(limits)) {
    if (k === 'heavyNice') {
      if (!Number.isInteger(v) || v < 0 || v > 19) throw new FilmkwError('USAGE', `serve: limit heavyNice must be an integer from 0 to 19, got ${JSON.stringify(v)}`);
    } else if (!Number.isInteger(v) || v < 1) throw new FilmkwError('USAGE', `serve: limit ${k} must be an integer ≥ 1, got ${JSON.stringify(v)}`);
  }
  return limits;
}

/** Build the Hono app (no socket): the API and the static front end; extraction goes to `pool`. */
export function createServeApp(resources: ServeResources, pool: ExtractionPool): Hono {
  const limits = resolveLimits(resources.limits);
  const kg = resources.kg;
  const bind = resources.host ?? SERVE_LISTEN_DEFAULTS.host;
  const browser = new KgBrowser(kg);
  const defaultPreset = resources.preset ?? DEFAULT_PRESET;
  const webDir = resources.webDir ?? defaultWebDir();
  const web = new Map<string, string>();
  for (const file of new Set(Object.values(WEB_FILES))) if (existsSync(webDir + file)) web.set(file, readFileSync(webDir + file, 'utf8'));

  const readBody = async (c: Context): Promise<Record<string, unknown>> => {
    const raw = await c.req.text();
    if (jsonNestedDeeperThan(raw, MAX_BODY_DEPTH)) throw new BadRequest(`the request body nests objects or arrays deeper than ${MAX_BODY_DEPTH} levels`);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new BadRequest('the request body must be JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('the request body must be a JSON object');
    return body as Record<string, unknown>;
  };

  const parseText = (body: Record<string, unknown>): string => {
    if (!own(body, 'text') || typeof body.text !== 'string') throw new BadRequest('"text" must be a string', 'text');
    if (body.text.trim() === '') throw new BadRequest('"text" is empty', 'text');
    if (body.text.length > limits.maxTextChars) throw new BadRequest(`"text" is longer than ${limits.maxTextChars} characters`, 'text');
    return body.text;
  };
  const parsePreset = (value: unknown, field: string): string => {
    if (typeof value !== 'string' || !findPreset(value)) throw new BadRequest(`"${field}" must be one of ${listPresets().join(', ')}; got ${JSON.stringify(value)}`, field);
    return findPreset(value)!.name;
  };
  const parseCommon = (body: Record<string, unknown>) => {
    let options: Record<string, unknown> = {};
    if (own(body, 'options') && body.options !== undefined && body.options !== null) {
      if (typeof body.options !== 'object' || Array.isArray(body.options)) throw new BadRequest('"options" must be an object of option overrides, e.g. {"graph.window": 3}', 'options');
      options = Object.fromEntries(Object.entries(body.options as Record<string, unknown>));
    }
    let topK: number | undefined;
    if (own(body, 'topK') && body.topK !== undefined && body.topK !== null) {
      if (!Number.isInteger(body.topK) || (body.topK as number) < 1 || (body.topK as number) > limits.maxTopK) throw new BadRequest(`"topK" must be an integer from 1 to ${limits.maxTopK}`, 'topK');
      topK = body.topK as number;
    }
    if (own(body, 'explain') && body.explain !== undefined && typeof body.explain !== 'boolean') throw new BadRequest('"explain" must be true or false', 'explain');
    const context: { film?: string; title?: string } = {};
    for (const field of ['film', 'title'] as const) {
      if (!own(body, field) || body[field] === undefined || body[field] === null) continue;
      const v = body[field];
      if (typeof v !== 'string' || v.length > MAX_CONTEXT_CHARS) throw new BadRequest(`"${field}" must be a string of at most ${MAX_CONTEXT_CHARS} characters (${field === 'film' ? 'a Douban id or a film name' : "the text's title"})`, field);
      if (v.trim() !== '') context[field] = v;
    }
    return { options, topK, explain: body.explain !== false, ...context };
  };
  const parseExtract = (body: Record<string, unknown>): ExtractRequest => ({
    text: parseText(body),
    preset: parsePreset(own(body, 'preset') && body.preset !== undefined ? body.preset : defaultPreset, 'preset'),
    ...parseCommon(body),
  });
  /** Send a validated request to the pool and answer with its reply. */
  const answer = async (c: Context, req: ExtractRequest, kind: ServeTask['kind'], presets: string[], gold: string[] | null) => {
    const reply: PoolReply = await pool.run({ kind, text: req.text, presets, options: req.options, topK: req.topK, explain: req.explain, gold, film: req.film, title: req.title });
    if (reply.status === 503) c.header('Retry-After', String(reply.retryAfter));
    c.header('Content-Type', 'application/json; charset=UTF-8');
    return c.body(reply.body, reply.status);
  };

  const app = new Hono();
  app.onError((err, c) => {
    if (err instanceof BadRequest) return c.json(err.field ? { error: err.message, field: err.field } : { error: err.message }, err.status);
    if (err instanceof FilmkwError && err.code === 'USAGE') return c.json({ error: err.message }, 400);
    return c.json({ error: `internal error: ${(err as Error).message}` }, 500);
  });
  app.notFound((c) => c.json({ error: `no such resource: ${c.req.method} ${c.req.path}` }, 404));
  app.use('*', async (c, next) => {
    if (!hostAllowed(c.req.header('host'), bind)) return c.json({ error: 'Host not allowed (the viewer answers loopback names only)' }, 403);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const refusal = postRefusal({ host: c.req.header('host'), origin: c.req.header('origin'), secFetchSite: c.req.header('sec-fetch-site'), contentType: c.req.header('content-type') });
      if (refusal) return c.json({ error: refusal.message }, refusal.status);
    }
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
  });
  app.use('/api/*', bodyLimit({ maxSize: limits.maxBodyBytes, onError: (c) => c.json({ error: `request body larger than ${limits.maxBodyBytes} bytes` }, 413) }));

  for (const [route, file] of Object.entries(WEB_FILES)) {
    app.get(route, (c) => {
      const content = web.get(file);
      if (content === undefined) return c.text(`filmkw serve: the front end is not built (${webDir}${file} is missing); run npm run build\n`, 503);
      c.header('Content-Type', CONTENT_TYPES[file.split('.').pop()!]);
      c.header('Content-Security-Policy', CSP);
      c.header('Cache-Control', 'no-cache');
      return c.body(content);
    });
  }

  app.get('/api/info', (c) =>
    c.json({
      presets: listPresets(),
      preset: defaultPreset,
      topK: resolveOptions(defaultPreset).output.topK,
      kg: { label: resources.kgLabel, entities: kg.entityCount, relations: kg.relationTotal, contentHash: kg.contentHash },
      batch: resources.batch.map((f, i) => ({ index: i, name: f.name, records: f.records.length, hasText: f.hasText, hasGold: f.hasGold })),
      limits,
      load: pool.stats,
    }),
  );

  app.get('/favicon.ico', (c) => c.body(null, 204));
  const samples = readSamples();
  app.get('/api/samples', (c) => c.json(samples));

  app.post('/api/extract', async (c) => {
    const req = parseExtract(await readBody(c));
    return answer(c, req, 'extract', [req.preset], null);
  });

  app.post('/api/compare', async (c) => {
    const body = await readBody(c);
    if (!own(body, 'presets') || !Array.isArray(body.presets) || body.presets.length < 2 || body.presets.length > 4) throw new BadRequest('"presets" must be an array of 2 to 4 preset names', 'presets');
    const presets = (body.presets as unknown[]).map((p, i) => parsePreset(p, `presets[${i}]`));
    let gold: string[] | null = null;
    if (own(body, 'gold') && body.gold !== undefined && body.gold !== null) {
      if (!Array.isArray(body.gold) || !body.gold.every((g) => typeof g === 'string')) throw new BadRequest('"gold" must be an array of strings', 'gold');
      gold = body.gold as string[];
    }
    const req: ExtractRequest = { text: parseText(body), preset: presets[0], ...parseCommon(body) };
    return answer(c, req, 'compare', presets, gold);
  });

  const intParam = (c: Context, name: string, fallback: number, max: number): number => {
    const raw = c.req.query(name);
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!/^\d+$/u.test(raw) || n > max) throw new BadRequest(`"${name}" must be an integer from 0 to ${max}`, name);
    return n;
  };

  app.get('/api/kg/search', (c) => {
    const q = c.req.query('q') ?? '';
    if (q.trim() === '') throw new BadRequest('"q" must name an entity (name or alias)', 'q');
    const kind = c.req.query('kind');
    if (kind !== undefined && kind !== '' && !(ENTITY_KINDS as readonly string[]).includes(kind)) throw new BadRequest(`"kind" must be one of ${ENTITY_KINDS.join(', ')}`, 'kind');
    return c.json({ query: q, matches: browser.search(q, intParam(c, 'limit', 20, 200), kind ? (kind as EntityKind) : undefined) });
  });
  app.get('/api/kg/entity', (c) => {
    const name = c.req.query('name') ?? '';
    if (name.trim() === '') throw new BadRequest('"name" must name an entity (name or alias)', 'name');
    const matches = browser.named(name, limits.maxNeighbours);
    if (matches.length === 0) throw new BadRequest(`no entity is named ${JSON.stringify(name)} (name or alias); try /api/kg/search?q=`, 'name', 404);
    return c.json({ query: name, matches });
  });
  app.get('/api/kg/entity/:id{.+}', (c) => {
    const id = c.req.param('id');
    const detail = browser.byId(id, limits.maxNeighbours);
    if (!detail) throw new BadRequest(`no entity has the id ${JSON.stringify(id)}`, 'id', 404);
    return c.json(detail);
  });

  app.get('/api/batch', (c) => c.json(resources.batch.map((f, i) => ({ index: i, name: f.name, records: f.records.length, hasText: f.hasText, hasGold: f.hasGold }))));
  app.get('/api/batch/:file', (c) => {
    const raw = c.req.param('file');
    const index = /^\d+$/u.test(raw) ? Number(raw) : -1;
    const file = resources.batch[index];
    if (!file) throw new BadRequest(`no batch file ${JSON.stringify(raw)}: the viewer was given ${resources.batch.length} file(s) (--files), numbered from 0`, 'file', 404);
    // an entity id, or a name or alias (every entity it names)
    const entity = c.req.query('entity')?.trim();
    const entities = entity ? new Set(kg.entityIndex(entity) >= 0 ? [entity] : kg.lookup(entity).map((i) => kg.idOf(i))) : undefined;
    return c.json(
      queryBatch(file, {
        offset: intParam(c, 'offset', 0, 1e9),
        limit: intParam(c, 'limit', 50, 500),
        keyword: c.req.query('keyword') || undefined,
        entities,
      }),
    );
  });
  return app;
}

export interface StartOptions extends ServeResources {
  /** 0 = any free port. @default 0 */
  port?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The extraction workers' KG: the given snapshot file, or a temporary one written here (removed by `cleanup`). */
async function workerSnapshot(options: StartOptions): Promise<{ path: string; cleanup: () => void }> {
  if (options.kgSnapshot !== undefined) return { path: options.kgSnapshot, cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'filmkw-serve-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    await saveSnapshot(options.kg, join(dir, 'kg.fkg'));
  } catch (err) {
    cleanup();
    throw err;
  }
  return { path: join(dir, 'kg.fkg'), cleanup };
}

/** Start the extraction workers, then listen; resolves once the socket is bound. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const limits = resolveLimits(options.limits);
  const snapshot = await workerSnapshot(options);
  let pool: ExtractionPool;
  try {
    pool = await ExtractionPool.create({ ...limits, snapshot: snapshot.path, preset: options.preset ?? DEFAULT_PRESET });
  } catch (err) {
    snapshot.cleanup();
    throw err;
  }
  const stop = async () => {
    await pool.close();
    snapshot.cleanup();
  };
  try {
    return await listen(createServeApp(options, pool), options, stop);
  } catch (err) {
    await stop();
    throw err;
  }
}

function listen(app: Hono, options: StartOptions, stop: () => Promise<void>): Promise<RunningServer> {
  const host = options.host ?? SERVE_LISTEN_DEFAULTS.host;
  return new Promise((resolve, reject) => {
    let server: ServerType;
    const onError = (err: NodeJS.ErrnoException) =>
      reject(new FilmkwError('USAGE', `serve: cannot listen on ${host}:${options.port ?? SERVE_LISTEN_DEFAULTS.port} (${err.code === 'EADDRINUSE' ? 'the port is in use' : err.code ?? err.message})`));
    server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? SERVE_LISTEN_DEFAULTS.port }, (info: AddressInfo) => {
      server.off('error', onError);
      const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
      resolve({
        url: `http://${shown}:${info.port}/`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }).then(stop),
      });
    });
    server.once('error', onError);
  });
}
