import { looksLikeCredential } from '../auth/credential-like.ts';
import { knownModels, modelsOfConnection } from '../catalog/known-models.ts';
import { startRequestDeadline, startStopwatch } from '../clock/monotonic-deadline.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { badRequest, GatewayError, notFound } from '../http/gateway-error.ts';
import { upstreamNetworkFor } from '../net/upstream-address.ts';
import { logger } from '../observability/logger.ts';
import { dispatchUpstream, readUpstreamText } from '../pipeline/dispatch-upstream.ts';
import { requestToSend } from '../pipeline/forwarded-headers.ts';
import { upstreamTargetOf } from '../pipeline/upstream-target.ts';
import type { ConnectionItem } from '../store/control-items.ts';
import { exceptionName } from '../wires/bedrock/bedrock-errors.ts';
import { upstreamWireOfModel } from '../wires/model-wire.ts';
import type { UpstreamHttpRequest, UpstreamTarget, UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import { upstreamWireFor } from '../wires/upstream-wires.ts';

/** Longest a connection test waits for each call (less where the upstream time-out is shorter). */
export const connectionTestTimeoutMs = 10_000;
/** The most model ids a report lists; the count says how many the upstream's page held. */
const maxListedIds = 1_000;

/** Why a call of a connection test did not succeed, as a machine-readable code and a sentence. */
export interface ProbeFailure {
  code:
    | 'upstream_status'
    | 'upstream_invalid_response'
    | 'upstream_unreachable'
    | 'upstream_timeout'
    | 'upstream_redirect_refused'
    | 'upstream_address_refused'
    | 'credential_unavailable'
    | 'aws_credentials_unavailable';
  reason: string;
  /** Amazon Bedrock's own error code (`AccessDeniedException`, `ResourceNotFoundException`…), where it gave one. */
  awsError?: string;
}

/** One call a connection test made, and what came of it. */
export interface ConnectionProbe {
  call: 'model-list' | 'generation';
  method: 'GET' | 'POST';
  /** The upstream address called, without its query. */
  url: string;
  /** The model a generation asked for, as the upstream names it. */
  model?: string;
  ok: boolean;
  /** The upstream's HTTP status; `null` when it never answered. */
  status: number | null;
  /** From just before the call to the end of its answer's body (or the failure), on the monotonic clock. */
  latencyMs: number;
  failure?: ProbeFailure;
  /** What a model list showed: its ids (the first page; `more` when the upstream has further pages). */
  models?: { count: number; ids: string[]; more: boolean };
}

export interface ConnectionTestReport {
  connection: Pick<ConnectionItem, 'id' | 'provider' | 'wire' | 'baseUrl' | 'upstream' | 'enabled'>;
  /** Every call succeeded. */
  ok: boolean;
  probes: ConnectionProbe[];
  /**
   * Models this connection serves that the upstream's whole list does not show: a misspelt id, or one the
   * credential may not use. Left out when the list failed or has more pages than one.
   */
  notListedUpstream?: string[];
}

export interface ConnectionTestOptions {
  /** Also send a one-token generation. */
  generate: boolean;
  /** The model the generation asks for; the connection's first model when not given. */
  model?: string | undefined;
}

/**
 * `connection test`: calls the connection's upstream the way traffic would — its stored base URL and credential,
 * the same guarded transport (address checks at connect time, no redirect followed, a time-out) — and reports
 * what happened as data: the upstream's status, the latency and the models its list shows, or why a call failed.
 * The credential goes to the upstream only, in the wire's own header; nothing of it, and nothing the upstream
 * says about it, is reported or logged: failures are told by status and code, never by the upstream's words.
 */
export async function testConnection(
  services: GatewayServices,
  id: string,
  options: ConnectionTestOptions,
): Promise<ConnectionTestReport> {
  const connection = (await services.store.connections.list()).find((candidate) => candidate.id === id);
  if (!connection) throw notFound('connection_not_found', `No connection has the id ${id}.`);
  const connectionWire = await upstreamWireFor(connection.wire);
  // A wire with no model list (Bedrock's runtime) is proven by a one-token generation, asked for or not.
  const generation =
    options.generate || connectionWire.modelList === undefined ? generationModel(connection, options.model) : undefined;
  // The generation is made in its model's wire: on Bedrock, Converse for every model but Anthropic's.
  const wire =
    generation === undefined ? connectionWire : await upstreamWireFor(upstreamWireOfModel(connection.wire, generation));
  const report: ConnectionTestReport = {
    connection: {
      id: connection.id,
      provider: connection.provider,
      wire: connection.wire,
      baseUrl: connection.baseUrl,
      upstream: connection.upstream,
      enabled: connection.enabled,
    },
    ok: false,
    probes: [],
  };
  let target: UpstreamTarget;
  try {
    target = await upstreamTargetOf(services, connection);
  } catch (error) {
    logger.error('a connection test could not read its credential', { connectionId: id, error });
    report.probes.push(credentialUnavailable(wire, connection));
    return report;
  }
  const prober = new Prober(services, connection, target.credential);

  if (wire.modelList) {
    const { modelList } = wire;
    const list = await prober.probe('model-list', modelList.request(target), (answer) => modelList.read(answer));
    report.probes.push(list.probe);
    if (list.read && !list.read.more) {
      const listed = new Set(list.read.ids);
      report.notListedUpstream = servedUpstreamModels(connection).filter((model) => !listed.has(model));
    }
  }
  if (generation !== undefined) {
    // The body states its own cap, the least each vendor accepts.
    const generated = await prober.probeWith('generation', () =>
      requestToSend(
        wire,
        target,
        { body: { ...wire.minimalGeneration }, upstreamModel: generation, stream: false, operation: 'generate' },
        {},
      ),
    );
    report.probes.push({ ...generated.probe, model: generation });
  }
  report.ok = report.probes.every((probe) => probe.ok);
  logger.info('connection tested', {
    connectionId: id,
    ok: report.ok,
    statuses: report.probes.map((probe) => probe.status),
    failures: report.probes.flatMap((probe) => (probe.failure ? [probe.failure.code] : [])),
  });
  return report;
}

/** The upstream's names of the models the connection serves (a catalog model's upstream name may differ). */
function servedUpstreamModels(connection: ConnectionItem): string[] {
  const served = new Set(modelsOfConnection(connection));
  return knownModels([connection])
    .filter((model) => model.provider === connection.provider && served.has(model.model))
    .map((model) => model.upstreamModel);
}

function generationModel(connection: ConnectionItem, requested: string | undefined): string {
  const served = knownModels([connection]).filter(
    (model) => model.provider === connection.provider && modelsOfConnection(connection).includes(model.model),
  );
  if (requested === undefined) {
    const first = served[0];
    if (!first) throw badRequest('invalid_request', 'The connection serves no model to try a generation with.');
    return first.upstreamModel;
  }
  const named = served.find((model) => model.model === requested || model.publicId === requested);
  if (!named) throw badRequest('invalid_request', `The connection does not serve the model "${requested}".`);
  return named.upstreamModel;
}

function credentialUnavailable(wire: UpstreamWireFormat<unknown, unknown>, connection: ConnectionItem) {
  const request = wire.modelList?.request({ baseUrl: connection.baseUrl, credential: '' });
  return {
    call: 'model-list',
    method: 'GET',
    url: request ? withoutQuery(request.url) : connection.baseUrl,
    ok: false,
    status: null,
    latencyMs: 0,
    failure: {
      code: 'credential_unavailable',
      reason: "The connection's credential could not be read from the secret store; nothing was sent.",
    },
  } satisfies ConnectionProbe;
}

/** Makes one call of a test and turns whatever came of it into a probe. */
class Prober {
  readonly #timeoutMs: number;

  constructor(
    private readonly services: GatewayServices,
    private readonly connection: ConnectionItem,
    private readonly credential: string,
  ) {
    this.#timeoutMs = Math.min(services.config.upstreamTimeoutMs, connectionTestTimeoutMs);
  }

  /** A probe of a request that must be made first (signed): a failure to make it is the probe's failure. */
  async probeWith(call: ConnectionProbe['call'], make: () => Promise<UpstreamHttpRequest>) {
    let request: UpstreamHttpRequest;
    try {
      request = await make();
    } catch (error) {
      const failure: ProbeFailure =
        error instanceof GatewayError && error.code === 'aws_credentials_unavailable'
          ? { code: 'aws_credentials_unavailable', reason: error.message }
          : callFailure(error);
      return {
        probe: {
          call,
          method: 'POST' as const,
          url: this.connection.baseUrl,
          ok: false,
          status: null,
          latencyMs: 0,
          failure,
        },
      };
    }
    return this.probe(call, request, () => true);
  }

  async probe<Read>(
    call: ConnectionProbe['call'],
    request: UpstreamHttpRequest,
    read: (answer: unknown) => Read | undefined,
  ): Promise<{ probe: ConnectionProbe; read?: Read }> {
    const method = request.method ?? 'POST';
    const base = { call, method, url: withoutQuery(request.url) };
    const stopwatch = startStopwatch();
    // The whole call, its answer's body included, ends by the probe's own deadline.
    const deadline = startRequestDeadline(this.#timeoutMs);
    let status: number | null = null;
    try {
      const network = upstreamNetworkFor(this.services.config.privateUpstreams, this.connection);
      const answer = await dispatchUpstream(request, {
        clientSignal: undefined,
        timeoutMs: this.#timeoutMs,
        deadline: deadline.signal,
        network,
      });
      status = answer.response.status;
      const text = await readUpstreamText(answer, this.#timeoutMs);
      const latencyMs = stopwatch.elapsedMs();
      if (status < 200 || status > 299) {
        const failure = statusFailure(call, status, exceptionName(answer.response.headers.get('x-amzn-errortype')));
        return { probe: { ...base, ok: false, status, latencyMs, failure } };
      }
      const parsed = read(parseJsonOrUndefined(text));
      if (parsed === undefined) {
        const reason = `The upstream answered ${status}, but not with a model list.`;
        return {
          probe: { ...base, ok: false, status, latencyMs, failure: { code: 'upstream_invalid_response', reason } },
        };
      }
      const models = isModelList(parsed) ? this.#shownModels(parsed) : undefined;
      return { probe: { ...base, ok: true, status, latencyMs, ...(models ? { models } : {}) }, read: parsed };
    } catch (error) {
      return { probe: { ...base, ok: false, status, latencyMs: stopwatch.elapsedMs(), failure: callFailure(error) } };
    } finally {
      deadline.stop();
    }
  }

  /** Ids that hold the credential, or look like any credential, are left out, whatever the upstream sent back. */
  #shownModels(list: { ids: string[]; more: boolean }): ConnectionProbe['models'] {
    const shown = list.ids.filter(
      (model) => model.length <= 256 && !model.includes(this.credential) && !looksLikeCredential(model),
    );
    return { count: list.ids.length, ids: shown.slice(0, maxListedIds), more: list.more };
  }
}

function isModelList(value: unknown): value is { ids: string[]; more: boolean } {
  return typeof value === 'object' && value !== null && 'ids' in value && Array.isArray(value.ids);
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** A status told in words, never the upstream's own (an error body may quote the credential, masked or not). */
function statusFailure(call: ConnectionProbe['call'], status: number, awsException?: string): ProbeFailure {
  // Bedrock names what went wrong (AccessDeniedException, ResourceNotFoundException…): a name, never a secret.
  if (awsException !== undefined && /^[A-Za-z]{1,64}$/.test(awsException)) {
    return {
      code: 'upstream_status',
      reason: `Amazon Bedrock answered ${status} ${awsException}.`,
      awsError: awsException,
    };
  }
  const reason = (() => {
    if (status === 401) return 'The upstream refused the credential (401): check the API key.';
    if (status === 403) return 'The upstream refused this credential access (403).';
    if (status === 404) {
      return call === 'model-list'
        ? 'Nothing answers at this address (404): check the base URL (docs/admin-and-usage.md shows how each provider writes it).'
        : 'The upstream has no such model or address (404): check the model and the base URL.';
    }
    if (status === 429) return 'The upstream is limiting this credential (429): rate limit or quota.';
    if (status >= 500) return `The upstream failed (${status}).`;
    return `The upstream refused the call (${status}).`;
  })();
  return { code: 'upstream_status', reason };
}

function callFailure(error: unknown): ProbeFailure {
  if (!(error instanceof GatewayError)) {
    return { code: 'upstream_unreachable', reason: `The call failed before an answer${causeCode(error)}.` };
  }
  switch (error.code) {
    case 'upstream_timeout':
      return { code: 'upstream_timeout', reason: 'The upstream did not answer in time.' };
    case 'upstream_redirect_refused':
    case 'upstream_address_refused':
      return { code: error.code, reason: error.message };
    default:
      return { code: 'upstream_unreachable', reason: `The upstream could not be reached${causeCode(error.cause)}.` };
  }
}

/** The system's code for a failed connection (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`…), when it has one. */
function causeCode(cause: unknown): string {
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
  return typeof code === 'string' && /^[A-Z0-9_]{2,64}$/.test(code) ? ` (${code})` : '';
}
