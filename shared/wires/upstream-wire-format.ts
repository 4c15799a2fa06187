import type { Readable } from 'node:stream';
import type { SseMessage } from '../sse/sse-event-splitter.ts';
import type { StreamUsageReader, UsageReport } from './usage-report.ts';
import type { UpstreamWire } from './wire-names.ts';

/** `path` (with its leading slash) under a connection's base URL, whatever trailing slashes the base URL has. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${withoutTrailingSlashes(baseUrl)}${path}`;
}

function withoutTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * How a vendor's own SDK takes its base URL. OpenAI's (`OPENAI_BASE_URL`) carries the API version
 * (`https://api.openai.com/v1`), so nothing is appended; Anthropic's (`ANTHROPIC_BASE_URL`) and Google's (`baseUrl`)
 * do not, and the SDK appends `/v1` or `/v1beta` itself.
 */
export interface BaseUrlConvention {
  /** The version segment the SDK appends to its base URL; `undefined` when the base URL carries it. */
  readonly appendedVersion: string | undefined;
  /**
   * Version segments a base URL may already end in, the appended one first: such a URL is taken as the API's own
   * address (connections stored before this convention were given `…/v1` for messages and `…/v1beta` for Gemini).
   */
  readonly versions: readonly string[];
}

function lastSegment(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

/**
 * The address the wire's paths go under: the base URL as the SDK takes it with the version appended, or as given
 * when it already ends in a version. Both spellings of a connection reach the same URLs.
 */
export function apiBaseUrl(convention: BaseUrlConvention, baseUrl: string): string {
  const base = withoutTrailingSlashes(baseUrl);
  const { appendedVersion, versions } = convention;
  if (appendedVersion === undefined || versions.includes(lastSegment(base))) return base;
  return `${base}/${appendedVersion}`;
}

/**
 * The form a new connection's base URL is stored in: as that vendor's SDK takes it, without trailing slashes and
 * without the version segment the SDK appends (`https://api.anthropic.com/v1/` → `https://api.anthropic.com`).
 * Another version (Gemini's `v1`, say) is a choice of API version and stays.
 */
export function canonicalBaseUrl(convention: BaseUrlConvention, baseUrl: string): string {
  const base = withoutTrailingSlashes(baseUrl);
  const { appendedVersion } = convention;
  if (appendedVersion === undefined || lastSegment(base) !== appendedVersion) return base;
  const root = base.slice(0, -(appendedVersion.length + 1));
  // Only a path segment is taken off: a host that happens to be named like the version (`https://v1`) stays.
  return /^[a-z]+:\/\/[^/]+/i.test(root) ? root : base;
}

/** What a wire needs to know of a connection to call it. */
export interface UpstreamTarget {
  /** The connection's base URL as stored (see `BaseUrlConvention`), e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  /**
   * The provider credential, read from the secret store; it never leaves the gateway except to this upstream. Empty
   * for a connection that holds none (Bedrock's, signed with the host's own AWS identity).
   */
  credential: string;
  /** The AWS region a Bedrock connection signs for; absent on every other wire. */
  region?: string | undefined;
}

export interface UpstreamHttpRequest {
  /** `POST` unless stated; a `GET` sends no body. */
  method?: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The `GET` of an upstream's model list: no body, only the wire's authentication. */
export function modelListRequest(url: string, headers: Record<string, string>): UpstreamHttpRequest {
  return { method: 'GET', url, headers, body: '' };
}

/** An upstream's own model list, where its wire has one: what a connection test asks for. */
export interface UpstreamModelList {
  /** The `GET` of the list's first page, as large a page as the vendor gives. */
  request(target: UpstreamTarget): UpstreamHttpRequest;
  /** The model ids of a list's page, and whether more pages follow; `undefined` when the answer is not a list. */
  read(answer: unknown): { ids: string[]; more: boolean } | undefined;
}

/** The operations a client can ask of a wire. */
export type WireOperation = 'generate' | 'count-tokens';

export interface BuildUpstreamRequestInput {
  target: UpstreamTarget;
  /** The request in this wire, typed and validated; unknown fields are kept so they reach the provider untouched. */
  body: Record<string, unknown>;
  /** The model name the upstream knows. */
  upstreamModel: string;
  stream: boolean;
  operation: WireOperation;
  /**
   * The most output tokens one answer may produce (the output allowance the reservation holds for it): written in
   * this wire's own cap field where the body states none or more. Generations only.
   */
  outputCap?: number | undefined;
  /** The client's feature flags (`forwardedClientHeaders`), for a wire that carries them in the body. */
  forwarded?: Readonly<Record<string, string>> | undefined;
}

/**
 * A wire whose streams are not server-sent events (Bedrock's binary event stream): the content type its streams
 * come in, and how a body in it becomes SSE messages in the wire's own format — loaded on first use.
 */
export interface BinaryStreamFraming {
  readonly contentType: string;
  toSse(body: Readable): Promise<Readable>;
}

/**
 * One upstream wire format: how to address it and authenticate to it, and how to read what it answers — each
 * stream event once, into this wire's typed event, which the usage reader, the failure check and the translators
 * all read. Wires know formats, not storage: nothing here reads or writes the store.
 */
export interface UpstreamWireFormat<Answer, Event> {
  readonly wire: UpstreamWire;
  /** How a connection's base URL is written for this wire, and what the wire appends to it. */
  readonly baseUrl: BaseUrlConvention;
  /**
   * Client headers (lower-case names) that reach this upstream when the client speaks this same format, such as
   * the feature flags its SDK sends. Each is a comma-separated list of names; nothing else of the client's
   * headers ever goes upstream.
   */
  readonly forwardedClientHeaders: readonly string[];
  /** The forwarded flags go in the body (`buildUpstreamRequest` reads `forwarded`), never as headers. */
  readonly forwardedIntoBody?: boolean;
  buildUpstreamRequest(input: BuildUpstreamRequestInput): UpstreamHttpRequest;
  /**
   * The last step before sending, for a wire that signs what it sends (Bedrock's SigV4): the request with its
   * final headers and body, signed. Absent where the credential is a plain header.
   */
  finishRequest?(request: UpstreamHttpRequest, target: UpstreamTarget): Promise<UpstreamHttpRequest>;
  /** Where the wire's streams are framed otherwise than as SSE. */
  readonly binaryStream?: BinaryStreamFraming;
  /**
   * An error answer (status 400 and up) in this wire's own error JSON, for a vendor whose errors come otherwise
   * (Bedrock's: `{ message }` with the kind in `x-amzn-ErrorType`). Absent where they already are.
   */
  errorText?(status: number, header: (name: string) => string | null, text: string): string;
  /** A token count's answer in this wire's format, where the vendor answers it in another; absent where it does. */
  countAnswerText?(text: string): string;
  /** The vendor's model list; `undefined` where it has none (Bedrock's runtime endpoint). */
  readonly modelList: UpstreamModelList | undefined;
  /**
   * The least a generation can be in this wire, without its model: one short prompt and the smallest output cap
   * the vendor accepts. A connection test sends it, when asked to, to see a model answer.
   */
  readonly minimalGeneration: Readonly<Record<string, unknown>>;
  /** Usage in a whole (non-streamed) answer, its JSON parsed once; `undefined` when absent. */
  usageOfAnswer(answer: unknown): UsageReport | undefined;
  /** A whole answer read for translation, every part a translator uses; throws a 502 when it is not one. */
  parseAnswer(answer: unknown): Answer;
  /** One stream event, read once; `undefined` for one this wire does not know (a pass-through still sends it). */
  parseEvent(message: SseMessage): Event | undefined;
  /** Whether the event reports a failure: the stream it ends has not completed its answer. */
  isFailure(event: Event): boolean;
  /**
   * Whether the event is one a complete answer ends with in this wire (chat's `[DONE]`, messages' `message_stop`,
   * …). A stream whose body ends before one came was cut off, however cleanly its connection closed; one whose
   * connection breaks after it has its whole answer.
   */
  endsAnswer(event: Event): boolean;
  createUsageReader(): StreamUsageReader<Event>;
}
