/**
 * A bounded, approximately least-recently-used map. A `Map` keeps insertion order, so re-inserting an entry makes the
 * first key the least recently used one. Re-inserting on every read costs a delete and an insert on the hottest path
 * of a resource server (one token read thousands of times a second), so a read re-inserts an entry only once it has
 * fallen into the older half of the map: an entry in the newer half has at least half the map between it and
 * eviction already. Eviction takes the oldest insertion. Kept here rather than taken from a transitive dependency the
 * workspace does not declare.
 */
export class BoundedLru<K, V> {
  readonly #entries = new Map<K, { value: V; stamp: number }>();
  /** Counts insertions; an entry's `stamp` is the count when it was last inserted. */
  #clock = 0;

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError('maxEntries must be a positive integer');
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, marked as recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#clock - entry.stamp >= Math.ceil(this.#entries.size / 2)) {
      this.#entries.delete(key);
      entry.stamp = ++this.#clock;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /** Stores the value as most recently used, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, stamp: ++this.#clock });
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as K;
      this.#entries.delete(oldest);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
