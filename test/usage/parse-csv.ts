/**
 * A strict RFC 4180 reader for the tests: CRLF records, quoted fields with doubled quotes. Written apart from
 * the exporter on purpose, so a test that parses the export back checks the format, not the same code twice.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  let quoted = false;
  while (index < text.length) {
    const char = text[index] as string;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 2;
      } else if (char === '"') {
        quoted = false;
        index += 1;
      } else {
        field += char;
        index += 1;
      }
      continue;
    }
    if (char === '"' && field.length === 0) {
      quoted = true;
      index += 1;
    } else if (char === ',') {
      record.push(field);
      field = '';
      index += 1;
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 2;
    } else if (char === '\n' || char === '\r' || char === '"') {
      throw new Error(`not RFC 4180: bare ${JSON.stringify(char)} at offset ${index}`);
    } else {
      field += char;
      index += 1;
    }
  }
  if (quoted) throw new Error('not RFC 4180: an unterminated quoted field');
  if (field.length > 0 || record.length > 0) throw new Error('not RFC 4180: the last record has no CRLF');
  return records;
}
