import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs. Callers log ids, names, statuses, token counts and durations; never a body, a key or a
 * provider credential.
 */
export const logger = new Logger({ serviceName: 'model-gateway' });
