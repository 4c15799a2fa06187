import type { SeedRequest } from '../usage/seed-usage.ts';

const routes = [
  { provider: 'alpha', model: 'alpha-k3', upstream: 'lb', weight: 5 },
  { provider: 'alpha', model: 'alpha-k2.7-code', upstream: 'lb2', weight: 3 },
  { provider: 'beta', model: 'beta-4-31b', upstream: 'beta', weight: 2 },
  { provider: 'gamma', model: 'gamma', upstream: 'gamma', weight: 1 },
];

/** A deterministic pseudo-random sequence, so the page shows the same traffic on every run. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Two weeks of a small team's traffic for one member's two keys: several providers and upstreams, some failed
 * requests, breakdowns sometimes unknown, two requests still running.
 */
export function pageTraffic(input: { memberId: string; keyIds: [string, string]; now: string }): SeedRequest[] {
  const random = sequence(42);
  const totalWeight = routes.reduce((sum, route) => sum + route.weight, 0);
  const seeds: SeedRequest[] = [];
  const now = Date.parse(input.now);
  for (let index = 0; index < 240; index++) {
    const pick = random() * totalWeight;
    let reached = 0;
    const route = routes.find((candidate) => {
      reached += candidate.weight;
      return pick < reached;
    });
    if (!route) throw new Error('no route');
    const minutesAgo = Math.floor(random() ** 1.6 * 13.5 * 24 * 60) + 5;
    const failed = random() < 0.06;
    const unknownCache = random() < 0.2;
    const input_ = 200 + Math.floor(random() * 4_000);
    const output = 20 + Math.floor(random() * 900);
    seeds.push({
      memberId: input.memberId,
      keyId: input.keyIds[random() < 0.65 ? 0 : 1],
      startedAt: new Date(now - minutesAgo * 60_000).toISOString(),
      ...route,
      state: failed ? 'failed' : 'completed',
      status: failed ? 502 : 200,
      inputTokens: failed ? null : input_,
      cachedInputTokens: failed || unknownCache ? null : Math.floor(input_ * random() * 0.5),
      outputTokens: failed ? null : output,
      charge: failed ? 4_096 : input_ + output,
      durationMs: 400 + Math.floor(random() * 20_000),
    });
  }
  for (const [minutesAgo, keyId] of [
    [1, input.keyIds[0]],
    [2, input.keyIds[1]],
  ] as const) {
    seeds.push({
      memberId: input.memberId,
      keyId,
      startedAt: new Date(now - minutesAgo * 60_000).toISOString(),
      state: 'running',
    });
  }
  return seeds;
}
