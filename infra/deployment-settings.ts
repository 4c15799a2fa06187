import { readBedrockModels } from './bedrock-access.ts';
import { type OriginSecretSlot, originSecretSlots } from './origin-secrets.ts';
import { stagePattern } from './stack-outputs.ts';

/** What `--context name=value` (or cdk.json) may set for a deployment; see docs/deploy-aws.md. */
export interface DeploymentSettings {
  readonly stage: string;
  readonly production: boolean;
  readonly upstreamPrefixes: readonly string[] | undefined;
  /** Reserved concurrency of each inference function; the smaller functions reserve less (function-profiles.ts). */
  readonly reservedConcurrency: number;
  /** The origin-secret slot CloudFront sends (infra/origin-secrets.ts). */
  readonly originSecretSlot: OriginSecretSlot;
  /**
   * The earlier DynamoDB layout's records table: `kept` in the stack (the default) until the migration of its
   * records reports complete, then `retired`: removed from the stack, which leaves the table itself in place
   * (it is retained) for the team to delete (docs/store.md, "Upgrading a stage deployed with the earlier layout").
   */
  readonly earlierRecords: EarlierRecordsTable;
  /** An AWS WAF web ACL with a rate limit per client IP on the distribution, or none. */
  readonly waf: { readonly requestsPerFiveMinutes: number } | undefined;
  /** `--context alertEmail=…`: an SNS topic with this e-mail subscription gets alerts and alarms; none without it. */
  readonly alertEmail: string | undefined;
  /**
   * OpenTelemetry export from every function that answers HTTP: `--context otelEndpoint=https://collector:4318`
   * (OTLP/HTTP), `otelProtocol` (`http/protobuf`, the default, or `http/json`), and `otelHeadersSecret=true` to
   * send the headers kept in the secret `model-gateway/<stage>/otel-headers`. Off without an endpoint.
   */
  readonly telemetry: { endpoint: string; protocol: 'http/protobuf' | 'http/json'; headersSecret: boolean } | undefined;
  /**
   * `--context bedrockModels=anthropic.claude-sonnet-4-5*,…`: the Bedrock models or families the functions' roles may
   * invoke, for Bedrock connections signed with the role (docs/bedrock.md); no Bedrock permission without it.
   */
  readonly bedrockModels: readonly string[] | undefined;
  /** Where to deploy, when it must be known at synthesis (a web ACL's cross-region reference needs it). */
  readonly account: string | undefined;
  readonly region: string | undefined;
  /**
   * Sign-in with the team's OpenID provider (docs/sign-in.md), as the functions' `GATEWAY_OIDC_*` environment;
   * empty without `oidcIssuer`. The client secret is never context: the team stores it in Secrets Manager as
   * `model-gateway/<stage>/oidc-client-secret` (under the stage's prefix, which the admin function may read), and
   * the context says only whether there is one (`oidcClientSecret=stored`, the default, or `none`).
   */
  readonly signInEnvironment: Readonly<Record<string, string>>;
}

/** The Secrets Manager name of a stage's OIDC client secret. */
export const oidcClientSecretName = (stage: string) => `model-gateway/${stage}/oidc-client-secret`;

/** Context name → the environment variable it sets, for the sign-in settings passed through as they are. */
const signInContext: Readonly<Record<string, string>> = {
  oidcClientId: 'GATEWAY_OIDC_CLIENT_ID',
  oidcDeviceClientId: 'GATEWAY_OIDC_DEVICE_CLIENT_ID',
  oidcScopes: 'GATEWAY_OIDC_SCOPES',
  oidcGroupsClaim: 'GATEWAY_OIDC_GROUPS_CLAIM',
  oidcEmailVerifiedClaim: 'GATEWAY_OIDC_EMAIL_VERIFIED_CLAIM',
  oidcAdminGroups: 'GATEWAY_OIDC_ADMIN_GROUPS',
  oidcAllowedGroups: 'GATEWAY_OIDC_ALLOWED_GROUPS',
  oidcEmailDomains: 'GATEWAY_OIDC_EMAIL_DOMAINS',
  oidcUnknownPeople: 'GATEWAY_OIDC_UNKNOWN_PEOPLE',
  sessionHours: 'GATEWAY_SESSION_HOURS',
};

function readSignInEnvironment(context: (name: string) => unknown, stage: string): Record<string, string> {
  const issuer = readText(context('oidcIssuer'));
  if (issuer === undefined) {
    const stray = [...Object.keys(signInContext), 'oidcClientSecret'].filter((name) => context(name) !== undefined);
    if (stray.length > 0) throw new Error(`context ${stray.join(', ')} needs "oidcIssuer" as well`);
    return {};
  }
  const environment: Record<string, string> = { GATEWAY_OIDC_ISSUER: issuer };
  for (const [name, variable] of Object.entries(signInContext)) {
    const value = context(name);
    if (value === undefined) continue;
    environment[variable] = Array.isArray(value) ? value.map(String).join(',') : String(value).trim();
  }
  const secret = context('oidcClientSecret') ?? 'stored';
  if (secret !== 'stored' && secret !== 'none') throw new Error('context "oidcClientSecret" must be stored or none');
  if (secret === 'stored') environment['GATEWAY_OIDC_CLIENT_SECRET_NAME'] = oidcClientSecretName(stage);
  return environment;
}

