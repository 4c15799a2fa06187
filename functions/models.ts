import { handleModels } from '../shared/pipeline/handle-models.ts';
import { openRequestPathStore } from './request-path-store.ts';
import { streamingEntry } from './streaming-entry.ts';

/** `GET /v1/models`. */
export const handler = streamingEntry((services, request) => handleModels(services, request), openRequestPathStore);
