import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import type { RoutedRequest } from '../request-trace.ts';
import { gatewayAttributes, gatewayMetricNames, genAiAttributes, genAiMetricNames } from './semantic-names.ts';

/**
 * One request's low-cardinality metric attributes (operation, provider, requested model and, once known, the
 * upstream's address): metrics never carry member, key or request ids. Built once per distinct set and kept, with
 * the sets derived from it by the answer's model, so a request allocates no attribute object.
 */
export interface MetricSet {
  readonly key: string;
  readonly attributes: Attributes;
  readonly byResponseModel: Map<string | undefined, ResponseSets>;
}

interface ResponseSets {
  readonly completed: Attributes;
  readonly input: Attributes;
  readonly output: Attributes;
  readonly byErrorType: Map<string, Attributes>;
}

export interface RequestEndMetrics {
  seconds: number;
  responseModel: string | undefined;
  errorType: string | undefined;
  inputTokens: number | null;
  outputTokens: number | null;
  accountingSource: string;
  state: string;
}

/** Attribute sets beyond this many are not kept for reuse (they are still recorded): a bound on the caches. */
const maxCachedSets = 4096;

/**
 * The GenAI client metrics and the gateway's own, as few SDK calls per request as the data allows. The SDK hashes
 * every attribute set it is handed (sorted keys, JSON) on every synchronous record, which was most of what metrics
 * cost a request, so:
 * - the two figures that are state, not events — tokens reserved and not yet settled, and settlements by source and
 *   state — are kept here as plain numbers per attribute set and read by observable instruments when the reader
 *   collects (every export interval, or a Lambda invocation's flush), not hashed per request;
 * - the histograms (duration, tokens, time to first chunk) stay synchronous, and each distinct attribute set is built
 *   once and reused, so a request allocates none.
 */
export class GatewayMetrics {
  readonly #tokenUsage: Histogram;
  readonly #operationDuration: Histogram;
  readonly #timeToFirstChunk: Histogram;
  readonly #refusals: Counter;
  readonly #sets = new Map<string, MetricSet>();
  readonly #refusalSets = new Map<string, Attributes>();
  /** Tokens reserved and not yet settled, by the request's set. */
  readonly #outstanding = new Map<string, { attributes: Attributes; tokens: number }>();
  /** Settlements since start, by accounting source and state. */
  readonly #settlements = new Map<string, { attributes: Attributes; count: number }>();

  constructor(meter: Meter) {
    this.#tokenUsage = meter.createHistogram(genAiMetricNames.tokenUsage, {
      unit: '{token}',
      description: 'Number of input and output tokens used.',
      advice: {
        explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216],
      },
    });
    this.#operationDuration = meter.createHistogram(genAiMetricNames.operationDuration, {
      unit: 's',
      description: 'GenAI operation duration.',
      advice: {
        explicitBucketBoundaries: [
          0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
        ],
      },
    });
    this.#timeToFirstChunk = meter.createHistogram(genAiMetricNames.timeToFirstChunk, {
      unit: 's',
      description: 'Time from the request to the first chunk of a streamed answer.',
      advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24] },
    });
    this.#refusals = meter.createCounter(gatewayMetricNames.refusals, {
      description: 'Requests refused before dispatch, by the gateway code.',
    });
    meter
      .createObservableUpDownCounter(gatewayMetricNames.reservationsOutstanding, {
        unit: '{token}',
        description: 'Tokens reserved by admitted requests that have not settled yet.',
      })
      .addCallback((result) => {
        for (const { attributes, tokens } of this.#outstanding.values()) result.observe(tokens, attributes);
      });
    meter
      .createObservableCounter(gatewayMetricNames.settlements, {
        description: 'Settled requests, by accounting source and state.',
      })
      .addCallback((result) => {
        for (const { attributes, count } of this.#settlements.values()) result.observe(count, attributes);
      });
  }

  /** The set of a routed request, with the upstream's address once it is known. */
  requestSet(routed: RoutedRequest | undefined, serverAddress: string | undefined): MetricSet {
    const key = routed
      ? `${routed.operation}\n${routed.provider}\n${routed.requestModel}\n${serverAddress ?? ''}`
      : `\n\n\n${serverAddress ?? ''}`;
    const cached = this.#sets.get(key);
    if (cached) return cached;
    const attributes: Attributes = {};
    if (routed) {
      attributes[genAiAttributes.operationName] = routed.operation;
      attributes[genAiAttributes.providerName] = routed.provider;
      attributes[genAiAttributes.requestModel] = routed.requestModel;
    }
    if (serverAddress !== undefined) attributes[genAiAttributes.serverAddress] = serverAddress;
    const set: MetricSet = { key, attributes, byResponseModel: new Map() };
    if (this.#sets.size < maxCachedSets) this.#sets.set(key, set);
    return set;
  }

  reserved(set: MetricSet, tokens: number): void {
    const entry = this.#outstanding.get(set.key);
    if (entry) entry.tokens += tokens;
    else this.#outstanding.set(set.key, { attributes: set.attributes, tokens });
  }

  /** The reservation is released under the set it was taken under, so each set's figure returns to zero. */
  released(set: MetricSet, tokens: number): void {
    this.reserved(set, -tokens);
  }

  firstChunk(set: MetricSet, seconds: number): void {
    this.#timeToFirstChunk.record(seconds, set.attributes);
  }

  refused(code: string): void {
    let attributes = this.#refusalSets.get(code);
    if (!attributes) {
      attributes = { [gatewayAttributes.refusalCode]: code };
      if (this.#refusalSets.size < maxCachedSets) this.#refusalSets.set(code, attributes);
    }
    this.#refusals.add(1, attributes);
  }

  ended(set: MetricSet, end: RequestEndMetrics): void {
    const sets = responseSets(set, end.responseModel);
    this.#operationDuration.record(
      end.seconds,
      end.errorType === undefined ? sets.completed : errorSet(sets, end.errorType),
    );
    if (end.inputTokens !== null) this.#tokenUsage.record(end.inputTokens, sets.input);
    if (end.outputTokens !== null) this.#tokenUsage.record(end.outputTokens, sets.output);
    const settlementKey = `${end.accountingSource}\n${end.state}`;
    const settlement = this.#settlements.get(settlementKey);
    if (settlement) settlement.count++;
    else {
      this.#settlements.set(settlementKey, {
        attributes: {
          [gatewayAttributes.accountingSource]: end.accountingSource,
          [gatewayAttributes.state]: end.state,
        },
        count: 1,
      });
    }
  }
}

/** The sets of a request set with the answer's model: for the duration, and for each token type. */
function responseSets(set: MetricSet, responseModel: string | undefined): ResponseSets {
  const cached = set.byResponseModel.get(responseModel);
  if (cached) return cached;
  const base: Attributes = { ...set.attributes };
  if (responseModel !== undefined) base[genAiAttributes.responseModel] = responseModel;
  const sets: ResponseSets = {
    completed: base,
    input: { ...base, [genAiAttributes.tokenType]: 'input' },
    output: { ...base, [genAiAttributes.tokenType]: 'output' },
    byErrorType: new Map(),
  };
  if (set.byResponseModel.size < maxCachedSets) set.byResponseModel.set(responseModel, sets);
  return sets;
}

function errorSet(sets: ResponseSets, errorType: string): Attributes {
  let attributes = sets.byErrorType.get(errorType);
  if (!attributes) {
    attributes = { ...sets.completed, [genAiAttributes.errorType]: errorType };
    if (sets.byErrorType.size < maxCachedSets) sets.byErrorType.set(errorType, attributes);
  }
  return attributes;
}
