export interface Column<Row> {
  readonly header: string;
  readonly cell: (row: Row) => string;
}

const columnGap = '  ';

/** Columns padded to their widest cell; the last column is not padded, so lines carry no trailing spaces. */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const lines = [
    columns.map((column) => column.header),
    ...rows.map((row) => columns.map((column) => column.cell(row))),
  ];
  const widths = columns.map((_, index) => Math.max(...lines.map((cells) => (cells[index] ?? '').length)));
  return lines
    .map((cells) =>
      cells
        .map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join(columnGap)
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** `label: value` lines with the values aligned. */
export function renderFields(fields: readonly (readonly [label: string, value: string])[]): string {
  const width = Math.max(...fields.map(([label]) => label.length + 1));
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)} ${value}\n`).join('');
}

/** Unset values show as a dash, so a column never looks shifted by an empty cell. */
export function orDash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}
