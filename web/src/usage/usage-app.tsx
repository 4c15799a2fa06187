import { useEffect, useRef, useState } from 'preact/hooks';
import { formatInteger, formatSpan } from '../format.ts';
import { forgetSessionKey, readSessionKey, saveSessionKey } from '../session-key.ts';
import type { KeysAnswer, RequestsPage, UsageSummary, ViewFilters } from '../usage-types.ts';
import { fetchCsv, fetchKeys, fetchRequests, fetchSummary, UsageApiError } from './api-client.ts';
import { periodName } from './periods.ts';
import { RoutingMap } from './routing-map.tsx';
import { ChartsPanel } from './usage-charts.tsx';
import { KeySelect, keysInScope, PeriodOptions, ProviderOptions } from './usage-controls.tsx';
import { Details } from './usage-details.tsx';
import { Totals, TotalsLoading } from './usage-totals.tsx';

type StatusKind = 'loading' | 'empty' | 'error' | 'info';
interface Status {
  kind: StatusKind;
  message: string;
  retry?: boolean;
}

/** The console links here filtered to one key (`?scope=team&keyId=key_…`): ids only, never a credential. */
function linkedFilters(): ViewFilters {
  const linked = new URLSearchParams(location.search);
  const scope = linked.get('scope') === 'team' ? 'team' : 'own';
  return { period: '14d', scope, keyId: linked.get('keyId'), providers: [] };
}

function signInMessage(error: unknown): string {
  if (error instanceof UsageApiError && error.status === 401)
    return 'That key was not accepted. Check it and try again.';
  if (error instanceof UsageApiError && error.status === 403) return `Sign-in refused: ${error.message}`;
  if (error instanceof UsageApiError) return error.message;
  return 'Signing in failed unexpectedly. Try again.';
}

