/**
 * A small in-memory cache with a time to live. It saves lookups on the hot path; nothing that must take effect
 * at once (revocation, rotation, suspension) depends on it, because the admission write re-checks those.
 */
export class TtlCache<Value> {
  readonly #entries = new Map<string, { value: Value; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  async getOrLoad(key: string, load: () => Promise<Value | undefined>, now = Date.now()): Promise<Value | undefined> {
    const cached = this.#entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;
    const value = await load();
    if (value !== undefined && this.#ttlMs > 0) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(key, { value, expiresAt: now + this.#ttlMs });
    }
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