/** Enough for a team's members and their agents; the account keeps its unreserved pool for everything else. */
export const defaultReservedConcurrency = 50;
/** 2,000 requests in five minutes from one IP: far above a team behind one NAT, far below a flood. */
export const defaultWafRequestsPerFiveMinutes = 2_000;

export const earlierRecordsTableChoices = ['kept', 'retired'] as const;
export type EarlierRecordsTable = (typeof earlierRecordsTableChoices)[number];

export function readDeploymentSettings(
  context: (name: string) => unknown,
  environment: Readonly<Record<string, string | undefined>> = {},
): DeploymentSettings {
  const waf = readFlag(context('waf'));
  const stage = readStage(context('stage'));
  return {
    stage,
    production: readFlag(context('production')),
    upstreamPrefixes: readList(context('upstreamPrefixes')),
    reservedConcurrency: readWholeNumber(context('reservedConcurrency'), 'reservedConcurrency', {
      fallback: defaultReservedConcurrency,
      least: 1,
    }),
    originSecretSlot: readSlot(context('originSecretSlot')),
    earlierRecords: readEarlierRecords(context('earlierRecords')),
    waf: waf
      ? {
          requestsPerFiveMinutes: readWholeNumber(context('wafRequestsPerFiveMinutes'), 'wafRequestsPerFiveMinutes', {
            fallback: defaultWafRequestsPerFiveMinutes,
            // AWS WAF's bounds for a rate-based rule's limit.
            least: 10,
            most: 2_000_000_000,
          }),
        }
      : undefined,
    alertEmail: readEmail(context('alertEmail')),
    telemetry: readTelemetry(context),
    bedrockModels: readBedrockModels(context('bedrockModels')),
    account: readText(context('account')) ?? environment['CDK_DEFAULT_ACCOUNT'],
    region: readText(context('region')) ?? environment['CDK_DEFAULT_REGION'],
    signInEnvironment: readSignInEnvironment(context, stage),
  };
}

/** The stage names the stack and the secret prefix, so it must be safe in both. */
function readStage(value: unknown): string {
  const stage = value ?? 'dev';
  if (typeof stage !== 'string' || !stagePattern.test(stage)) {
    throw new Error(`context "stage" must be lowercase letters, digits and hyphens, got ${JSON.stringify(value)}`);
  }
  return stage;
}

/** `-c production=true` arrives as a string, cdk.json as a boolean. */
function readFlag(value: unknown): boolean {
  return value === true || value === 'true';
}

/** `-c upstreamPrefixes=lb,lb2,...` arrives as a string, cdk.json may hold an array. */
function readList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : String(value).split(',');
  return items.map((item) => String(item).trim()).filter((item) => item.length > 0);
}

function readText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined;
}

function readWholeNumber(
  value: unknown,
  name: string,
  bounds: { fallback: number; least: number; most?: number },
): number {
  if (value === undefined) return bounds.fallback;
  const number = Number(value);
  const most = bounds.most ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(number) || number < bounds.least || number > most) {
    throw new Error(`context "${name}" must be a whole number from ${bounds.least}, got ${JSON.stringify(value)}`);
  }
  return number;
}

function readEarlierRecords(value: unknown): EarlierRecordsTable {
  if (value === undefined) return 'kept';
  const choice = earlierRecordsTableChoices.find((candidate) => candidate === value);
  if (!choice) throw new Error(`context "earlierRecords" must be ${earlierRecordsTableChoices.join(' or ')}`);
  return choice;
}

function readSlot(value: unknown): OriginSecretSlot {
  if (value === undefined) return 'a';
  const slot = originSecretSlots.find((candidate) => candidate === value);
  if (!slot) throw new Error(`context "originSecretSlot" must be ${originSecretSlots.join(' or ')}`);
  return slot;
}

function readEmail(value: unknown): string | undefined {
  const text = readText(value);
  if (text === undefined) return undefined;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) {
    throw new Error(`context "alertEmail" must be an e-mail address, got ${JSON.stringify(value)}`);
  }
  return text;
}

function readTelemetry(context: (name: string) => unknown): DeploymentSettings['telemetry'] {
  const endpoint = readText(context('otelEndpoint'));
  if (endpoint === undefined) return undefined;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new Error(`context "otelEndpoint" must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  const protocol = readText(context('otelProtocol')) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(`context "otelProtocol" must be http/protobuf or http/json, got ${JSON.stringify(protocol)}`);
  }
  return { endpoint, protocol, headersSecret: readFlag(context('otelHeadersSecret')) };
}
