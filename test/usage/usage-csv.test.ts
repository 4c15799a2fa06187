import { describe, expect, it } from 'vitest';
import { csvField } from '../../shared/usage/usage-csv.ts';

describe('one CSV field of the usage export', () => {
  it('quotes per RFC 4180 only what needs it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('Ops, "night"\nbatch')).toBe('"Ops, ""night""\nbatch"');
    expect(csvField(null)).toBe('');
    expect(csvField(true)).toBe('true');
  });

  it.each([
    ['=HYPERLINK("https://example.com","x")', `"'=HYPERLINK(""https://example.com"",""x"")"`],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tcmd', "'\tcmd"],
    ['\r=1', `"'\r=1"`],
  ])('text a spreadsheet would run as a formula is neutralised: %j', (text, field) => {
    expect(csvField(text)).toBe(field);
  });

  it('numbers stay numbers, negative or not', () => {
    expect(csvField(-5)).toBe('-5');
    expect(csvField(1234)).toBe('1234');
  });
});
