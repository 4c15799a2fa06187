import { handleUsage } from '../shared/usage/usage-api.ts';
import { openFullStore } from './full-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/** The usage data API under `/usage-api/v1/`, read by the usage page at `/app/usage`. */
export const handler = streamingEntry((services, request) => handleUsage(services, request), openFullStore);
