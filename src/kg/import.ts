/**
 * `filmkw kg import`: reads SOURCE arguments (`openkg:<dir>`, `kgqa:<file|dir>`, `douban-csv:<file|dir>`,
 * `csv:<dir>`, `html-list:<file|dir>`, `demo` = the bundled demo KG) into one merging builder (src/kg/builder.ts), builds the embedded store and reports what
 * was read, merged, skipped and dropped. Writing (snapshot or Neo4j) is left to the caller.
 *
 * Deterministic: the same sources give the same content hash, whatever their order on the command line
 * (names are chosen by source priority, not by arrival).
 */
import { inputError, usageError } from '../errors.js';
import { KgMergeBuilder, LONG_NAME_CHARS, type BuilderOptions, type MergeReport, type SourceKind, type ReportGroup } from './builder.js';
import { KgStore } from './store.js';
import type { KgData, KgStats } from './model.js';
import { readProjectCsv } from './sources/csv.js';
import { readOpenKg, type OpenKgOptions } from './sources/openkg.js';
import { readKgqa } from './sources/kgqa.js';
import { readDoubanCsv } from './sources/douban-csv.js';
import { readHtmlList } from './sources/html-list.js';
import { defaultKgDir } from './load.js';
import type { PlayedOptions } from './played.js';

export const SOURCE_PREFIXES: readonly SourceKind[] = Object.freeze(['openkg', 'kgqa', 'douban-csv', 'csv', 'html-list']);

export interface SourceSpec {
  kind: SourceKind;
  path: string;
  /** The argument as given. */
  spec: string;
}

const FORMAT_NAMES: Record<SourceKind, string> = {
  openkg: 'OpenKG douban-movie-kg csv',
  kgqa: 'DouBan-KGQA JSON lines',
  'douban-csv': 'douban-movies-2065 csv',
  csv: 'project csv (kg/FORMAT.md)',
  'html-list': 'saved Douban list pages (HTML)',
};

const USAGE_SOURCES = 'valid sources: openkg:<dir>, kgqa:<file|dir>, douban-csv:<file|dir>, csv:<dir>, html-list:<file|dir>, demo';

/** The named source `demo`: the bundled demo KG (kg/demo, project csv), e.g. added to the public Douban sources. */
export const DEMO_SOURCE = 'demo';

/** Parses `prefix:path` (or the named source `demo`); an unknown or missing prefix is a usage error listing the valid ones. */
export function parseSource(arg: string): SourceSpec {
  if (arg === DEMO_SOURCE) return { kind: 'csv', path: defaultKgDir(), spec: DEMO_SOURCE };
  const m = /^([a-z][a-z-]*):(.*)$/s.exec(arg);
  if (!m || !(SOURCE_PREFIXES as readonly string[]).includes(m[1])) {
    const what = m ? `unknown source prefix "${m[1]}:"` : `source "${arg}" has no prefix`;
    throw usageError(`kg import: ${what} (${USAGE_SOURCES})`);
  }
  if (m[2].trim() === '') throw usageError(`kg import: source "${arg}" has no path (${USAGE_SOURCES})`);
  return { kind: m[1] as SourceKind, path: m[2], spec: arg };
}

export interface ImportOptions {
  onProgress?: (msg: string) => void;
  openkg?: Partial<OpenKgOptions>;
  /** Builder options; `filmkw kg import` passes `commonWord: commonWordTest()` (the title policy's test, exported by the library) so that common-word aliases are dropped. */
  builder?: Partial<BuilderOptions>;
  /**
   * Part-of-speech tagger for the PLAYED name cleanup: 'jieba' (@node-rs/jieba with its bundled
   * dictionary, an independent instance, so results do not depend on other segmenters) or null.
   * @default 'jieba'
   */
  tagger?: 'jieba' | null;
}

/** Defaults of {@link ImportOptions}' own options (frozen). */
export const IMPORT_DEFAULTS: Readonly<Required<Pick<ImportOptions, 'tagger'>>> = Object.freeze({ tagger: 'jieba' });

export interface ImportResult {
  data: KgData;
  store: KgStore;
  report: MergeReport;
  /** Wall time of reading + building, ms. */
  ms: number;
}

async function jiebaTagger(): Promise<NonNullable<PlayedOptions['tagger']>> {
  const [{ Jieba }, { dict }] = await Promise.all([import('@node-rs/jieba'), import('@node-rs/jieba/dict.js')]);
  const j = Jieba.withDict(dict);
  return (text: string) => j.tag(text, true);
}

