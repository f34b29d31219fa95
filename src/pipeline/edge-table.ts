/**
 * The edge table of the word graph (graph.ts), apart from the algorithm as graphology keeps its indices:
 * one row per undirected node pair {a, b} (stored a ≤ b; a = b is a self-loop), with the columns the
 * graph stage fills (M^co of eq. 1, M^kg of eq. 2, sm of eq. 8), and an open-addressing hash from the
 * pair to its row.
 */

import { arena } from '../util/arena.js';

/**
 * Growable edge table keyed by the node pair: columns in typed arrays and an open-addressing hash
 * (linear probing on an Int32Array of edge indices) — a JS Map here cost more than the rest of the
 * graph stage together (profiled on the Douban reviews).
 */
export class EdgeTable {
  size = 0;
  source: Int32Array;
  target: Int32Array;
  cooc: Float64Array;
  kg: Float64Array;
  sem: Float64Array;
  private slots: Int32Array;
  private mask: number;
  constructor(capacity: number) {
    capacity = Math.max(capacity, 16);
    let slots = 32;
    while (slots < capacity * 2) slots <<= 1;
    // the integer and the number columns are views of one buffer each (util/arena.ts)
    const ints = arena(new Int32Array(2 * capacity + slots));
    const floats = arena(new Float64Array(3 * capacity));
    this.source = ints(capacity);
    this.target = ints(capacity);
    this.cooc = floats(capacity);
    this.kg = floats(capacity);
    this.sem = floats(capacity);
    this.slots = ints(slots).fill(-1);
    this.mask = slots - 1;
  }
  private static hash(a: number, b: number): number {
    return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> 0;
  }
  /** The slot of the pair a ≤ b: the one holding its edge, or the empty one where it would go. */
  private probe(a: number, b: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let h = EdgeTable.hash(a, b) & mask;
    for (;;) {
      const e = slots[h];
      if (e < 0 || (this.source[e] === a && this.target[e] === b)) return h;
      h = (h + 1) & mask;
    }
  }
  /** Index of the edge {a, b}, created when absent. */
  edge(a: number, b: number): number {
    if (a > b) {
      const t = a;
      a = b;
      b = t;
    }
    const h = this.probe(a, b);
    const found = this.slots[h];
    if (found >= 0) return found;
    if (this.size === this.source.length) this.grow();
    const e = this.size++;
    this.source[e] = a;
    this.target[e] = b;
    if (this.size * 2 > this.slots.length) this.rehash();
    else this.slots[h] = e;
    return e;
  }
  /** Index of the edge {a, b}, or -1. */
  find(a: number, b: number): number {
    return a > b ? this.slots[this.probe(b, a)] : this.slots[this.probe(a, b)];
  }
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let e = 0; e < this.size; e++) {
      let h = EdgeTable.hash(this.source[e], this.target[e]) & mask;
      while (slots[h] >= 0) h = (h + 1) & mask;
      slots[h] = e;
    }
    this.slots = slots;
    this.mask = mask;
  }
  private grow(): void {
    const capacity = this.source.length * 2;
    const grow32 = (x: Int32Array) => {
      const y = new Int32Array(capacity);
      y.set(x);
      return y;
    };
    const grow64 = (x: Float64Array) => {
      const y = new Float64Array(capacity);
      y.set(x);
      return y;
    };
    this.source = grow32(this.source);
    this.target = grow32(this.target);
    this.cooc = grow64(this.cooc);
    this.kg = grow64(this.kg);
    this.sem = grow64(this.sem);
  }
}
