// Shapes of the JSON API of `filmkw serve`: the server's own types (type-only imports, erased from the bundle).
import type { ViewResult, ViewKeyword, ViewNode, ViewEdge } from '../../src/serve/analyze.js';
import type { EntityDetail, EntitySummary } from '../../src/serve/kg-browse.js';
import type { queryBatch } from '../../src/serve/batch.js';
import type { KeywordExplain } from '../../src/pipeline/api.js';

export type { EntityDetail, EntitySummary, ViewNode, ViewEdge };
export type Explain = KeywordExplain;
export type Keyword = ViewKeyword;
export type ExtractResult = ViewResult;
export type BatchPage = ReturnType<typeof queryBatch> & { records: { hits?: string[] }[] };

/** `GET /api/info`. */
export interface Info {
  presets: string[];
  preset: string;
  topK: number;
  kg: { label: string; entities: number; relations: number };
  batch: { index: number; name: string; records: number; hasText: boolean; hasGold: boolean }[];
}

/** `GET /api/samples`. */
export interface Sample {
  id: string;
  title?: string;
  text: string;
  tag?: string[];
}
