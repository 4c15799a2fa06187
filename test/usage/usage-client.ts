import type { DetailRow } from '../../shared/usage/usage-details.ts';
import type { UsageSummary } from '../../shared/usage/usage-summary.ts';
import type { VisibleKey } from '../../shared/usage/visible-keys.ts';

export interface RequestsAnswer {
  limit: number;
  more: boolean;
  rows: DetailRow[];
}

export interface KeysAnswer {
  viewer: { memberId: string; memberName: string; role: string; keyId: string; canViewTeam: boolean };
  keys: VisibleKey[];
}

/** Calls the usage API over HTTP with a gateway key in the Authorization header, as the page does. */
export class UsageClient {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  async raw(path: string, query: Record<string, string> = {}): Promise<Response> {
    const search = new URLSearchParams(query).toString();
    return fetch(`${this.url}/usage-api/v1${path}${search ? `?${search}` : ''}`, {
      headers: { authorization: `Bearer ${this.key}` },
    });
  }

  private async json<T>(path: string, query: Record<string, string>): Promise<T> {
    const response = await this.raw(path, query);
    const text = await response.text();
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  summary(query: Record<string, string> = {}): Promise<UsageSummary> {
    return this.json('/summary', query);
  }

  requests(query: Record<string, string> = {}): Promise<RequestsAnswer> {
    return this.json('/requests', query);
  }

  keys(): Promise<KeysAnswer> {
    return this.json('/keys', {});
  }

  async csv(query: Record<string, string> = {}): Promise<{ text: string; response: Response }> {
    const response = await this.raw('/export.csv', query);
    const text = await response.text();
    if (!response.ok) throw new Error(`GET /export.csv answered ${response.status}: ${text}`);
    return { text, response };
  }
}
