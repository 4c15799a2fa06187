import { fetchCsv, fetchKeys, fetchRequests, fetchSummary, UsageApiError } from './api-client.ts';
import { byId, element } from './dom.ts';
import { formatInteger, formatSpan } from './format.ts';
import type { UsageCharts } from './render-charts.ts';
import { periodName, renderKeyOptions, renderPeriodOptions, renderProviderOptions } from './render-controls.ts';
import { renderDetails } from './render-details.ts';
import { renderRoutingMap } from './render-routing-map.ts';
import { renderTotals, renderTotalsLoading } from './render-totals.ts';
import { forgetSessionKey, readSessionKey, saveSessionKey } from './session-key.ts';
import type { KeysAnswer, RequestsPage, UsageSummary, ViewFilters } from './usage-types.ts';

const page = {
  signIn: byId('sign-in', HTMLElement),
  signInForm: byId('sign-in-form', HTMLFormElement),
  keyInput: byId('key-input', HTMLInputElement),
  signInButton: byId('sign-in-button', HTMLButtonElement),
  signInError: byId('sign-in-error', HTMLElement),
  dashboard: byId('dashboard', HTMLElement),
  usageData: byId('usage-data', HTMLElement),
  viewer: byId('viewer', HTMLElement),
  viewerName: byId('viewer-name', HTMLElement),
  viewerRole: byId('viewer-role', HTMLElement),
  signOut: byId('sign-out', HTMLButtonElement),
  periodOptions: byId('period-options', HTMLElement),
  scopeControl: byId('scope-control', HTMLElement),
  scopeSelect: byId('scope-select', HTMLSelectElement),
  keySelect: byId('key-select', HTMLSelectElement),
  providerOptions: byId('provider-options', HTMLElement),
  downloadCsv: byId('download-csv', HTMLButtonElement),
  status: byId('status', HTMLElement),
  periodRange: byId('period-range', HTMLElement),
  totals: byId('totals', HTMLElement),
  requestsChartEmpty: byId('requests-chart-empty', HTMLElement),
  tokensChartEmpty: byId('tokens-chart-empty', HTMLElement),
  routingMapBody: byId('routing-map-body', HTMLElement),
  detailsTable: byId('details-table', HTMLTableElement),
  detailsNote: byId('details-note', HTMLElement),
};

/**
 * The chart library is a chunk of its own, loaded when the charts are first drawn: the sign-in screen and the
 * console never pay for it.
 */
let charts: UsageCharts | undefined;
async function drawCharts(summary: UsageSummary): Promise<void> {
  const { UsageCharts } = await import('./render-charts.ts');
  charts ??= new UsageCharts(byId('requests-chart', HTMLCanvasElement), byId('tokens-chart', HTMLCanvasElement));
  charts.render(summary);
}

/** The console links here filtered to one key (`?scope=team&keyId=key_…`): ids only, never a credential. */
function linkedFilters(): ViewFilters {
  const linked = new URLSearchParams(location.search);
  const scope = linked.get('scope') === 'team' ? 'team' : 'own';
  return { period: '14d', scope, keyId: linked.get('keyId'), providers: [] };
}

const state: {
  key: string | null;
  keys: KeysAnswer | null;
  filters: ViewFilters;
  inFlight: AbortController | null;
} = {
  key: null,
  keys: null,
  filters: linkedFilters(),
  inFlight: null,
};

type StatusKind = 'loading' | 'empty' | 'error' | 'info';

function showStatus(kind: StatusKind, message: string, retry = false): void {
  page.status.className = `status status-${kind}`;
  page.status.replaceChildren(element('span', { text: message }));
  if (retry) {
    const button = element('button', { className: 'button-quiet', text: 'Retry', attributes: { type: 'button' } });
    button.addEventListener('click', () => void load());
    page.status.append(button);
  }
  page.status.hidden = false;
}

function hideStatus(): void {
  page.status.hidden = true;
  page.status.replaceChildren();
}

function showSignIn(message?: string): void {
  state.key = null;
  state.keys = null;
  state.inFlight?.abort();
  charts?.destroy();
  page.dashboard.hidden = true;
  page.viewer.hidden = true;
  page.signIn.hidden = false;
  page.signInError.hidden = message === undefined;
  page.signInError.textContent = message ?? '';
  page.keyInput.value = '';
  page.keyInput.focus();
}

async function signIn(key: string): Promise<void> {
  page.signInButton.disabled = true;
  page.signInButton.textContent = 'Signing in…';
  try {
    const keys = await fetchKeys(key);
    saveSessionKey(key);
    state.key = key;
    state.keys = keys;
    page.viewerName.textContent = keys.viewer.memberName;
    page.viewerRole.textContent = keys.viewer.role;
    page.scopeControl.hidden = !keys.viewer.canViewTeam;
    if (!keys.viewer.canViewTeam) state.filters.scope = 'own';
    page.scopeSelect.value = state.filters.scope;
    page.signIn.hidden = true;
    page.viewer.hidden = false;
    page.dashboard.hidden = false;
    renderPeriodOptions(page.periodOptions, state.filters.period, (period) => update({ period }));
    renderKeyOptions(page.keySelect, keys, state.filters.scope, state.filters.keyId);
    await load();
  } catch (error) {
    forgetSessionKey();
    showSignIn(signInMessage(error));
  } finally {
    page.signInButton.disabled = false;
    page.signInButton.textContent = 'Sign in';
  }
}

