import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * An item's size as DynamoDB bills it (Developer Guide, "Item sizes and formats"): the UTF-8 length of every
 * attribute name plus its value — a string its UTF-8 length, a number about one byte per two significant digits
 * plus one, binary its length, a boolean or null one byte, a list or map three bytes plus, per element, one byte
 * and the element (a map's element also its name), a set the sum of its elements.
 */
export function itemSize(item: Readonly<Record<string, AttributeValue>>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8(name) + valueSize(value);
  return size;
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

function numberSize(text: string): number {
  const digits = text
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1 + (text.startsWith('-') ? 1 : 0);
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (value.M !== undefined) {
    return 3 + Object.entries(value.M).reduce((sum, [name, element]) => sum + 1 + utf8(name) + valueSize(element), 0);
  }
  if (value.SS !== undefined) return value.SS.reduce((sum, element) => sum + utf8(element), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, element) => sum + numberSize(element), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, element) => sum + element.byteLength, 0);
  throw new Error(`an attribute value of no known type: ${JSON.stringify(value)}`);
}

/** Write units of one write: the larger of the item before and after it, in whole kilobytes, at least one. */
export function writeUnits(before: number, after: number): number {
  return Math.max(1, Math.ceil(Math.max(before, after) / 1024));
}
