import { badRequest } from '../http/gateway-error.ts';
import type { AlertPage, AlertPosition, AlertStore } from '../store/store-port.ts';
import type { StoredAlert } from './alert-delivery-state.ts';
import { alertTypes } from './alert-event.ts';

const defaultLimit = 50;
const maxLimit = 200;

/** `GET /admin/v1/alerts` as the CLI and the console read it: newest first, a page at a time. */
export interface AlertListAnswer {
  alerts: StoredAlert[];
  nextCursor: string | null;
}

/**
 * The cursor is the page's last alert, opaque to clients. Hex, not base64: the read stage refuses query values that
 * look like credentials (high-entropy base64 runs), and a hex run never does.
 */
export function encodeAlertCursor(position: AlertPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('hex');
}

function decodeAlertCursor(cursor: string): AlertPosition {
  try {
    if (!/^(?:[0-9a-f]{2})+$/.test(cursor)) throw new Error('not hex');
    const [at, id] = JSON.parse(Buffer.from(cursor, 'hex').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string') return { at, id };
  } catch {
    // Refused below, as any cursor the gateway did not make.
  }
  throw badRequest('invalid_cursor', 'The cursor is not one this list gave.');
}

/** Reads the query (`limit`, `cursor`, `type`), refusing what is malformed with a 400 before the store is asked. */
export async function listAlerts(alerts: AlertStore, query: URLSearchParams): Promise<AlertListAnswer> {
  const limitText = query.get('limit');
  const limit = limitText === null ? defaultLimit : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    throw badRequest('invalid_limit', `limit is a whole number from 1 to ${maxLimit}.`);
  }
  const type = query.get('type') ?? undefined;
  if (type !== undefined && !(alertTypes as readonly string[]).includes(type)) {
    throw badRequest('invalid_alert_type', `type is one of ${alertTypes.join(', ')}.`);
  }
  const cursor = query.get('cursor');
  const page: AlertPage = await alerts.list({
    limit,
    after: cursor === null ? undefined : decodeAlertCursor(cursor),
    type,
  });
  return { alerts: page.alerts, nextCursor: page.next && encodeAlertCursor(page.next) };
}
