import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGatewayServices } from '../../shared/config/gateway-services.ts';
import { logger } from '../../shared/observability/logger.ts';
import type { ClosedRequest } from '../../shared/store/usage-records.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

/*
 * Issue 19 item 6: work that outlives its store (a rollup flush still due when a host or a test closed the store)
 * has nothing to do and says nothing: no "rollup flush failed", no "database connection is not open".
 */

let engine: TestStore | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await engine?.close();
  engine = undefined;
});

function closedRequest(id: string): ClosedRequest {
  return {
    record: {
      id,
      memberId: 'mem_closed_store',
      keyId: 'key_closed_store',
      provider: 'openai',
      model: 'openai/m',
      connectionId: 'con_closed_store',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: false,
      startedAt: '2025-03-04T05:06:07.000Z',
      day: '2025-03-04',
      reserved: 50,
      state: 'running',
    },
    outcome: {
      state: 'completed',
      status: 200,
      endedAt: '2025-03-04T05:06:08.000Z',
      durationMs: 1_000,
      inputTokens: 4,
      cachedInputTokens: null,
      outputTokens: 1,
      charge: 5,
      source: 'measured',
    },
  };
}

/** Everything the process logs or prints while `work` runs. */
async function printedDuring(work: () => Promise<void>): Promise<string> {
  const printed: string[] = [];
  const capture = (...parts: unknown[]) => {
    printed.push(parts.map((part) => (part instanceof Error ? part.message : JSON.stringify(part))).join(' '));
  };
  for (const level of ['error', 'warn', 'info'] as const) vi.spyOn(logger, level).mockImplementation(capture);
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
  }
  try {
    await work();
  } finally {
    vi.restoreAllMocks();
  }
  return printed.join('\n');
}

describe('a rollup flush that finds its store closed', () => {
  for (const name of ['sqlite', 'dynalite'] as const) {
    it(`on ${name}: drops its batch and prints nothing`, async () => {
      const opened = await startTestStore(name);
      engine = opened;
      // A folder as the gateway builds it (its real error reporter), with a flush due in a minute.
      const services = createGatewayServices(opened.services.config, opened.store);
      services.rollupFolder.add(closedRequest(`req_after_close_${name}`));
      expect(services.rollupFolder.oldestWaitMs()).toBeGreaterThanOrEqual(0);
      const printed = await printedDuring(async () => {
        await opened.store.close();
        await services.rollupFolder.flush();
      });
      expect(printed).not.toMatch(/rollup flush failed|not open/i);
      expect(printed).toBe('');
      // Nothing left waiting to be tried again (and failed again, loudly) by the folder's timer.
      expect(services.rollupFolder.oldestWaitMs()).toBe(0);
    });
  }

  it('still reports a store that refuses the write while it is open', async () => {
    const opened = await startTestStore('sqlite');
    engine = opened;
    const services = createGatewayServices(opened.services.config, opened.store);
    const endFault = opened.makeUnavailable();
    services.rollupFolder.add(closedRequest('req_refused_while_open'));
    const printed = await printedDuring(() => services.rollupFolder.flush());
    endFault();
    expect(printed).toContain('rollup flush failed');
    await services.rollupFolder.flush();
    expect(services.rollupFolder.oldestWaitMs()).toBe(0);
  });
});
