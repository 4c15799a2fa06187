import type { DynamoStore } from '../shared/store/dynamodb/dynamo-store.ts';
import type { GatewayStore } from '../shared/store/store-port.ts';

/** One store call as the SDK made it: which command, when it left, when its answer was back, and how many tries. */
export interface StoreCall {
  command: string;
  startedAt: number;
  endedAt: number | undefined;
  attempts: number;
}

/**
 * Counts store calls. On DynamoDB, by instrumenting the engine's own client: a middleware at the start of the stack
 * sees every command (key lookups, admission, records, rollups), and the SDK's `$metadata.attempts` adds the
 * retries, so the count is what went over the wire. On SQLite, where a call is a transaction on the gateway's own
 * thread, by wrapping each verb of the store port: the count is transactions, named `part.verb`.
 */
export class StoreRoundTrips {
  /** Each call, kept only while `detailed` is on: under load, keeping them would itself grow the memory measured. */
  readonly calls: StoreCall[] = [];
  detailed = false;
  #total = 0;

  constructor(store: GatewayStore) {
    if (store.engine === 'dynamodb') this.#instrumentClient(store as DynamoStore);
    else this.#instrumentVerbs(store);
  }

  #begin(command: string): StoreCall {
    const call: StoreCall = { command, startedAt: performance.now(), endedAt: undefined, attempts: 1 };
    if (this.detailed) this.calls.push(call);
    return call;
  }

  #end(call: StoreCall): void {
    call.endedAt = performance.now();
    this.#total += call.attempts;
  }

  #instrumentClient(store: DynamoStore): void {
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        const call = this.#begin((context.commandName ?? 'unknown').replace(/Command$/, ''));
        try {
          const result = await next(args);
          const metadata = (result.output as { $metadata?: { attempts?: number } }).$metadata;
          call.attempts = metadata?.attempts ?? 1;
          return result;
        } catch (error) {
          // A refused condition is a round trip too; the SDK puts its metadata on the error.
          call.attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
          throw error;
        } finally {
          this.#end(call);
        }
      },
      { step: 'initialize', name: 'benchStoreRoundTrips', priority: 'high' },
    );
  }

  #instrumentVerbs(store: GatewayStore): void {
    const parts = ['members', 'keys', 'connections', 'admission', 'records', 'rollups', 'legacyUsage'] as const;
    for (const part of parts) {
      const verbs = store[part] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      for (const [name, verb] of Object.entries(verbs)) {
        const command = `${part}.${name}`;
        verbs[name] = async (...args: unknown[]) => {
          // Outside the counted requests only the total is kept: the counter must cost the gateway next to nothing.
          if (!this.detailed) {
            try {
              return await verb(...args);
            } finally {
              this.#total++;
            }
          }
          const call = this.#begin(command);
          try {
            return await verb(...args);
          } finally {
            this.#end(call);
          }
        };
      }
    }
  }

  /** Round trips so far, retries included. */
  total(): number {
    return this.#total;
  }

  clear(): void {
    this.calls.length = 0;
  }
}

export interface RoundTripSplit {
  /** Answered before the upstream call left: the client waited for these. */
  beforeDispatch: string[];
  /** Sent before the upstream call but answered after it left: they ran alongside it. */
  alongsideDispatch: string[];
  /** Sent after the upstream call left (settlement). */
  afterDispatch: string[];
}

/** Splits the calls of ONE request around the moment its upstream call left. */
export function splitAroundDispatch(calls: readonly StoreCall[], dispatchedAt: number | undefined): RoundTripSplit {
  const split: RoundTripSplit = { beforeDispatch: [], alongsideDispatch: [], afterDispatch: [] };
  for (const call of calls) {
    const names = Array.from({ length: call.attempts }, () => call.command);
    if (dispatchedAt === undefined || call.startedAt > dispatchedAt) split.afterDispatch.push(...names);
    else if (call.endedAt !== undefined && call.endedAt <= dispatchedAt) split.beforeDispatch.push(...names);
    else split.alongsideDispatch.push(...names);
  }
  return split;
}
