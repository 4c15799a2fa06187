/**
 * Stands in for `mnemonist/lru-cache` in the Lambda bundles (infra/lambda-bundling.ts aliases it here). The
 * DynamoDB client's endpoint discovery keeps its endpoints in one (@aws-sdk/endpoint-cache), and mnemonist's,
 * with the typed arrays and iterators it brings, is about 7 KB of every bundle for a cache the gateway never fills:
 * endpoint discovery is off unless a client turns it on. This is the part of its interface that cache calls.
 */
export default class LRUCache<Key, Value> {
  readonly #entries = new Map<Key, Value>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#entries.size;
  }

  has(key: Key): boolean {
    return this.#entries.has(key);
  }

  /** The value without marking it recently used. */
  peek(key: Key): Value | undefined {
    return this.#entries.get(key);
  }

  get(key: Key): Value | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as Value;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: Key, value: Value): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value as Key;
      this.#entries.delete(oldest);
    }
    return this;
  }

  clear(): void {
    this.#entries.clear();
  }
}