export function UsageApp() {
  const [key, setKey] = useState<string | null>(null);
  const [keys, setKeys] = useState<KeysAnswer | null>(null);
  const [signInError, setSignInError] = useState<string | null>(null);
  const [signingIn, setSigningIn] = useState(false);
  const [checkedStoredKey, setCheckedStoredKey] = useState(false);
  const [filters, setFilters] = useState<ViewFilters>(linkedFilters);
  const [data, setData] = useState<{ summary: UsageSummary; requests: RequestsPage } | null>(null);
  const [loading, setLoading] = useState(false);
  const [status, setStatus] = useState<Status | null>(null);
  const [retries, setRetries] = useState(0);
  const inFlight = useRef<AbortController | null>(null);

  const showSignIn = (message?: string) => {
    inFlight.current?.abort();
    setKey(null);
    setKeys(null);
    setData(null);
    setStatus(null);
    setSignInError(message ?? null);
  };

  const signIn = async (candidate: string) => {
    setSigningIn(true);
    try {
      const answer = await fetchKeys(candidate);
      saveSessionKey(candidate);
      setFilters((current) => {
        const scope = answer.viewer.canViewTeam ? current.scope : 'own';
        const kept = keysInScope(answer, scope).some((visible) => visible.id === current.keyId);
        return { ...current, scope, keyId: kept ? current.keyId : null };
      });
      setKeys(answer);
      setKey(candidate);
      setSignInError(null);
    } catch (error) {
      forgetSessionKey();
      showSignIn(signInMessage(error));
    } finally {
      setSigningIn(false);
    }
  };

  useEffect(() => {
    const stored = readSessionKey();
    if (stored) void signIn(stored).finally(() => setCheckedStoredKey(true));
    else setCheckedStoredKey(true);
  }, []);

  /** Loads totals, charts, map and details for the current filters; a newer load cancels an older one. */
  useEffect(() => {
    if (!key) return;
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setLoading(true);
    setStatus({ kind: 'loading', message: `Loading usage for ${periodName(filters.period).toLowerCase()}…` });
    void (async () => {
      try {
        const [summary, requests] = await Promise.all([
          fetchSummary(key, filters, controller.signal),
          fetchRequests(key, filters, controller.signal),
        ]);
        if (controller.signal.aborted) return;
        setData({ summary, requests });
        if (summary.totals.requests === 0) {
          const filtered = filters.keyId !== null || filters.providers.length > 0;
          setStatus({
            kind: 'empty',
            message:
              `No requests in ${periodName(summary.period.id).toLowerCase()}${filtered ? ' for these filters' : ''}. ` +
              'Requests show up here as soon as the gateway admits them.',
          });
        } else {
          setStatus(null);
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof UsageApiError && error.status === 401) {
          forgetSessionKey();
          showSignIn('Your key is no longer accepted (revoked, rotated or expired). Sign in again.');
          return;
        }
        const message = error instanceof UsageApiError ? error.message : 'Loading usage failed unexpectedly.';
        // Figures of the previous filters would read as the answer to these: show none until a retry succeeds.
        setData(null);
        setStatus({ kind: 'error', message: `Could not load usage: ${message}`, retry: true });
      } finally {
        if (inFlight.current === controller) {
          inFlight.current = null;
          setLoading(false);
        }
      }
    })();
    return () => controller.abort();
  }, [key, filters, retries]);

  const update = (change: Partial<ViewFilters>) => setFilters((current) => ({ ...current, ...change }));
  const toggleProvider = (provider: string) => {
    const selected = new Set(filters.providers);
    if (selected.has(provider)) selected.delete(provider);
    else selected.add(provider);
    update({ providers: [...selected].sort() });
  };

  if (!key || !keys) {
    return (
      <>
        <Header />
        <main>
          {checkedStoredKey ? (
            <SignIn error={signInError} busy={signingIn} onSubmit={(typed) => void signIn(typed)} />
          ) : null}
        </main>
      </>
    );
  }

  return (
    <>
      <Header
        viewer={keys.viewer}
        onSignOut={() => {
          forgetSessionKey();
          showSignIn();
        }}
      />
      <main>
        <section id="dashboard" aria-busy={loading ? 'true' : undefined}>
          <section class="controls" aria-label="Period and filters">
            <fieldset class="control-group">
              <legend>Period</legend>
              <PeriodOptions selected={filters.period} onChange={(period) => update({ period })} />
            </fieldset>
            <div id="scope-control" class="control-group" hidden={!keys.viewer.canViewTeam}>
              <label for="scope-select">View</label>
              <select
                id="scope-select"
                value={filters.scope}
                onChange={(event) => {
                  const scope = event.currentTarget.value === 'team' ? 'team' : 'own';
                  // A key of another member is no filter in "My traffic": the key filter falls back to all.
                  const kept = keysInScope(keys, scope).some((visible) => visible.id === filters.keyId);
                  update({ scope, keyId: kept ? filters.keyId : null });
                }}
              >
                <option value="own">My traffic</option>
                <option value="team">Whole team</option>
              </select>
            </div>
            <div class="control-group">
              <label for="key-select">Key</label>
              <KeySelect
                answer={keys}
                scope={filters.scope}
                selected={filters.keyId}
                onChange={(keyId) => update({ keyId })}
              />
            </div>
            <fieldset class="control-group providers">
              <legend>Providers</legend>
              <div id="provider-options" class="chips">
                <ProviderOptions
                  providers={data?.summary.providers ?? []}
                  selected={filters.providers}
                  onChange={(providers) => update({ providers })}
                />
              </div>
            </fieldset>
            <div class="control-group control-actions">
              <CsvButton download={() => fetchCsv(key, filters)} onStatus={(next) => setStatus(next)} />
            </div>
          </section>

          {status ? (
            <div id="status" class={`status status-${status.kind}`} role="status" aria-live="polite">
              <span>{status.message}</span>
              {status.retry ? (
                <button type="button" class="button-quiet" onClick={() => setRetries((count) => count + 1)}>
                  Retry
                </button>
              ) : null}
            </div>
          ) : null}

          <div id="usage-data" hidden={data === null && status?.kind === 'error'}>
            <h2 class="section-title" id="totals-title">
              Totals{' '}
              <span id="period-range" class="muted">
                {data ? formatSpan(data.summary.period.start, data.summary.period.end) : ''}
              </span>
            </h2>
            <section id="totals" class="totals" aria-labelledby="totals-title">
              {loading || !data ? <TotalsLoading /> : <Totals totals={data.summary.totals} />}
            </section>
            {data ? <ChartsPanel summary={data.summary} /> : null}
            <details id="routing-map" class="card routing-map">
              <summary>
                <span class="summary-title">Routing map</span>{' '}
                <span class="muted">recorded activity, not provider health</span>
              </summary>
              <p class="map-legend">
                Keys → upstream prefix → provider → model. Band width is the number of recorded requests in the period,
                completed, failed and running alike; the red core is the failed share. A provider without traffic is
                simply absent: this is not a health check. Select a provider to filter by it.
              </p>
              <p class="map-scroll-hint muted">Scroll sideways to see the whole map.</p>
              <div id="routing-map-body" class="map-scroll">
                {data ? <RoutingMap summary={data.summary} onProviderToggle={toggleProvider} /> : null}
              </div>
            </details>
            {data ? <Details page={data.requests} /> : null}
          </div>
        </section>
      </main>
    </>
  );
}

