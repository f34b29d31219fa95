#!/usr/bin/env node
// The defects of issue 25 counted in a KG (a snapshot or a csv directory), independently of the import's
// own rules (src/kg/resolve.ts, aliases.ts), so that the figures of the issue note can be reproduced on any
// KG, before and after (eval/results/film-dev/ANALYSIS.md §8). Build first (it
// reads dist/).
//   node scripts/kg-audit.mjs KG [--json] [--examples N]
// Counts:
//   - people: Person entities and the source ids they hold (`sourceIds`: the entities before the merge); person names with more than one Person entity (names compared loosely:
//     NFKC, spaces, middle dots, full stops and hyphens ignored, Latin case ignored), split into names that have both an
//     id-bearing (person/douban/…) and a name-only (person/name/…) entity (the issue's 3,146), names whose
//     entities are all distinct Douban ids, and names with two entities credited on a common film (the
//     issue's 878; DIRECTED, WROTE, ACTED_IN, PLAYED's movie), among them the names whose entities differ
//     only by a full stop used as a middle dot (J.R.R.托尔金 / J·R·R·托尔金);
//   - merged: entities listing several source ids; those holding two Douban ids (never allowed);
//   - aliases (Movie aliases, as ALIAS relations): unbalanced round brackets (`台)`), only punctuation or
//     symbols, a single character, a region tag left in brackets (`(台)`, `(港/台)`, `(大陆)`), a region tag
//     alone (`台`, `港`), and, with the base dictionary of dist/, a common word of the title policy;
//   - characters: names that start with a verb of accompanying and end in a kin or role word (携妻, 携太太).
// Exit 0 with the counts; 2 on a usage error; 3 when the KG cannot be read.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const mod = (p) => import(pathToFileURL(join(root, 'dist', p)).href);

/** Region tags of the issue (Douban's alternative titles): a bracket holding only these is a tag. */
const REGION = ['台', '港', '澳', '大陆', '内地', '台湾', '香港', '澳门', '中国大陆', '港台', '新马'];
const TAG_IN_BRACKETS = new RegExp(`[(（]\\s*(?:${REGION.join('|')})(?:\\s*[/／;；、,，]\\s*(?:${REGION.join('|')}))*\\s*[)）]`, 'u');
const TAG_ALONE = new RegExp(`^(?:${REGION.join('|')})$`, 'u');
/** Characters that are not a name: a verb of accompanying and a kin or role word (携妻, 带着女儿). */
const VERB_KIN = /^(?:携|偕|带着?|领着?|陪着?)(?:妻子?|夫人|太太|丈夫|老公|老婆|儿子|女儿|儿女|子女|女友|男友|母亲|父亲|家人|全家)$/u;

/**
 * Names compared as the import compares them: NFKC, spaces, hyphens, middle dots (· • ‧ ・ ･ ∙ ⋅ ⸱ ꞏ) and full
 * stops used as one (. ． ﹒ ․ 。 ｡; J.R.R.托尔金 = J·R·R·托尔金) ignored, Latin case ignored.
 */
const nameKey = (name) => dotlessKey(name).replace(/[.。]/gu, '');
/** The same but full stops kept (NFKC has made ． ﹒ ․ a "." and ｡ a 。): the comparison before issue 25's last fix. */
const dotlessKey = (name) => name.normalize('NFKC').replace(/[\s·•‧・∙⋅⸱ꞏ\-‐‑－_]/gu, '').toLowerCase();

function balanced(s) {
  let depth = 0;
  for (const c of s) {
    if (c === '(' || c === '（') depth++;
    else if ((c === ')' || c === '）') && --depth < 0) return false;
  }
  return depth === 0;
}

/** One example list per class, at most `max` each. */
class Classes {
  constructor(names, max) {
    this.max = max;
    this.counts = Object.fromEntries(names.map((n) => [n, 0]));
    this.examples = Object.fromEntries(names.map((n) => [n, []]));
  }
  add(name, example) {
    this.counts[name]++;
    if (this.examples[name].length < this.max) this.examples[name].push(example);
  }
}

/** Movie ids each person is credited on (DIRECTED, WROTE, ACTED_IN, PLAYED's movie). */
function filmsOfPeople(data) {
  const films = new Map();
  for (const r of data.relations) {
    const movie = r.kind === 'PLAYED' ? r.movieId : r.kind === 'DIRECTED' || r.kind === 'WROTE' || r.kind === 'ACTED_IN' ? r.to : undefined;
    if (movie === undefined) continue;
    const set = films.get(r.from) ?? new Set();
    set.add(movie);
    films.set(r.from, set);
  }
  return films;
}

/** Person entities grouped by a name key: only the groups of two or more. */
function groupsBy(persons, key) {
  const byName = new Map();
  for (const e of persons) {
    const k = key(e.name);
    const list = byName.get(k) ?? [];
    list.push(e);
    byName.set(k, list);
  }
  return [...byName.values()].filter((l) => l.length > 1);
}

