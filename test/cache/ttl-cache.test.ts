import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../shared/cache/ttl-cache.ts';
import { monotonicNow } from '../../shared/clock/monotonic-deadline.ts';

function counter() {
  let loads = 0;
  let release: (value: string) => void = () => {};
  return {
    load: () => {
      loads++;
      return new Promise<string | undefined>((resolve) => {
        release = resolve;
      });
    },
    release: (value: string) => release(value),
    get loads() {
      return loads;
    },
  };
}

describe('TtlCache', () => {
  it('shares one load among concurrent misses of a key', async () => {
    const cache = new TtlCache<string>(1_000);
    const source = counter();
    const answers = Array.from({ length: 50 }, () => cache.getOrLoad('k', source.load));
    source.release('v1');
    expect(await Promise.all(answers)).toEqual(Array(50).fill('v1'));
    expect(source.loads).toBe(1);
  });

  it('serves a just-expired value while one refresh runs, then the refreshed one', async () => {
    const cache = new TtlCache<string>(1_000);
    const first = counter();
    const loaded = cache.getOrLoad('k', first.load);
    first.release('old');
    await loaded;
    const later = monotonicNow() + 1_500;
    const second = counter();
    expect(await cache.getOrLoad('k', second.load, later)).toBe('old');
    expect(await cache.getOrLoad('k', second.load, later)).toBe('old');
    expect(second.loads).toBe(1);
    second.release('new');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.getOrLoad('k', second.load)).toBe('new');
  });

  it('never serves a value older than twice its time to live, and forgets what clear() drops', async () => {
    const cache = new TtlCache<string>(1_000);
    const first = counter();
    const loaded = cache.getOrLoad('k', first.load);
    first.release('old');
    await loaded;
    const second = counter();
    const waiting = cache.getOrLoad('k', second.load, monotonicNow() + 2_500);
    second.release('new');
    expect(await waiting).toBe('new');
    cache.clear();
    const third = counter();
    const afterClear = cache.getOrLoad('k', third.load);
    third.release('fresh');
    expect(await afterClear).toBe('fresh');
  });

  it('caches nothing with a time to live of 0', async () => {
    const cache = new TtlCache<string>(0);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.getOrLoad('k', load)).toBe('v1');
    expect(await cache.getOrLoad('k', load)).toBe('v2');
  });
});
