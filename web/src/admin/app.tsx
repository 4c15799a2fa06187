import { useEffect, useState } from 'preact/hooks';
import { forgetSessionKey, readSessionKey, saveSessionKey } from '../session-key.ts';
import type { KeysAnswer } from '../usage-types.ts';
import { type Credential, callJson, GatewayError, readSession, signOutSession } from './admin-client.ts';
import type { SessionAnswer } from './admin-types.ts';
import { AlertsView } from './alerts-view.tsx';
import { AuditView } from './audit-view.tsx';
import { ConnectionsView } from './connections-view.tsx';
import { HoldersView } from './holders-view.tsx';
import { KeysView } from './keys-view.tsx';
import { MembersView } from './members-view.tsx';
import { MyPage } from './my-page.tsx';
import { SettingsView } from './settings-view.tsx';

export interface Viewer {
  memberId: string;
  memberName: string;
  role: string;
}

export interface Signed {
  credential: Credential;
  viewer: Viewer;
}

const views = [
  { id: 'members', title: 'Members' },
  { id: 'keys', title: 'Keys' },
  { id: 'connections', title: 'Connections' },
  { id: 'holders', title: 'Holders' },
  { id: 'audit', title: 'Audit log' },
  { id: 'alerts', title: 'Alerts' },
  { id: 'settings', title: 'Settings' },
] as const;
type ViewId = (typeof views)[number]['id'] | 'me';

/** The view named in the address's fragment (`#keys?member=mem_…`): names and ids only, never a credential. */
function readRoute(): { view: ViewId; params: URLSearchParams } {
  const [name = '', query = ''] = location.hash.replace(/^#/, '').split('?');
  const view = [...views.map((entry) => entry.id), 'me'].includes(name) ? (name as ViewId) : 'members';
  return { view, params: new URLSearchParams(query) };
}

/** Who the credential belongs to: the usage API's viewer answers for any active key or session. */
async function identify(credential: Credential): Promise<Viewer> {
  const answer = await callJson<KeysAnswer>(credential, '/usage-api/v1/keys');
  return { memberId: answer.viewer.memberId, memberName: answer.viewer.memberName, role: answer.viewer.role };
}

function signInMessage(error: unknown): string {
  if (error instanceof GatewayError && error.status === 401)
    return 'That key was not accepted. Check it and try again.';
  if (error instanceof GatewayError && error.status === 403) return `Sign-in refused: ${error.message}`;
  if (error instanceof GatewayError) return error.message;
  return 'Signing in failed unexpectedly. Try again.';
}

export function App() {
  const [signed, setSigned] = useState<Signed | null>(null);
  const [session, setSession] = useState<SessionAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [route, setRoute] = useState(readRoute);

  useEffect(() => {
    const onHash = () => setRoute(readRoute());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const signIn = async (credential: Credential) => {
    try {
      const viewer = await identify(credential);
      if (credential.kind === 'key') saveSessionKey(credential.key);
      setError(null);
      setSigned({ credential, viewer });
    } catch (failure) {
      if (credential.kind === 'key') forgetSessionKey();
      setError(signInMessage(failure));
    }
  };

  useEffect(() => {
    void (async () => {
      const stored = readSessionKey();
      if (stored) return signIn({ kind: 'key', key: stored });
      const state = await readSession();
      setSession(state);
      if (state.signedIn) await signIn({ kind: 'session' });
    })();
  }, []);

  const signOut = async () => {
    if (signed?.credential.kind === 'session') await signOutSession();
    forgetSessionKey();
    setSigned(null);
    setSession(await readSession());
  };

  /** A 401 on any call: the key was revoked, rotated or expired, or the session ended. */
  const onUnauthorized = () => {
    forgetSessionKey();
    setSigned(null);
    setError('Your sign-in is no longer accepted (revoked, rotated, expired or signed out). Sign in again.');
  };

  if (!signed) return <SignIn error={error} sso={session?.sso.enabled ?? false} onKey={signIn} />;
  const admin = signed.viewer.role === 'admin';
  const view: ViewId = admin ? route.view : 'me';
  const context = { signed, onUnauthorized };
  return (
    <>
      <header class="topbar">
        <div class="brand">
          Model gateway <span class="brand-page">{admin ? 'Console' : 'My keys'}</span>
        </div>
        <div class="viewer">
          <span class="viewer-name">{signed.viewer.memberName}</span>
          <span class="badge">{signed.viewer.role}</span>
          <button type="button" class="button-quiet" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="console-nav" aria-label="Console">
        <ul>
          {admin
            ? views.map((entry) => (
                <li key={entry.id}>
                  <a href={`#${entry.id}`} aria-current={view === entry.id ? 'page' : undefined}>
                    {entry.title}
                  </a>
                </li>
              ))
            : null}
          <li>
            <a href="#me" aria-current={view === 'me' ? 'page' : undefined}>
              My page
            </a>
          </li>
          <li>
            <a href="/app/usage">Usage</a>
          </li>
        </ul>
      </nav>
      <main class="console-main">
        {view === 'members' ? <MembersView {...context} /> : null}
        {view === 'keys' ? <KeysView {...context} memberFilter={route.params.get('member')} /> : null}
        {view === 'connections' ? <ConnectionsView {...context} /> : null}
        {view === 'holders' ? <HoldersView {...context} /> : null}
        {view === 'audit' ? <AuditView {...context} /> : null}
        {view === 'alerts' ? <AlertsView {...context} /> : null}
        {view === 'settings' ? <SettingsView {...context} /> : null}
        {view === 'me' ? <MyPage {...context} /> : null}
      </main>
    </>
  );
}

function SignIn(props: { error: string | null; sso: boolean; onKey: (credential: Credential) => Promise<void> }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <main class="console-main">
      <section class="card sign-in">
        <h1>Sign in to the console</h1>
        <p>
          Use your own gateway key. It stays in this browser tab only (session storage) and is sent as a request header,
          never in a URL.
        </p>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (key.trim() === '') return;
            setBusy(true);
            void props.onKey({ kind: 'key', key: key.trim() }).finally(() => {
              setBusy(false);
              setKey('');
            });
          }}
        >
          <label for="key-input">Gateway key</label>
          <input
            id="key-input"
            type="password"
            autoComplete="off"
            spellcheck={false}
            placeholder="sk-…"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
          <button type="submit" class="button-primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
          {props.error ? (
            <p class="error-text" role="alert">
              {props.error}
            </p>
          ) : null}
        </form>
        {props.sso ? (
          <p>
            <button type="button" class="button-quiet" onClick={() => location.assign('/app/auth/login')}>
              Sign in with SSO
            </button>
          </p>
        ) : null}
      </section>
    </main>
  );
}
