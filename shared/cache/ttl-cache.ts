import { monotonicNow } from '../clock/monotonic-deadline.ts';

/**
 * A small in-memory cache with a time to live. It saves lookups on the hot path; nothing that must take effect
 * at once (revocation, rotation, suspension) depends on it, because the admission write re-checks those.
 *
 * Concurrent misses of one key share one load, and a value that has just expired is served while a single
 * refresh runs in the background, so a burst of requests at the moment of expiry does not turn into a burst of
 * store reads before dispatch. A value older than twice the time to live is never served: the caller waits.
 */
export class TtlCache<Value> {
  readonly #entries = new Map<string, { value: Value; loadedAt: number }>();
  readonly #loading = new Map<string, Promise<Value | undefined>>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  async getOrLoad(
    key: string,
    load: () => Promise<Value | undefined>,
    now = monotonicNow(),
  ): Promise<Value | undefined> {
    const cached = this.#entries.get(key);
    const age = cached ? now - cached.loadedAt : Number.POSITIVE_INFINITY;
    if (cached && age < this.#ttlMs) return cached.value;
    const refresh = this.#refresh(key, load);
    if (cached && age < this.#ttlMs * 2) {
      // The refresh's failure is seen by whoever waits on it next; the stale value stands until then.
      refresh.catch(() => undefined);
      return cached.value;
    }
    return refresh;
  }

  clear(): void {
    this.#entries.clear();
    this.#loading.clear();
  }

  #refresh(key: string, load: () => Promise<Value | undefined>): Promise<Value | undefined> {
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const loading = load()
      .then((value) => {
        if (value === undefined) {
          this.#entries.delete(key);
        } else if (this.#ttlMs > 0 && this.#loading.get(key) === loading) {
          if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
          this.#entries.set(key, { value, loadedAt: monotonicNow() });
        }
        return value;
      })
      .finally(() => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
      });
    this.#loading.set(key, loading);
    return loading;
  }
}
