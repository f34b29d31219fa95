/**
 * Readers for gold keyword files.
 *
 * - `jsonl`: the paper's format (王芳 等 2022 §3: each annotated text carries its keywords in a JSON key
 *   "tag"), one JSON object per line, e.g. ../shared/data/annotated/film-dev.jsonl. The text field, the id
 *   field and the gold field are configurable (defaults `text`, `id`, `tag`).
 * - `csl`: the CSL keyword benchmark TSV (ydli-ai/CSL benchmark/kg, e.g. ../shared/data/bench/csl-kg/dev.tsv).
 *   Three tab-separated columns and no header: (1) the task prompt, always "to keywords"; (2) the text,
 *   which is the abstract followed by a space and the paper title; (3) the author keywords joined by `_`.
 *   Rows have no id; the id is `<file name>:<line>`.
 *
 * Assumptions: UTF-8, optional BOM, LF or CRLF line ends; blank lines are skipped. Every problem is
 * reported as `<file>:<line>: <what>` (an input error, exit 3); the reader stops at the first bad line.
 * Empty keyword lists are rejected: a document without gold cannot be scored.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { inputError, usageError, checkUntrustedKey } from '../errors.js';

export const GOLD_FORMATS = ['jsonl', 'csl'] as const;
export type GoldFormat = (typeof GOLD_FORMATS)[number];

/** One annotated document. */
export interface GoldDocument {
  id: string;
  text: string;
  /** Gold keywords in file order (most important first in film-dev). */
  gold: string[];
  /** 1-based line in the source file. */
  line: number;
  /** The value of the `groupField` (jsonl; `(none)` when the record lacks it), when one is asked for. */
  group?: string;
  /** The film the text is about (jsonl `filmField`: a Douban id or a film name), when asked for and present. */
  film?: string;
  /** The text's title (jsonl `titleField`), when asked for and present. */
  title?: string;
}

/** Options of {@link readGold}. */
export interface ReadGoldOptions {
  /**
   * File format.
   * @default 'jsonl'
   */
  format: GoldFormat;
  /**
   * JSONL: field holding the text.
   * @default 'text'
   */
  textField: string;
  /**
   * JSONL: field holding the document id (string or number); a missing id becomes `<file>:<line>`.
   * @default 'id'
   */
  idField: string;
  /**
   * JSONL: field holding the gold keywords (array of strings).
   * @default 'tag'
   */
  goldField: string;
  /**
   * JSONL: field (a string or a number, e.g. `kind` or `film`) whose value puts each document in a
   * group, for scores per group (`filmkw eval --by`); empty: no groups. A record without it is in the
   * group `(none)`; a field that no record has (a typo) is an input error.
   * @default ''
   */
  groupField: string;
  /**
   * JSONL: field holding the film each text is about (a Douban id or a film name, string or number;
   * the document context of `extract(text, { film })`); empty: none. A field no record has is an input error.
   * @default ''
   */
  filmField: string;
  /**
   * JSONL: field holding each text's title (a string); empty: none. A field no record has is an input error.
   * @default ''
   */
  titleField: string;
}

export const DEFAULT_READ_GOLD_OPTIONS: Readonly<ReadGoldOptions> = Object.freeze({
  format: 'jsonl',
  textField: 'text',
  idField: 'id',
  goldField: 'tag',
  groupField: '',
  filmField: '',
  titleField: '',
});

/** The reader options that may be empty (meaning: not asked for). */
const OPTIONAL_FIELDS = new Set(['groupField', 'filmField', 'titleField']);

/** The group of a document whose record lacks the group field. */
export const NO_GROUP = '(none)';

