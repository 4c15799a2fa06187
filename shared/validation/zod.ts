import { en } from 'zod/locales';
import { config } from 'zod/mini';

/**
 * The one place the code base gets zod from, as `import * as z from '../validation/zod.ts'`. It is zod's
 * functional API (`zod/mini`), which bundlers can tree-shake, unlike the classic one whose methods pull the whole
 * library into every Lambda bundle. Import it as a namespace, as above: a bundler keeps only the members used.
 *
 * zod/mini loads no locale of its own, so the English messages (the ones classic zod uses, and that clients see
 * in `invalid_request` errors) are configured here, once, before any schema can parse. Only `en` is imported:
 * `z.locales` would bundle every language.
 */
config(en());

export * from 'zod/mini';
