import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import { remembered } from '../../cache/remembered.ts';
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
  /** The sets with the answer's model ('' when the answer named none). */
  readonly withResponseModel: (responseModel: string) => ResponseSets;
}

interface ResponseSets {
  readonly completed: Attributes;
  readonly input: Attributes;
  readonly output: Attributes;
  readonly withErrorType: (errorType: string) => Attributes;
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

/** How many attribute sets of each kind are remembered (`remembered` forgets them all past it: a bound, not a limit). */
const rememberedSets = 1_000;
/** Separates the parts of a request set's key: no operation, provider, model or host name holds it. */
const separator = '\u0000';

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
  readonly #requestSets = remembered(requestSetOf, rememberedSets);
  readonly #refusalSets = remembered((code): Attributes => ({ [gatewayAttributes.refusalCode]: code }), rememberedSets);
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
    return this.#requestSets(
      [routed?.operation, routed?.provider, routed?.requestModel, serverAddress]
        .map((part) => part ?? '')
        .join(separator),
    );
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
    this.#refusals.add(1, this.#refusalSets(code));
  }

  ended(set: MetricSet, end: RequestEndMetrics): void {
    const sets = set.withResponseModel(end.responseModel ?? '');
    this.#operationDuration.record(
      end.seconds,
      end.errorType === undefined ? sets.completed : sets.withErrorType(end.errorType),
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

/** A request set from its key (`requestSet`): an empty part is an attribute not known. */
function requestSetOf(key: string): MetricSet {
  const [operation, provider, requestModel, serverAddress] = key.split(separator);
  const attributes: Attributes = {};
  if (operation) attributes[genAiAttributes.operationName] = operation;
  if (provider) attributes[genAiAttributes.providerName] = provider;
  if (requestModel) attributes[genAiAttributes.requestModel] = requestModel;
  if (serverAddress) attributes[genAiAttributes.serverAddress] = serverAddress;
  return {
    key,
    attributes,
    withResponseModel: remembered((responseModel) => responseSetsOf(attributes, responseModel), rememberedSets),
  };
}

/** The sets of a request set with the answer's model: for the duration, for each token type, and with an error. */
function responseSetsOf(request: Attributes, responseModel: string): ResponseSets {
  const completed: Attributes = { ...request };
  if (responseModel !== '') completed[genAiAttributes.responseModel] = responseModel;
  return {
    completed,
    input: { ...completed, [genAiAttributes.tokenType]: 'input' },
    output: { ...completed, [genAiAttributes.tokenType]: 'output' },
    withErrorType: remembered(
      (errorType): Attributes => ({ ...completed, [genAiAttributes.errorType]: errorType }),
      rememberedSets,
    ),
  };
}
