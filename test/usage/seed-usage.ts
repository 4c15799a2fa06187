import { randomUUID } from 'node:crypto';
import { mapWithConcurrency } from '../../shared/async-work/map-with-concurrency.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import type { RecordOutcome, RunningRecord } from '../../shared/store/usage-records.ts';

export interface SeedRequest {
  memberId: string;
  keyId: string;
  startedAt: string;
  provider?: string;
  model?: string;
  upstream?: string;
  state?: 'running' | 'completed' | 'failed';
  status?: number;
  inputTokens?: number | null;
  cachedInputTokens?: number | null;
  outputTokens?: number | null;
  charge?: number;
  durationMs?: number;
}

/**
 * Writes one request the way the gateway does: admission's running record, then settlement's close and rollup.
 * Closed requests skip the running write, as when it lost the race to settlement: closeRecord then writes the
 * whole record, which keeps seeding a thousand requests quick.
 */
export async function seedRequest(services: GatewayServices, seed: SeedRequest): Promise<RunningRecord> {
  const record: RunningRecord = {
    id: `req_${randomUUID()}`,
    memberId: seed.memberId,
    keyId: seed.keyId,
    provider: seed.provider ?? 'alpha',
    model: seed.model ?? 'alpha-k3',
    connectionId: 'con_seeded',
    upstream: seed.upstream ?? 'lb',
    wire: 'openai-chat',
    stream: false,
    startedAt: seed.startedAt,
    day: seed.startedAt.slice(0, 10),
    reserved: 1_000,
    state: 'running',
  };
  const state = seed.state ?? 'completed';
  if (state === 'running') {
    await services.store.records.putRunning(record);
    return record;
  }
  const durationMs = seed.durationMs ?? 1_500;
  const outcome: RecordOutcome = {
    state,
    status: seed.status ?? (state === 'completed' ? 200 : 502),
    endedAt: new Date(Date.parse(seed.startedAt) + durationMs).toISOString(),
    durationMs,
    inputTokens: seed.inputTokens === undefined ? 100 : seed.inputTokens,
    cachedInputTokens: seed.cachedInputTokens === undefined ? 20 : seed.cachedInputTokens,
    outputTokens: seed.outputTokens === undefined ? 50 : seed.outputTokens,
    charge: seed.charge ?? 150,
    source: seed.inputTokens === null || seed.outputTokens === null ? 'conservative' : 'measured',
  };
  const closed = { record, outcome };
  if (await services.store.records.close(closed)) await services.store.rollups.add([closed]);
  return record;
}

export function seedRequests(services: GatewayServices, seeds: readonly SeedRequest[]): Promise<RunningRecord[]> {
  return mapWithConcurrency(seeds, 16, (seed) => seedRequest(services, seed));
}

/** `count` timestamps, one every `stepMs` going back from `newest`. */
export function timesBackFrom(newest: string, count: number, stepMs: number): string[] {
  return Array.from({ length: count }, (_, index) => new Date(Date.parse(newest) - index * stepMs).toISOString());
}