function Header(props: { viewer?: KeysAnswer['viewer']; onSignOut?: () => void }) {
  return (
    <header class="topbar">
      <div class="brand">
        Model gateway <span class="brand-page">Usage</span>
      </div>
      {props.viewer ? (
        <div id="viewer" class="viewer">
          <span id="viewer-name" class="viewer-name">
            {props.viewer.memberName}
          </span>
          <span id="viewer-role" class="badge">
            {props.viewer.role}
          </span>
          <a class="button-quiet console-link" href="/app/admin">
            Console
          </a>
          <button id="sign-out" type="button" class="button-quiet" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      ) : null}
    </header>
  );
}

function SignIn(props: { error: string | null; busy: boolean; onSubmit: (key: string) => void }) {
  const [typed, setTyped] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [props.error]);
  return (
    <section id="sign-in" class="card sign-in">
      <h1>Sign in to see usage</h1>
      <p>
        Use your own gateway key. It stays in this browser tab only (session storage) and is sent as a request header,
        never in a URL.
      </p>
      <form
        id="sign-in-form"
        onSubmit={(event) => {
          event.preventDefault();
          const key = typed.trim();
          setTyped('');
          if (key.length > 0) props.onSubmit(key);
        }}
      >
        <label for="key-input">Gateway key</label>
        <input
          id="key-input"
          ref={input}
          name="gateway-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          placeholder="sk-…"
          required
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
        <button id="sign-in-button" type="submit" class="button-primary" disabled={props.busy}>
          {props.busy ? 'Signing in…' : 'Sign in'}
        </button>
        {props.error ? (
          <p id="sign-in-error" class="error-text" role="alert">
            {props.error}
          </p>
        ) : null}
      </form>
    </section>
  );
}

function CsvButton(props: { download: () => ReturnType<typeof fetchCsv>; onStatus: (status: Status) => void }) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const csv = await props.download();
      // A blob URL carries the file, not the key: the key went in the request's header.
      const url = URL.createObjectURL(csv.blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = csv.fileName;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      if (csv.more)
        props.onStatus({
          kind: 'info',
          message: `The CSV holds the newest ${formatInteger(1_000)} matching requests.`,
        });
    } catch (error) {
      const message = error instanceof UsageApiError ? error.message : 'unexpected failure';
      props.onStatus({ kind: 'error', message: `The CSV export failed: ${message}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <button id="download-csv" type="button" class="button-primary" disabled={busy} onClick={() => void run()}>
      {busy ? 'Preparing CSV…' : 'Download CSV'}
    </button>
  );
}
