// KG view: search entities by name or alias, show one entity with its aliases and its neighbourhood
// grouped by kind, each neighbour with the relation kinds that link it; neighbours open in turn.
import { api, byId, chip, clear, h, showError } from './dom.js';
import type { EntityDetail, EntitySummary } from './types.js';

const REL_NAMES: Record<string, string> = {
  DIRECTED: '导演 directed',
  WROTE: '编剧 wrote',
  ACTED_IN: '主演 acted in',
  HAS_GENRE: '类型 genre',
  PLAYED: '饰演 played',
  IN_MOVIE: '角色 of film',
};
const GROUPS: [string, string][] = [
  ['Movie', 'Films'],
  ['Person', 'People'],
  ['Character', 'Characters'],
  ['Genre', 'Genres'],
];

export async function searchKg(query: string): Promise<void> {
  const list = byId('kg-results');
  clear(list);
  const { matches } = await api<{ matches: EntitySummary[] }>(`/api/kg/search?q=${encodeURIComponent(query)}`);
  if (matches.length === 0) {
    list.append(h('li', { class: 'muted' }, `no entity named like “${query}”`));
    return;
  }
  for (const m of matches) {
    const li = h('li', { 'data-id': m.id }, m.name, ' ', chip(m.kind, m.kind));
    li.addEventListener('click', () => void openEntity(m.id).catch(showError));
    list.append(li);
  }
  await openEntity(matches[0].id);
}

export async function openEntity(id: string): Promise<void> {
  const e = await api<EntityDetail>(`/api/kg/entity/${encodeURIComponent(id)}`);
  for (const li of byId('kg-results').querySelectorAll('li')) li.classList.toggle('sel', li.dataset.id === id);
  const card = h('div', { class: 'card', id: 'entity-card' });
  card.append(h('div', { class: 'title' }, e.name, ' ', chip(e.kind, e.kind)));
  card.append(h('div', { class: 'muted small' }, e.id));
  if (e.aliases.length > 0) card.append(h('div', {}, 'aliases: ', e.aliases.join(' · ')));
  if (e.surfaces.length > 0 && e.surfaces.join() !== e.name) card.append(h('div', { class: 'small' }, 'surfaces: ', e.surfaces.join(' · ')));
  card.append(h('div', { class: 'small muted' }, `${e.neighbourCount} neighbour(s)${e.neighbourCount > e.neighbours.length ? `, first ${e.neighbours.length} shown` : ''} · “←”: the neighbour is the relation’s subject (e.g. the director of this film)`));
  for (const [kind, title] of GROUPS) {
    const items = e.neighbours.filter((n) => n.kind === kind);
    if (items.length === 0) continue;
    const group = h('div', { class: 'nb-group' }, h('h3', {}, `${title} (${items.length})`));
    for (const n of items) {
      const rels = [...new Set(n.relations.map((r) => `${REL_NAMES[r.kind] ?? r.kind}${r.direction === 'in' ? ' ←' : ''}`))].join(', ');
      const el = h('span', { class: 'nb', title: n.id, 'data-id': n.id }, chip(n.name, n.kind), h('span', { class: 'rel' }, rels));
      el.addEventListener('click', () => void openEntity(n.id).catch(showError));
      group.append(el);
    }
    card.append(group);
  }
  byId('kg-entity').replaceChildren(card);
}
