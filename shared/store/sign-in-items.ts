import type { SessionStore } from './store-port.ts';

/**
 * What sign-in keeps in the store: the gateway's own sessions (by the SHA-256 of their id, never the id), sign-ins
 * begun and not yet finished (by the SHA-256 of their `state`), and which member a person of the provider stands
 * for (by the provider's subject). The ID token and the provider's tokens are never stored.
 */
export interface SessionRecord {
  idHash: string;
  memberId: string;
  /** From the person's groups at sign-in: administrators by group, everyone else a member. */
  role: 'admin' | 'member';
  /** The provider's subject, and the e-mail it verified, for the audit trail. */
  subject: string;
  email: string;
  /** `console`: the HttpOnly cookie of the page; `cli`: `Authorization: Session <id>` from the admin CLI. */
  client: 'console' | 'cli';
  createdAt: string;
  expiresAt: string;
}

/** A sign-in begun at `/app/auth/login`: what its callback must find, once. */
export interface PendingSignIn {
  stateHash: string;
  /** PKCE: the verifier of the challenge sent to the provider; never leaves the gateway. */
  codeVerifier: string;
  nonce: string;
  /** The SHA-256 of the random value in the browser's short-lived login cookie: the callback must come from there. */
  browserBindingHash: string;
  /** For the CLI: the loopback address to return to and the S256 challenge of the CLI's own verifier. */
  cli?: { returnTo: string; codeChallenge: string } | undefined;
  expiresAt: string;
}

/** A one-time code the CLI exchanges (with its PKCE verifier) for a session. */
export interface CliGrant {
  codeHash: string;
  codeChallenge: string;
  session: SessionRecord;
  /** The session's id, handed to the CLI at the exchange; the grant lives a minute and is taken once. */
  sessionId: string;
  expiresAt: string;
}

/**
 * A device sign-in (RFC 8628) the CLI began at `/app/auth/device`: the provider's device authorization answer, its
 * `device_code` included, which never leaves the gateway; the CLI holds only the handle whose SHA-256 keys it.
 */
export interface PendingDeviceSignIn {
  handleHash: string;
  /** The provider's device authorization response, as openid-client returned it (its `device_code` included). */
  authorization: {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete?: string | undefined;
    expires_in: number;
    interval?: number | undefined;
  };
  expiresAt: string;
}

export type SignInItemKind = 'session' | 'pending' | 'person' | 'cli-grant' | 'device';

/**
 * The few operations each engine provides for sign-in's items, in its own idiom; `sessionStoreOver` builds the
 * port's verbs on them once for both. `expiresAt` is epoch milliseconds, or null for items that do not expire.
 */
export interface SignInItems {
  /** False when an item of that kind and id exists already (nothing is written then). */
  putOnce(kind: SignInItemKind, id: string, value: string, expiresAt: number | null): Promise<boolean>;
  get(kind: SignInItemKind, id: string): Promise<{ value: string; expiresAt: number | null } | undefined>;
  /** Removes the item and returns what it held: two callers never both get it. */
  take(kind: SignInItemKind, id: string): Promise<{ value: string; expiresAt: number | null } | undefined>;
  remove(kind: SignInItemKind, id: string): Promise<void>;
}

const live = (item: { expiresAt: number | null } | undefined, now: Date) =>
  item !== undefined && (item.expiresAt === null || item.expiresAt > now.getTime());

export function sessionStoreOver(items: SignInItems): SessionStore {
  return {
    async create(session) {
      await items.putOnce('session', session.idHash, JSON.stringify(session), Date.parse(session.expiresAt));
    },
    async find(idHash, now) {
      const item = await items.get('session', idHash);
      return live(item, now) ? (JSON.parse((item as { value: string }).value) as SessionRecord) : undefined;
    },
    remove: (idHash) => items.remove('session', idHash),
    async begin(pending) {
      await items.putOnce('pending', pending.stateHash, JSON.stringify(pending), Date.parse(pending.expiresAt));
    },
    async take(stateHash, now) {
      const item = await items.take('pending', stateHash);
      return live(item, now) ? (JSON.parse((item as { value: string }).value) as PendingSignIn) : undefined;
    },
    async grantCli(grant) {
      await items.putOnce('cli-grant', grant.codeHash, JSON.stringify(grant), Date.parse(grant.expiresAt));
    },
    async takeCliGrant(codeHash, now) {
      const item = await items.take('cli-grant', codeHash);
      return live(item, now) ? (JSON.parse((item as { value: string }).value) as CliGrant) : undefined;
    },
    async beginDevice(pending) {
      await items.putOnce('device', pending.handleHash, JSON.stringify(pending), Date.parse(pending.expiresAt));
    },
    async takeDevice(handleHash, now) {
      const item = await items.take('device', handleHash);
      return live(item, now) ? (JSON.parse((item as { value: string }).value) as PendingDeviceSignIn) : undefined;
    },
    async personMember(subject) {
      return (await items.get('person', subject))?.value;
    },
    async linkPerson(subject, memberId) {
      if (await items.putOnce('person', subject, memberId, null)) return memberId;
      return (await items.get('person', subject))?.value ?? memberId;
    },
    unlinkPerson: (subject) => items.remove('person', subject),
  };
}
