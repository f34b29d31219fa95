// KG view: search entities by name or alias, show one entity with its aliases and its neighbourhood
// grouped by kind, each neighbour with the relation kinds that link it; neighbours open in turn.
import { api, byId, chip, clear, h, Latest, showError } from './dom.js';
import { relationLabel } from '../../src/serve/kg-words.js';
import type { EntityDetail, EntitySummary } from './types.js';

/** The latest search or entity asked for: an older answer arriving later is dropped. */
const asking = new Latest();
const GROUPS: [string, string][] = [
  ['Movie', 'Films'],
  ['Person', 'People'],
  ['Character', 'Characters'],
  ['Genre', 'Genres'],
];

/**
 * Search: the matches, each with the line that tells it from others of the same name, and the first one
 * opened. Nothing of the previous search stays on screen: no match empties the entity card too.
 */
export async function searchKg(query: string): Promise<void> {
  const list = byId('kg-results');
  clear(list);
  clear(byId('kg-entity'));
  const ticket = asking.start();
  const { matches } = await api<{ matches: EntitySummary[] }>(`/api/kg/search?q=${encodeURIComponent(query)}`);
  if (!asking.current(ticket)) return;
  if (matches.length === 0) {
    list.append(h('li', { class: 'muted' }, `no entity named like “${query}”`));
    return;
  }
  for (const m of matches) {
    const li = h('li', { 'data-id': m.id }, m.name, ' ', chip(m.kind, m.kind), m.about ? h('div', { class: 'about' }, m.about) : null);
    li.addEventListener('click', () => void openEntity(m.id).catch(showError));
    list.append(li);
  }
  await openEntity(matches[0].id);
}

export async function openEntity(id: string): Promise<void> {
  const ticket = asking.start();
  const e = await api<EntityDetail>(`/api/kg/entity/${encodeURIComponent(id)}`);
  if (!asking.current(ticket)) return;
  for (const li of byId('kg-results').querySelectorAll('li')) li.classList.toggle('sel', li.dataset.id === id);
  const card = h('div', { class: 'card', id: 'entity-card' });
  card.append(h('div', { class: 'title' }, e.name, ' ', chip(e.kind, e.kind)));
  card.append(h('div', { class: 'muted small' }, e.id));
  if (e.about) card.append(h('div', { class: 'about' }, e.about));
  if (e.aliases.length > 0) card.append(h('div', {}, 'aliases: ', e.aliases.join(' · ')));
  if (e.surfaces.length > 0 && e.surfaces.join() !== e.name) card.append(h('div', { class: 'small' }, 'surfaces: ', e.surfaces.join(' · ')));
  card.append(h('div', { class: 'small muted' }, `${e.neighbourCount} neighbour(s)${e.neighbourCount > e.neighbours.length ? `, first ${e.neighbours.length} shown` : ''}`));
  for (const [kind, title] of GROUPS) {
    const items = e.neighbours.filter((n) => n.kind === kind);
    if (items.length === 0) continue;
    const group = h('div', { class: 'nb-group' }, h('h3', {}, `${title} (${items.length})`));
    for (const n of items) {
      const rels = [...new Set(n.relations.map((r) => relationLabel(r.kind, r.direction)))].join(', ');
      const el = h('span', { class: 'nb', title: n.id, 'data-id': n.id }, chip(n.name, n.kind), h('span', { class: 'rel' }, rels));
      el.addEventListener('click', () => void openEntity(n.id).catch(showError));
      group.append(el);
    }
    card.append(group);
  }
  byId('kg-entity').replaceChildren(card);
}