/** The person counts of a KgData. */
function auditPeople(data, max) {
  const films = filmsOfPeople(data);
  const persons = data.entities.filter((e) => e.kind === 'Person');
  const share = (list) => list.some((a, i) => list.slice(i + 1).some((b) => [...(films.get(a.id) ?? [])].some((f) => films.get(b.id)?.has(f))));
  const show = (list) => `${list[0].name}: ${list.map((e) => `${e.id}`).sort().join(', ')}`;
  const c = new Classes(['several entities', 'id-bearing and name-only', 'only distinct Douban ids', 'two entities share a film', 'two entities share a film, names differ by "."'], max);
  for (const list of groupsBy(persons, nameKey)) {
    c.add('several entities', show(list));
    const douban = list.filter((e) => e.id.startsWith('person/douban/')).length;
    if (douban === list.length) c.add('only distinct Douban ids', show(list));
    else if (douban > 0) c.add('id-bearing and name-only', show(list));
    if (share(list)) {
      c.add('two entities share a film', show(list));
      if (new Set(list.map((e) => dotlessKey(e.name))).size > 1) c.add('two entities share a film, names differ by "."', show(list));
    }
  }
  return { persons: persons.length, names: c };
}

/** The merged entities: several source ids, and the ones holding two Douban ids of their kind. */
function auditMerged(data, max) {
  const c = new Classes(['merged entities', 'two Douban ids'], max);
  for (const e of data.entities) {
    if (!e.sourceIds || e.sourceIds.length < 2) continue;
    c.add('merged entities', `${e.id}: ${e.sourceIds.join(', ')}`);
    if (e.sourceIds.filter((id) => /^(?:person|movie)\/douban\//u.test(id)).length > 1) c.add('two Douban ids', `${e.id}: ${e.sourceIds.join(', ')}`);
  }
  return c;
}

/** The alias classes of the issue over the ALIAS relations; `common` tests a common word (or null). */
function auditAliases(data, common, max) {
  const names = ['unbalanced brackets', 'only punctuation or symbols', 'a single character', 'region tag in brackets', 'region tag alone'];
  if (common) names.push('a common word (title policy)');
  const c = new Classes(names, max);
  const title = new Map(data.entities.map((e) => [e.id, e.name]));
  let total = 0;
  for (const r of data.relations) {
    if (r.kind !== 'ALIAS') continue;
    total++;
    const a = r.to;
    const show = `${title.get(r.from) ?? r.from} → ${a}`;
    if (!balanced(a)) c.add('unbalanced brackets', show);
    if (/^[\p{P}\p{S}\s]+$/u.test(a)) c.add('only punctuation or symbols', show);
    if ([...a].length === 1) c.add('a single character', show);
    if (TAG_IN_BRACKETS.test(a)) c.add('region tag in brackets', show);
    if (TAG_ALONE.test(a)) c.add('region tag alone', show);
    if (common && common(a)) c.add('a common word (title policy)', show);
  }
  return { total, classes: c };
}

function auditCharacters(data, max) {
  const c = new Classes(['verb and kin word (携妻)'], max);
  const title = new Map(data.entities.map((e) => [e.id, e.name]));
  for (const e of data.entities) if (e.kind === 'Character' && VERB_KIN.test(e.name)) c.add('verb and kin word (携妻)', `${title.get(e.movieId) ?? e.movieId} → ${e.name}`);
  return c;
}

/** Every count of the module header for a KgData; `common` is the title policy's test or null. */
export function auditKg(data, { common = null, examples = 5 } = {}) {
  const byKind = {};
  let personIds = 0;
  for (const e of data.entities) {
    byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
    if (e.kind === 'Person') personIds += e.sourceIds?.length ?? 1;
  }
  const people = auditPeople(data, examples);
  const merged = auditMerged(data, examples);
  const aliases = auditAliases(data, common, examples);
  const characters = auditCharacters(data, examples);
  const out = (c) => Object.fromEntries(Object.keys(c.counts).map((k) => [k, { count: c.counts[k], examples: c.examples[k] }]));
  return {
    entities: { total: data.entities.length, byKind, personIds },
    personNames: out(people.names),
    merged: out(merged),
    aliases: { total: aliases.total, ...out(aliases.classes) },
    characters: out(characters),
  };
}

function text(report) {
  const e = report.entities;
  const lines = [`entities ${e.total} (${Object.entries(e.byKind).map(([k, n]) => `${k} ${n}`).join(', ')}); the Person entities hold ${e.personIds} source ids`];
  for (const [group, classes] of [['person names', report.personNames], ['merged', report.merged], [`aliases (of ${report.aliases.total})`, report.aliases], ['characters', report.characters]]) {
    lines.push(`${group}:`);
    for (const [name, v] of Object.entries(classes)) {
      if (name === 'total') continue;
      lines.push(`  ${name}: ${v.count}${v.examples.length ? `  e.g. ${v.examples.join(' | ')}` : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}

async function main(argv) {
  let kg;
  let json = false;
  let examples = 3;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') json = true;
    else if (argv[i] === '--examples' && /^\d+$/u.test(argv[i + 1] ?? '')) examples = Number(argv[++i]);
    else if (kg === undefined && !argv[i].startsWith('--')) kg = argv[i];
    else {
      process.stderr.write('usage: node scripts/kg-audit.mjs KG [--json] [--examples N]\n');
      return 2;
    }
  }
  if (kg === undefined) {
    process.stderr.write('usage: node scripts/kg-audit.mjs KG [--json] [--examples N]\n');
    return 2;
  }
  const [{ loadKg }, { commonWordTest }] = await Promise.all([mod('kg/load.js'), mod('lexicon/title-policy.js')]);
  let store;
  try {
    store = await loadKg({ kg });
  } catch (err) {
    process.stderr.write(`kg-audit: ${err.message}\n`);
    return 3;
  }
  const report = auditKg(store.toData(), { common: commonWordTest(), examples });
  process.stdout.write(json ? JSON.stringify(report) + '\n' : text(report));
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