function signInMessage(error: unknown): string {
  if (error instanceof UsageApiError && error.status === 401)
    return 'That key was not accepted. Check it and try again.';
  if (error instanceof UsageApiError && error.status === 403) return `Sign-in refused: ${error.message}`;
  if (error instanceof UsageApiError) return error.message;
  return 'Signing in failed unexpectedly. Try again.';
}

function update(change: Partial<ViewFilters>): void {
  state.filters = { ...state.filters, ...change };
  void load();
}

/** Loads totals, charts, map and details for the current filters; a newer load cancels an older one. */
async function load(): Promise<void> {
  const key = state.key;
  if (!key) return;
  state.inFlight?.abort();
  const controller = new AbortController();
  state.inFlight = controller;
  const filters = state.filters;
  page.dashboard.setAttribute('aria-busy', 'true');
  showStatus('loading', `Loading usage for ${periodName(filters.period).toLowerCase()}…`);
  renderTotalsLoading(page.totals);
  try {
    const [summary, requests] = await Promise.all([
      fetchSummary(key, filters, controller.signal),
      fetchRequests(key, filters, controller.signal),
    ]);
    if (controller.signal.aborted) return;
    page.usageData.hidden = false;
    await render(summary, requests);
  } catch (error) {
    if (controller.signal.aborted) return;
    if (error instanceof UsageApiError && error.status === 401) {
      forgetSessionKey();
      showSignIn('Your key is no longer accepted (revoked, rotated or expired). Sign in again.');
      return;
    }
    const message = error instanceof UsageApiError ? error.message : 'Loading usage failed unexpectedly.';
    // Figures of the previous filters would read as the answer to these: show none until a retry succeeds.
    page.usageData.hidden = true;
    showStatus('error', `Could not load usage: ${message}`, true);
  } finally {
    if (state.inFlight === controller) {
      state.inFlight = null;
      page.dashboard.removeAttribute('aria-busy');
    }
  }
}

async function render(summary: UsageSummary, requests: RequestsPage): Promise<void> {
  page.periodRange.textContent = formatSpan(summary.period.start, summary.period.end);
  renderProviderOptions(page.providerOptions, summary.providers, state.filters.providers, (providers) =>
    update({ providers }),
  );
  renderTotals(page.totals, summary.totals);
  const noRequests = summary.totals.requests === 0;
  const noTokens = summary.totals.inputTokens.value + summary.totals.outputTokens.value === 0;
  page.requestsChartEmpty.hidden = !noRequests;
  page.tokensChartEmpty.hidden = !noTokens;
  await drawCharts(summary);
  renderRoutingMap(page.routingMapBody, summary, toggleProvider);
  renderDetails(page.detailsTable, page.detailsNote, requests);
  if (noRequests) {
    const filtered = state.filters.keyId !== null || state.filters.providers.length > 0;
    showStatus(
      'empty',
      `No requests in ${periodName(summary.period.id).toLowerCase()}${filtered ? ' for these filters' : ''}. ` +
        'Requests show up here as soon as the gateway admits them.',
    );
  } else {
    hideStatus();
  }
}

function toggleProvider(provider: string): void {
  const selected = new Set(state.filters.providers);
  if (selected.has(provider)) selected.delete(provider);
  else selected.add(provider);
  update({ providers: [...selected].sort() });
}

async function downloadCsv(): Promise<void> {
  const key = state.key;
  if (!key) return;
  page.downloadCsv.disabled = true;
  page.downloadCsv.textContent = 'Preparing CSV…';
  try {
    const csv = await fetchCsv(key, state.filters);
    // A blob URL carries the file, not the key: the key went in the request's header.
    const url = URL.createObjectURL(csv.blob);
    const link = element('a', { attributes: { href: url, download: csv.fileName } });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    if (csv.more) showStatus('info', `The CSV holds the newest ${formatInteger(1_000)} matching requests.`);
  } catch (error) {
    const message = error instanceof UsageApiError ? error.message : 'unexpected failure';
    showStatus('error', `The CSV export failed: ${message}`);
  } finally {
    page.downloadCsv.disabled = false;
    page.downloadCsv.textContent = 'Download CSV';
  }
}

page.signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = page.keyInput.value.trim();
  if (key.length > 0) void signIn(key);
});
page.signOut.addEventListener('click', () => {
  forgetSessionKey();
  showSignIn();
});
page.scopeSelect.addEventListener('change', () => {
  const scope = page.scopeSelect.value === 'team' ? 'team' : 'own';
  if (state.keys) renderKeyOptions(page.keySelect, state.keys, scope, state.filters.keyId);
  update({ scope, keyId: page.keySelect.value || null });
});
page.keySelect.addEventListener('change', () => update({ keyId: page.keySelect.value || null }));
page.downloadCsv.addEventListener('click', () => void downloadCsv());

const storedKey = readSessionKey();
if (storedKey) void signIn(storedKey);
else showSignIn();
