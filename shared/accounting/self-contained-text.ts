import { badRequest } from '../http/gateway-error.ts';

/**
 * Spec §8 accounting rule 4: under a finite token allowance, a request must be self-contained text, because
 * the gateway cannot estimate what a remote file or a server-stored conversation will cost before it
 * reserves. Inline data (a `data:` URL, base64 bytes) is self-contained: its size is in the body and the
 * estimate prices it. The walk covers the shapes of every wire the gateway accepts.
 */
const storedReferenceFields = new Set([
  'previous_response_id',
  'conversation',
  'conversation_id',
  'cachedContent',
  'cached_content',
  'prompt_cache_key_reference',
  'container',
]);
const fileReferenceFields = new Set(['file_id', 'fileUri', 'file_uri', 'file_url']);
/** Definitions, not content: a tool parameter may well be called `file_id` or `url`. */
const definitionFields = new Set([
  'tools',
  'functions',
  'response_format',
  'responseSchema',
  'response_schema',
  'responseJsonSchema',
  'generationConfig',
  'generation_config',
  'text',
]);

export function assertSelfContainedText(body: unknown): void {
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      // One push per item: spreading a very long array into arguments overflows the call stack.
      for (const item of value) pending.push(item);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    for (const [field, inner] of Object.entries(value)) {
      if (inner === null || inner === undefined || definitionFields.has(field)) continue;
      if (storedReferenceFields.has(field)) {
        throw badRequest(
          'stored_reference_refused',
          `"${field}" refers to server-stored state; under a finite token allowance send the whole conversation.`,
        );
      }
      if (fileReferenceFields.has(field) || isRemoteUrl(field, inner) || isRemoteSource(value, field, inner)) {
        throw badRequest(
          'remote_media_refused',
          'Remote media (a file id or URL) cannot be estimated; under a finite token allowance send inline data.',
        );
      }
      pending.push(inner);
    }
  }
}

/** `image_url`, `audio_url` and the like: a string or `{url}` that is not inline `data:`. */
function isRemoteUrl(field: string, value: unknown): boolean {
  if (!/_url$|^url$/.test(field)) return false;
  const url = typeof value === 'string' ? value : (value as { url?: unknown }).url;
  return typeof url === 'string' && !url.startsWith('data:');
}

/** Messages-format media: `{type:'image'|'document', source:{type:'url'|'file', …}}`. */
function isRemoteSource(container: object, field: string, value: unknown): boolean {
  if (field !== 'source' || typeof value !== 'object' || value === null) return false;
  const kind = (container as { type?: unknown }).type;
  const sourceType = (value as { type?: unknown }).type;
  return (kind === 'image' || kind === 'document') && (sourceType === 'url' || sourceType === 'file');
}