/** Reads every source into one KG (see module header). */
export async function importSources(sources: readonly (string | SourceSpec)[], opts: ImportOptions = {}): Promise<ImportResult> {
  const t0 = performance.now();
  const specs = sources.map((s) => (typeof s === 'string' ? parseSource(s) : s));
  if (specs.length === 0) throw usageError(`kg import: no SOURCE given (${USAGE_SOURCES})`);
  const say = opts.onProgress ?? (() => undefined);
  const b = new KgMergeBuilder(opts.builder);
  for (const s of specs) {
    const t = performance.now();
    say(`kg import: reading ${s.spec}`);
    const src = { kind: s.kind, spec: s.spec };
    const skippedBefore = b.skippedCount;
    switch (s.kind) {
      case 'csv':
        await readProjectCsv(s.path, b, src);
        break;
      case 'openkg':
        await readOpenKg(s.path, b, src, opts.openkg);
        break;
      case 'kgqa':
        await readKgqa(s.path, b, src);
        break;
      case 'douban-csv':
        await readDoubanCsv(s.path, b, src);
        break;
      case 'html-list':
        await readHtmlList(s.path, b, src);
        break;
    }
    const bad = b.skippedCount - skippedBefore;
    const records = b.recordsOf(s.spec);
    // nothing readable at all (no record, or every record skipped): most likely the wrong path or the wrong
    // format for this prefix. An error, so that `--out X` never replaces a good snapshot with an empty KG.
    // "Every record skipped" is "nothing of the source taken" (usedOf), not a comparison of records with
    // skipped rows: one record may be skipped for several reasons (a film with two nameless actors), and
    // a file with 2 good and 2 unparsable lines is readable.
    if (records === 0 && bad === 0) {
      throw inputError(`kg import: ${s.spec}: no record found; is it in the ${FORMAT_NAMES[s.kind]} format?`);
    }
    if (bad > 0 && b.usedOf(s.spec) === 0) {
      throw inputError(`kg import: ${s.spec}: no readable record (${bad} bad); is it in the ${FORMAT_NAMES[s.kind]} format?`);
    }
    say(`kg import: read ${s.spec} in ${Math.round(performance.now() - t)} ms`);
  }
  if ((opts.tagger ?? IMPORT_DEFAULTS.tagger) === 'jieba' && b.opts.minePlayed && b.hasSynopses) b.tagger = await jiebaTagger();
  say('kg import: joining people and mining PLAYED from synopses');
  const { data, report } = b.build();
  say(`kg import: building the store (${data.entities.length} entities, ${data.relations.length} relations)`);
  const store = KgStore.fromData(data);
  return { data, store, report, ms: Math.round(performance.now() - t0) };
}

/** The import summary (what `--json` prints). */
export interface ImportSummary {
  contentHash: string;
  entities: KgStats['entities'];
  relations: KgStats['relations'];
  sources: MergeReport['sources'];
  merged: MergeReport['merged'];
  duplicates: MergeReport['duplicates'];
  people: MergeReport['people'];
  /** Entity resolution: people merged by rule, and names left apart as ambiguous (src/kg/resolve.ts). */
  resolved: MergeReport['resolved'];
  /** Alias hygiene: aliases changed and dropped, by rule (src/kg/aliases.ts). */
  aliases: { changed: { total: number; reasons: ReportGroup[] }; dropped: { total: number; reasons: ReportGroup[] } };
  played: MergeReport['played'];
  /** Self-relations in the input (skipped; also counted under `skipped`). */
  selfRelations: number;
  skipped: { total: number; reasons: ReportGroup[] };
  dropped: { total: number; reasons: ReportGroup[] };
  /** Names whose invisible characters were removed (zero-width, bidi marks, controls). */
  cleaned: { total: number; reasons: ReportGroup[] };
  /** Names longer than LONG_NAME_CHARS (src/kg/builder.ts), kept whole, shown shortened. */
  long: { total: number; reasons: ReportGroup[] };
  output?: Record<string, unknown>;
  /** Reading and merging the sources, ms. */
  ms: number;
  /** The whole command (checks, reading, merging, writing), ms: set by the CLI. */
  totalMs?: number;
}

