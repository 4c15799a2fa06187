import { handleAdmin } from '../shared/admin/admin-api.ts';
import { openFullStore } from './full-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/** The admin API under `/admin/v1/`. */
export const handler = streamingEntry((services, request) => handleAdmin(services, request), openFullStore);
