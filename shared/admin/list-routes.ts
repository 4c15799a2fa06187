import { badRequest } from '../http/gateway-error.ts';
import type { GatewayRequest } from '../http/gateway-request.ts';
import { memberStatuses, toConnectionView } from '../store/control-items.ts';
import { StoreNotFoundError } from '../store/store-errors.ts';
import type { AdminRoute } from './admin-route.ts';
import { idSchema } from './admin-schemas.ts';
import { memberViews, shownKey } from './member-views.ts';
import { decodeCursor, encodeCursor, pageLimit } from './page-cursor.ts';

/**
 * The paged, filtered lists of the admin API and one member's view. A cursor is the store's own position, hex
 * encoded (page-cursor.ts); `next` is null on the last page.
 */
const isStorePosition = (value: unknown): value is { p: string } =>
  typeof value === 'object' && value !== null && typeof (value as { p?: unknown }).p === 'string';

function cursorOf(request: GatewayRequest): string | undefined {
  const cursor = request.query.get('cursor');
  return cursor ? decodeCursor(cursor, isStorePosition).p : undefined;
}

const nextCursor = (next: string | undefined) => (next === undefined ? null : encodeCursor({ p: next }));

function nameFilter(request: GatewayRequest): string | undefined {
  const name = request.query.get('name');
  if (name === null || name === '') return undefined;
  if (name.length > 200) throw badRequest('invalid_query', 'name: at most 200 characters.');
  return name;
}

function stateFilter<State extends string>(request: GatewayRequest, states: readonly State[]): State | undefined {
  const state = request.query.get('state');
  if (state === null || state === '') return undefined;
  if (!(states as readonly string[]).includes(state)) {
    throw badRequest('invalid_query', `state: one of ${states.join(', ')}.`);
  }
  return state as State;
}

export const listRoutes: AdminRoute[] = [
  {
    method: 'GET',
    pattern: '/members',
    audience: 'admin',
    async action({ services, request }) {
      const page = await services.store.members.page({
        limit: pageLimit(request.query.get('limit')),
        after: cursorOf(request),
        name: nameFilter(request),
        status: stateFilter(request, memberStatuses),
      });
      return {
        status: 200,
        body: { members: await memberViews(services, page.members), nextCursor: nextCursor(page.next) },
      };
    },
  },
  {
    method: 'GET',
    pattern: '/members/:id',
    audience: 'admin',
    async action({ services, id }) {
      const member = await services.store.members.get(id, { consistent: true });
      if (!member) throw new StoreNotFoundError('member', `No member has the id ${id}.`);
      const [view] = await memberViews(services, [member]);
      return { status: 200, body: { member: view } };
    },
  },
  {
    method: 'GET',
    pattern: '/keys',
    audience: 'admin',
    async action({ services, request }) {
      const memberId = request.query.get('memberId') ?? undefined;
      if (memberId !== undefined && !idSchema.safeParse(memberId).success) {
        throw badRequest('invalid_query', 'memberId: not an id.');
      }
      const now = services.now();
      const page = await services.store.keys.page({
        limit: pageLimit(request.query.get('limit')),
        after: cursorOf(request),
        memberId,
        name: nameFilter(request),
        state: stateFilter(request, ['active', 'revoked', 'expired'] as const),
        now,
      });
      return {
        status: 200,
        body: { keys: page.keys.map((key) => shownKey(key, now)), nextCursor: nextCursor(page.next) },
      };
    },
  },
  {
    method: 'GET',
    pattern: '/connections',
    audience: 'admin',
    // A team has a handful of connections: they are read whole, filtered and paged here, oldest first.
    async action({ services, request }) {
      const limit = pageLimit(request.query.get('limit'));
      const after = cursorOf(request);
      const name = nameFilter(request)?.toLowerCase();
      const state = stateFilter(request, ['enabled', 'disabled'] as const);
      const matching = (await services.store.connections.list())
        .map(toConnectionView)
        .filter(
          (connection) =>
            (name === undefined ||
              connection.provider.toLowerCase().includes(name) ||
              connection.id.toLowerCase().includes(name)) &&
            (state === undefined || connection.enabled === (state === 'enabled')),
        );
      const start = after === undefined ? 0 : matching.findIndex((connection) => connection.id === after) + 1;
      if (after !== undefined && start === 0)
        throw badRequest('invalid_cursor', 'The cursor is not one this list gave.');
      const page = matching.slice(start, start + limit);
      const more = start + limit < matching.length;
      return { status: 200, body: { connections: page, nextCursor: more ? nextCursor(page.at(-1)?.id) : null } };
    },
  },
];