export function importSummary(r: ImportResult, output?: Record<string, unknown>): ImportSummary {
  const st = r.store.stats();
  const total = (g: ReportGroup[]) => g.reduce((n, x) => n + x.count, 0);
  const s: ImportSummary = {
    contentHash: r.store.contentHash,
    entities: st.entities,
    relations: st.relations,
    sources: r.report.sources,
    merged: r.report.merged,
    duplicates: r.report.duplicates,
    people: r.report.people,
    resolved: r.report.resolved,
    aliases: {
      changed: { total: total(r.report.aliases.changed), reasons: r.report.aliases.changed },
      dropped: { total: total(r.report.aliases.dropped), reasons: r.report.aliases.dropped },
    },
    played: r.report.played,
    selfRelations: r.report.selfRelations,
    skipped: { total: total(r.report.skipped), reasons: r.report.skipped },
    dropped: { total: total(r.report.dropped), reasons: r.report.dropped },
    cleaned: { total: total(r.report.cleaned), reasons: r.report.cleaned },
    long: { total: total(r.report.long), reasons: r.report.long },
    ms: r.ms,
  };
  if (output) s.output = output;
  return s;
}

const byKind = (m: Record<string, number>): string =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

/** Human-readable summary (stderr). */
export function formatSummary(s: ImportSummary): string {
  const lines: string[] = [];
  lines.push(`kg import: ${s.entities.total} entities (${byKind(s.entities.byKind)})`);
  lines.push(`kg import: ${s.relations.total} relations (${byKind(s.relations.byKind)})`);
  lines.push(`kg import: records read: ${s.sources.map((x) => `${x.source} ${x.records}`).join('; ')}`);
  lines.push(
    `kg import: merged across sources: ${s.merged.entities} entity records, ${s.merged.relations} relations; ` +
      `duplicates within a source: ${s.duplicates.entities} entity rows, ${s.duplicates.relations} relation rows`,
  );
  lines.push(
    `kg import: people: ${s.people.withId} with a Douban id, ${s.people.nameOnly} name-only; name-only credits linked to an id ` +
      `${s.people.linkedSameFilm} on the same film, ${s.people.linkedViaSourcePerson} via the source's own person; ${s.people.ambiguousName} ambiguous`,
  );
  const res = s.resolved;
  const ambiguousNames = res.ambiguous.reduce((n, g) => n + g.count, 0);
  lines.push(
    `kg import: entity resolution: ${res.merged} entities merged into another (${res.rules.map((g) => `${g.reason} ${g.count}`).join(', ') || 'none'}), ` +
      `${res.relationsJoined} relations joined; ${ambiguousNames} name-only people left apart (ambiguous)`,
  );
  for (const g of [...res.rules, ...res.ambiguous]) lines.push(`  ${g.count}× ${g.reason}${g.examples.length ? `  e.g. ${g.examples.join('; ')}` : ''}`);
  lines.push(`kg import: PLAYED: ${s.played.relations} relations from ${s.played.mentions} mentions in ${s.played.synopses} synopses`);
  if (s.played.stripped > 0) {
    const ex = s.played.strippedExamples.map((e) => `${e.from} → ${e.to} (${e.at})`).join('; ');
    lines.push(`kg import: PLAYED: relation or clause prefix stripped from ${s.played.stripped} character names, e.g. ${ex}`);
  }
  if (s.selfRelations) lines.push(`kg import: ${s.selfRelations} self-relation(s) skipped (listed below)`);
  const groups = (title: string, g: { total: number; reasons: ReportGroup[] }) => {
    lines.push(`kg import: ${title}: ${g.total}`);
    for (const r of g.reasons) {
      lines.push(`  ${r.count}× ${r.reason}${r.examples.length ? `  e.g. ${r.examples.join('; ')}` : ''}`);
    }
  };
  groups('aliases changed (brackets joined again, region / note tags removed)', s.aliases.changed);
  groups('aliases dropped', s.aliases.dropped);
  groups('skipped rows (bad input)', s.skipped);
  groups('dropped (by design / not resolvable)', s.dropped);
  if (s.cleaned.total > 0) groups('names with invisible characters removed (zero-width, bidi marks, control characters; kept, cleaned)', s.cleaned);
  if (s.long.total > 0) groups(`WARNING: names longer than ${LONG_NAME_CHARS} characters (a broken row or a hostile file? kept whole, shown shortened here)`, s.long);
  if (s.output) lines.push(`kg import: output: ${Object.entries(s.output).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ')}`);
  const write = typeof s.output?.writeMs === 'number' ? `, write ${s.output.writeMs} ms` : '';
  const all = s.totalMs !== undefined ? `, in all ${(s.totalMs / 1000).toFixed(1)} s` : '';
  lines.push(`kg import: content hash ${s.contentHash} (read and merge ${s.ms} ms${write}${all})`);
  return lines.join('\n') + '\n';
}
