/** Reads of request bodies, which arrive as `unknown`: the fake upstream tolerates any shape, as a provider would not. */
export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function recordAt(value: unknown, key: string): JsonRecord | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return isRecord(field) ? field : undefined;
}

export function arrayAt(value: unknown, key: string): unknown[] {
  const field = isRecord(value) ? value[key] : undefined;
  return Array.isArray(field) ? field : [];
}

export function stringAt(value: unknown, key: string): string | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return typeof field === 'string' ? field : undefined;
}

/** The text of a content value that is either a string or a list of parts carrying `text`. */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => stringAt(part, 'text') ?? textOfContent(isRecord(part) ? part['content'] : undefined))
    .join('');
}
