import { handleAdmin } from '../shared/admin/admin-api.ts';
import { openFullStore } from './full-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/**
 * The admin API under `/admin/v1/`, and sign-in under `/app/auth/`: sign-in is loaded on its first request only, so
 * the admin API's requests do not load openid-client and jose.
 */
export const handler = streamingEntry(async (services, request) => {
  if (request.path.startsWith('/app/auth/')) {
    const { handleSignIn } = await import('../shared/sign-in/sign-in-routes.ts');
    return handleSignIn(services, request);
  }
  return handleAdmin(services, request);
}, openFullStore);
