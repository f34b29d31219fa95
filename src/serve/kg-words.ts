/**
 * The KG in words, for people: relation labels by direction ("directed by", "played"), and the line
 * that tells apart entities of the same name (a film's directors and leads, a person's films, a
 * character's film and actor, the Douban id). Shared by the viewer's KG view (web/src/kg-view.ts),
 * `filmkw kg show` and `/api/kg/...` (kg-browse.ts). Pure, no imports but types: the web bundle imports it.
 *
 * The KG holds no release years (none of the imported sources gives them to the model, kg/schema.md), so
 * a film is told apart by its people and its id.
 */
import type { EntityKind, RelationKind } from '../kg/model.js';

/** A neighbour as kg-browse.ts lists it (structurally: NeighbourLink). */
interface Link {
  id: string;
  kind: EntityKind;
  name: string;
  relations: readonly { kind: RelationKind | 'IN_MOVIE'; direction: 'out' | 'in' }[];
}

/**
 * Each relation kind read from the entity shown, by direction (`out`: the entity is the subject, e.g. a
 * person who directed; `in`: the neighbour is, e.g. the director of this film), with its Chinese name.
 */
export const RELATION_LABELS: Readonly<Record<RelationKind | 'IN_MOVIE', { zh: string; out: string; in: string }>> = Object.freeze({
  DIRECTED: { zh: '导演', out: 'directed', in: 'directed by' },
  WROTE: { zh: '编剧', out: 'wrote', in: 'written by' },
  ACTED_IN: { zh: '主演', out: 'acted in', in: 'cast' },
  HAS_GENRE: { zh: '类型', out: 'genre', in: 'films of the genre' },
  ALIAS: { zh: '别名', out: 'also called', in: 'alias of' },
  PLAYED: { zh: '饰演', out: 'played', in: 'played by' },
  IN_MOVIE: { zh: '角色', out: 'character in', in: 'characters' },
});

/** "导演 directed by": a relation in the direction it is read from the entity shown. */
export function relationLabel(kind: RelationKind | 'IN_MOVIE', direction: 'out' | 'in'): string {
  const l = RELATION_LABELS[kind];
  return `${l.zh} ${l[direction]}`;
}

/** The neighbours of an entity grouped by relation label, in RELATION_LABELS order (a neighbour may be in several). */
export function groupByRelation<T extends Link>(neighbours: readonly T[]): { label: string; neighbours: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const kind of Object.keys(RELATION_LABELS) as (RelationKind | 'IN_MOVIE')[]) {
    for (const direction of ['in', 'out'] as const) groups.set(relationLabel(kind, direction), []);
  }
  for (const n of neighbours) {
    for (const label of new Set(n.relations.map((r) => relationLabel(r.kind, r.direction)))) groups.get(label)!.push(n);
  }
  return [...groups.entries()].filter(([, ns]) => ns.length > 0).map(([label, ns]) => ({ label, neighbours: ns }));
}

/** Names listed in a disambiguating line at most, per relation. */
const NAMES_SHOWN = 3;

const names = (links: readonly Link[]): string => {
  const shown = links.slice(0, NAMES_SHOWN).map((l) => l.name);
  return links.length > NAMES_SHOWN ? `${shown.join(', ')} +${links.length - NAMES_SHOWN}` : shown.join(', ');
};

/** The Douban id in an entity id (`movie/douban/1292052` → "Douban subject 1292052"), or null. */
export function sourceIdLabel(id: string): string | null {
  const m = /^(movie|person)\/douban\/(.+)$/u.exec(id);
  return m ? `Douban ${m[1] === 'movie' ? 'subject' : 'celebrity'} ${m[2]}` : null;
}

/**
 * The line that tells an entity from others of the same name: for a film its directors and cast, for a
 * person the films they directed, wrote and acted in, for a character its film and actor, for a genre
 * its number of films; then the Douban id (and the other ids merged into it, when given).
 * @param neighbours all of its neighbours (kg-browse.ts lists them films first)
 */
export function disambiguation(entity: { id: string; kind: EntityKind; neighbourCount?: number; sourceIds?: readonly string[] }, neighbours: readonly Link[]): string {
  const by = (kind: RelationKind | 'IN_MOVIE', direction: 'out' | 'in') => neighbours.filter((n) => n.relations.some((r) => r.kind === kind && r.direction === direction));
  const parts: string[] = [];
  const add = (label: string, links: readonly Link[]) => {
    if (links.length > 0) parts.push(`${label} ${names(links)}`);
  };
  switch (entity.kind) {
    case 'Movie':
      parts.push('film');
      add('directed by', by('DIRECTED', 'in'));
      add('with', by('ACTED_IN', 'in'));
      if (parts.length === 1) add('written by', by('WROTE', 'in'));
      break;
    case 'Person':
      parts.push('person');
      add('directed', by('DIRECTED', 'out'));
      add('acted in', by('ACTED_IN', 'out'));
      add('wrote', by('WROTE', 'out'));
      break;
    case 'Character':
      parts.push('character');
      add('in', by('IN_MOVIE', 'out'));
      add('played by', by('PLAYED', 'in'));
      break;
    case 'Genre':
      parts.push(`genre of ${by('HAS_GENRE', 'in').length} film${by('HAS_GENRE', 'in').length === 1 ? '' : 's'}`);
      break;
  }
  const source = sourceIdLabel(entity.id);
  const others = (entity.sourceIds ?? []).filter((s) => s !== entity.id);
  if (source || entity.kind === 'Movie' || entity.kind === 'Person') parts.push(source ?? 'no Douban id');
  if (others.length > 0) parts.push(`merged from ${others.join(', ')}`);
  return parts.join(' · ');
}