/** Resolve partial reader options; unknown keys and bad formats are usage errors. */
export function resolveReadGoldOptions(partial: Record<string, unknown> = {}): ReadGoldOptions {
  const keys = Object.keys(DEFAULT_READ_GOLD_OPTIONS);
  for (const key of Object.keys(partial)) {
    if (!keys.includes(key)) throw usageError(`eval: unknown reader option "${key}" (valid: ${keys.join(', ')})`);
  }
  const out = { ...DEFAULT_READ_GOLD_OPTIONS };
  for (const [key, value] of Object.entries(partial)) {
    if (value === undefined || (OPTIONAL_FIELDS.has(key) && value === '')) continue;
    if (typeof value !== 'string' || value === '') throw usageError(`eval: reader option ${key} must be a non-empty string`);
    if (key !== 'format') checkUntrustedKey(value, `eval: ${key}`);
    (out as Record<string, string>)[key] = value;
  }
  if (!(GOLD_FORMATS as readonly string[]).includes(out.format)) {
    throw usageError(`eval: unknown gold format "${out.format}" (valid: ${GOLD_FORMATS.join(', ')})`);
  }
  if (out.groupField !== '' && out.format !== 'jsonl') throw usageError(`eval: groups by a field (--by ${out.groupField}) need the jsonl format`);
  if ((out.filmField !== '' || out.titleField !== '') && out.format !== 'jsonl') throw usageError('eval: --film-field and --title-field need the jsonl format');
  return out;
}

/** A text file's bytes as a string: UTF-16 LE / BE when it starts with that byte-order mark, else UTF-8. */
export function decodeText(buf: Buffer): string {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return new TextDecoder('utf-16le').decode(buf.subarray(2));
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return new TextDecoder('utf-16be').decode(buf.subarray(2));
  return buf.toString('utf8');
}

