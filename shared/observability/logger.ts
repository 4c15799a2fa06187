import { FlatLineLogger } from './flat-line-logger.ts';

/**
 * Structured JSON logs. Callers log ids, names, statuses, token counts and durations; never a body, a key or a
 * provider credential. `infoFlat` prints what `info` would, cheaper, for a line of plain values (the settled request's).
 */
export const logger = new FlatLineLogger({ serviceName: 'model-gateway' });
