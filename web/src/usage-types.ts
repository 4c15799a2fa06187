/**
 * The shapes of the usage data API as the page reads them. The page talks to the gateway over HTTP only and
 * never imports server code, so these mirror shared/usage/ by hand; test/web/usage-page-types.test.ts fails the
 * type check when the summary, a detail row or a visible key differs from the server's.
 */
export const periodIds = ['today', '24h', '7d', '14d', '30d', '60d'] as const;
export type PeriodId = (typeof periodIds)[number];
export type Scope = 'own' | 'team';

export interface ReportedFigure {
  value: number;
  reportedBy: number;
}

export interface PeriodView {
  id: PeriodId;
  start: string;
  end: string;
  bucket: 'hour' | 'day';
}

export interface UsageTotals {
  requests: number;
  completed: number;
  failed: number;
  running: number;
  inputTokens: ReportedFigure;
  cachedInputTokens: ReportedFigure;
  outputTokens: ReportedFigure;
  charge: ReportedFigure;
  estimatedCost: { available: false; reason: string };
}

export interface ProviderSeries {
  provider: string;
  requests: number[];
  failed: number[];
  inputTokens: number[];
  outputTokens: number[];
}

export interface RoutingNode {
  id: string;
  column: 'key' | 'upstream' | 'provider' | 'model';
  label: string;
  requests: number;
}

export interface RoutingEdge {
  from: string;
  to: string;
  requests: number;
  failed: number;
  running: number;
}

export interface UsageSummary {
  period: PeriodView;
  filters: { scope: Scope; keyId: string | null; providers: string[] };
  providers: string[];
  totals: UsageTotals;
  series: { bucket: 'hour' | 'day'; buckets: string[]; providers: ProviderSeries[] };
  routingMap: { nodes: RoutingNode[]; edges: RoutingEdge[] };
  generatedAt: string;
}

export interface DetailRow {
  id: string;
  startedAt: string;
  endedAt: string | null;
  memberId: string;
  keyId: string;
  keyLabel: string;
  upstream: string;
  provider: string;
  model: string;
  wire: string;
  stream: boolean;
  state: 'running' | 'completed' | 'failed';
  status: number | null;
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  charge: number | null;
  reserved: number;
  source: 'measured' | 'conservative' | null;
  durationMs: number | null;
}

export interface RequestsPage {
  period: PeriodView;
  limit: number;
  more: boolean;
  rows: DetailRow[];
}

export interface VisibleKey {
  id: string;
  name: string;
  keyPrefix: string;
  memberId: string;
  memberName: string;
  state: 'active' | 'revoked';
  label: string;
}

export interface KeysAnswer {
  viewer: { memberId: string; memberName: string; role: string; keyId: string; canViewTeam: boolean };
  keys: VisibleKey[];
}

/** What the viewer asked for; the same filters go to every call, so all parts of the page agree. */
export interface ViewFilters {
  period: PeriodId;
  scope: Scope;
  keyId: string | null;
  providers: string[];
}
