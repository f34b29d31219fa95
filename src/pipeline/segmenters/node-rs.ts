/**
 * @node-rs/jieba backend (jieba-rs through napi-rs).
 *
 * Instances are independent (no module-global state), so any number of segmenters with different user
 * dictionaries can live in one thread, and worker threads each hold their own (~38 MB per instance).
 *
 * Load order. jieba-rs keeps the ORIGINAL tag of a word that is already in the dictionary when the same
 * word is loaded again, but takes the new frequency. To make the user dictionary act as in nodejieba
 * (user tag AND user frequency win over the base entry), a lexicon-on instance loads
 * user → base → user: the first pass fixes the tags, the base pass adds the general lexicon (and
 * overwrites the user frequencies of words it also holds), the last pass restores the user
 * frequencies. Verified by test/pipeline/segment.test.ts (长津湖 is `ns` in the base dictionary and
 * comes out with the user tag `nz`, and a user frequency changes the split in both backends alike).
 */
import { Jieba } from '@node-rs/jieba';
import { NODE_RS_BASE, nodeRsBaseDict } from '../../lexicon/base.js';
import type { RawTagged } from './common.js';


export interface NodeRsTagger {
  readonly base: string;
  readonly jieba: Jieba;
  tag(text: string): RawTagged[];
}

export function createNodeRsTagger(userDictText: string): NodeRsTagger {
  let jieba: Jieba;
  if (userDictText === '') {
    jieba = Jieba.withDict(nodeRsBaseDict());
  } else {
    const user = Buffer.from(userDictText);
    jieba = new Jieba();
    jieba.loadDict(user);
    jieba.loadDict(nodeRsBaseDict());
    jieba.loadDict(user);
  }
  return {
    base: NODE_RS_BASE,
    jieba,
    tag(text: string): RawTagged[] {
      // hmm = true: the same mixed (dictionary + HMM for unknown runs) mode as nodejieba's tag.
      return jieba.tag(text, true);
    },
  };
}
