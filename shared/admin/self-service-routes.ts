import { utcDay } from '../accounting/utc-buckets.ts';
import { issueKey, rotateKey } from '../auth/key-issuance.ts';
import { forbidden, GatewayError } from '../http/gateway-error.ts';
import { auditSnapshot, changedFields } from '../store/audit-entries.ts';
import { StoreNotFoundError, VersionConflictError } from '../store/store-errors.ts';
import { type AdminContext, type AdminRoute, parseBody } from './admin-route.ts';
import { createOwnKeyBody, updateSettingsBody } from './admin-schemas.ts';
import { memberViews, shownKey } from './member-views.ts';
import { widerField } from './policy-within.ts';

/**
 * A member's own page (`/me`), open to any active member's key (a holder key never): their view, their keys, and
 * their own keys created, rotated and revoked, within `GATEWAY_MAX_KEYS_PER_MEMBER` live keys and never with a
 * policy wider than their own. Another member's key is a 404, as if it did not exist. And the team's settings.
 */
async function ownKey(context: AdminContext) {
  const key = await context.services.store.keys.get(context.id, { consistent: true });
  if (!key || key.memberId !== context.principal.memberId) {
    throw new StoreNotFoundError('key', `You have no key with the id ${context.id}.`);
  }
  return key;
}

export const selfServiceRoutes: AdminRoute[] = [
  {
    method: 'GET',
    pattern: '/me',
    audience: 'member',
    async action({ services, principal }) {
      const now = services.now();
      const [member] = await memberViews(services, [principal.member]);
      const keys = await services.store.keys.list(principal.memberId);
      return {
        status: 200,
        body: {
          member,
          keys: keys.map((key) => shownKey(key, now)),
          limits: { maxLiveKeys: services.config.maxKeysPerMember },
        },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/me/keys',
    audience: 'member',
    async action({ services, request, principal }) {
      const body = parseBody(createOwnKeyBody, request);
      const wider = widerField(body.policy, principal.member.policy);
      if (wider) throw forbidden('policy_too_wide', `policy.${wider} is wider than your own policy allows.`);
      const now = services.now();
      const today = await services.store.admission.today([principal.memberId], utcDay(now), now);
      const live = today.get(principal.memberId)?.liveKeys ?? 0;
      const max = services.config.maxKeysPerMember;
      if (live >= max) {
        throw new GatewayError(
          409,
          'key_limit_reached',
          `You have ${live} live keys, the most a member may hold (${max}).`,
        );
      }
      const issued = await issueKey(
        services.store,
        { ...body, memberId: principal.memberId, expiresAt: body.expiresAt ?? null, tag: services.config.keyTag },
        now,
      );
      const { key: _secret, ...view } = issued;
      return {
        status: 201,
        body: issued,
        audit: {
          action: 'key.create',
          target: { type: 'key', id: issued.id },
          before: null,
          after: auditSnapshot(view),
        },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/me/keys/:id/rotate',
    audience: 'member',
    async action(context) {
      const before = await ownKey(context);
      const { services, id } = context;
      const rotated = await rotateKey(services.store, id, services.config, services.now());
      const { key: _secret, ...after } = rotated;
      return {
        status: 200,
        body: rotated,
        audit: { action: 'key.rotate', target: { type: 'key', id }, ...changedFields(before, after) },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/me/keys/:id/revoke',
    audience: 'member',
    async action(context) {
      const before = await ownKey(context);
      const key = await context.services.store.keys.revoke(context.id);
      return {
        status: 200,
        body: { key },
        audit: { action: 'key.revoke', target: { type: 'key', id: context.id }, ...changedFields(before, key) },
      };
    },
  },
  {
    method: 'GET',
    pattern: '/settings',
    audience: 'admin',
    action: async ({ services }) => ({ status: 200, body: { settings: await services.store.settings.get() } }),
  },
  {
    method: 'POST',
    pattern: '/settings/update',
    audience: 'admin',
    async action({ services, request }) {
      const { version, defaultPolicy } = parseBody(updateSettingsBody, request);
      const before = await services.store.settings.get();
      if (before.version !== version) throw new VersionConflictError('settings', before);
      const settings = await services.store.settings.update(version, defaultPolicy);
      return {
        status: 200,
        body: { settings },
        audit: {
          action: 'settings.update',
          target: { type: 'settings', id: 'team' },
          ...changedFields(before, settings),
        },
      };
    },
  },
];
