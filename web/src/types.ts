// Shapes of the JSON API of `filmkw serve` (src/serve/server.ts, src/serve/analyze.ts).
export interface Explain {
  cooc: number;
  kg: number;
  sem: number;
  position?: number;
  rank?: number;
  idf?: number;
  neighbours: { word: string; cooc: number; kg: number; sem: number }[];
  phrase?: { words: { word: string; score: number }[]; occurrences: number };
}
export interface Keyword {
  rank: number;
  word: string;
  score: number;
  kind?: string;
  entityId?: string;
  explain?: Explain;
}
export interface ViewNode {
  word: string;
  rank: number;
  count: number;
  kind?: string;
  entityId?: string;
  keyword?: number;
}
export interface ViewEdge {
  source: number;
  target: number;
  cooc: number;
  kg: number;
  sem: number;
  weight: number;
  kinds: ('cooc' | 'kg' | 'sem')[];
}
export interface ExtractResult {
  preset: string;
  topK: number;
  keywords: Keyword[];
  occurrences: { start: number; end: number; node: number }[];
  phraseSpans: { start: number; end: number; keyword: number }[];
  nodes: ViewNode[];
  edges: ViewEdge[];
  ms: number;
}
export interface Info {
  presets: string[];
  preset: string;
  topK: number;
  kg: { label: string; entities: number; relations: number };
  batch: { index: number; name: string; records: number; hasText: boolean; hasGold: boolean }[];
}
export interface Sample {
  id: string;
  title?: string;
  text: string;
  tag?: string[];
}
export interface EntitySummary {
  id: string;
  kind: string;
  name: string;
}
export interface EntityDetail extends EntitySummary {
  aliases: string[];
  surfaces: string[];
  movieId?: string;
  neighbours: (EntitySummary & { relations: { kind: string; direction: 'out' | 'in'; movieId?: string }[] })[];
  neighbourCount: number;
}
export interface BatchPage {
  name: string;
  total: number;
  matched: number;
  offset: number;
  records: { index: number; id: string | null; line: number; keywords: { word: string; score: number; kind?: string; entityId?: string }[]; error?: string; text?: string; gold?: string[]; hits?: string[] }[];
  top: { word: string; count: number; kind?: string; entityId?: string }[];
}