/** Read and parse a gold file. `displayName` is used in error messages (default: the path). */
export function readGold(path: string, partial: Partial<ReadGoldOptions> = {}, displayName = path): GoldDocument[] {
  const options = resolveReadGoldOptions(partial as Record<string, unknown>);
  let content: string;
  try {
    content = decodeText(readFileSync(path));
  } catch (err) {
    throw inputError(`${displayName}: cannot read gold file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, err);
  }
  return parseGold(content, displayName, options);
}

/** Parse gold content already in memory. */
export function parseGold(content: string, file: string, partial: Partial<ReadGoldOptions> = {}): GoldDocument[] {
  const options = resolveReadGoldOptions(partial as Record<string, unknown>);
  const docs = options.format === 'csl' ? parseCsl(content, file) : parseJsonl(content, file, options);
  if (docs.length === 0) throw inputError(`${file}: no documents in gold file`);
  const seen = new Map<string, number>();
  for (const d of docs) {
    const first = seen.get(d.id);
    if (first !== undefined) throw inputError(`${file}:${d.line}: duplicate id "${d.id}" (first on line ${first})`);
    seen.set(d.id, d.line);
  }
  return docs;
}

function lines(content: string): string[] {
  return content.replace(/^\uFEFF/u, '').split(/\r?\n/u);
}

/** Bad lines reported in one run (the error lists the first ones and counts the rest). */
export const MAX_REPORTED_GOLD_ERRORS = 20;

/** Collects bad lines, then throws one input error listing them (up to {@link MAX_REPORTED_GOLD_ERRORS}). */
class BadLines {
  private readonly list: string[] = [];
  private count = 0;
  add(message: string): void {
    this.count++;
    if (this.list.length < MAX_REPORTED_GOLD_ERRORS) this.list.push(message);
  }
  throwIfAny(file: string): void {
    if (this.count === 0) return;
    if (this.count === 1) throw inputError(this.list[0]);
    const more = this.count > this.list.length ? `; … and ${this.count - this.list.length} more` : '';
    throw inputError(`${file}: ${this.count} bad lines: ${this.list.join('; ')}${more}`);
  }
}

const own = (o: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined);

function parseJsonl(content: string, file: string, options: ReadGoldOptions): GoldDocument[] {
  const out: GoldDocument[] = [];
  const bad = new BadLines();
  let grouped = 0; // records with a value in the group field
  const seenContext = { film: 0, title: 0 }; // records with a value in the film / title field
  let firstKeys: string[] | null = null;
  lines(content).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const where = `${file}:${line}`;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (err) {
      return bad.add(`${where}: invalid JSON (${(err as Error).message})`);
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return bad.add(`${where}: expected a JSON object`);
    const obj = record as Record<string, unknown>;
    firstKeys ??= Object.keys(obj);
    const text = own(obj, options.textField);
    if (typeof text !== 'string') {
      return bad.add(`${where}: field "${options.textField}" is ${text === undefined ? 'missing' : 'not a string'} (choose the text field with --text-field)`);
    }
    const rawId = own(obj, options.idField);
    let id: string;
    if (rawId === undefined || rawId === null) id = `${basename(file)}:${line}`;
    else if (typeof rawId === 'string' || typeof rawId === 'number') id = String(rawId);
    else return bad.add(`${where}: field "${options.idField}" must be a string or number`);
    const gold = own(obj, options.goldField);
    if (!Array.isArray(gold)) {
      return bad.add(`${where}: field "${options.goldField}" is ${gold === undefined ? 'missing' : 'not an array'} (expected an array of keywords)`);
    }
    const badKeyword = gold.findIndex((g) => typeof g !== 'string' || g.trim() === '');
    if (badKeyword >= 0) return bad.add(`${where}: field "${options.goldField}"[${badKeyword}] must be a non-empty string`);
    if (gold.length === 0) return bad.add(`${where}: field "${options.goldField}" is empty (a document needs gold keywords)`);
    let group: string | undefined;
    if (options.groupField !== '') {
      const g = own(obj, options.groupField);
      if (g === undefined || g === null) group = NO_GROUP;
      else if (typeof g === 'string' || typeof g === 'number') group = String(g);
      else return bad.add(`${where}: field "${options.groupField}" (--by) must be a string or number`);
      if (g !== undefined && g !== null) grouped++;
    }
    const context: { film?: string; title?: string } = {};
    for (const [key, field] of [['film', options.filmField], ['title', options.titleField]] as const) {
      if (field === '') continue;
      const v = own(obj, field);
      if (v === undefined || v === null || v === '') continue;
      if (typeof v === 'string' || (key === 'film' && typeof v === 'number')) context[key] = String(v);
      else return bad.add(`${where}: field "${field}" (--${key}-field) must be a string${key === 'film' ? ' or a number' : ''}`);
      seenContext[key]++;
    }
    out.push({ id, text, gold: gold as string[], line, ...(group !== undefined ? { group } : {}), ...context });
  });
  bad.throwIfAny(file);
  for (const [key, field] of [['film', options.filmField], ['title', options.titleField]] as const) {
    if (field !== '' && out.length > 0 && seenContext[key] === 0) {
      throw inputError(`${file}: no record has a value in the field "${field}" (--${key}-field); the first record's fields: ${(firstKeys ?? []).join(', ')}`);
    }
  }
  // a field no record has is a typo, not one group of every document
  if (options.groupField !== '' && out.length > 0 && grouped === 0) {
    throw inputError(`${file}: no record has a value in the field "${options.groupField}" (--by); the first record's fields: ${(firstKeys ?? []).join(', ')}`);
  }
  return out;
}

function parseCsl(content: string, file: string): GoldDocument[] {
  const out: GoldDocument[] = [];
  const bad = new BadLines();
  const name = basename(file);
  lines(content).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const where = `${file}:${line}`;
    const cols = raw.split('\t');
    if (cols.length !== 3) {
      return bad.add(`${where}: expected 3 tab-separated columns (prompt, text, keywords joined by _), found ${cols.length}`);
    }
    const [, text, keywords] = cols;
    if (text.trim() === '') return bad.add(`${where}: column 2 (text) is empty`);
    const gold = keywords.split('_').map((k) => k.trim());
    if (gold.some((k) => k === '')) return bad.add(`${where}: column 3 (keywords) has an empty keyword: ${JSON.stringify(keywords)}`);
    out.push({ id: `${name}:${line}`, text, gold, line });
  });
  bad.throwIfAny(file);
  return out;
}
