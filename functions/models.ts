import { handleHolderPolicy } from '../shared/pipeline/handle-holder-policy.ts';
import { handleModels } from '../shared/pipeline/handle-models.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/**
 * The reads of the request path: `GET /v1/models`, `/v1/models/<id>`, `/v1beta/models`, `/v1beta/models/<id>`
 * and `/v1/holder-policy`. Also CloudFront's default behaviour, answering every path no route serves.
 */
export const handler = streamingEntry(
  (services, request, route) =>
    route.route.id === 'holder-policy' ? handleHolderPolicy(services, request) : handleModels(services, request, route),
  openRequestPathStore,
);
