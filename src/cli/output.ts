// How the query commands print: an aligned table for people, JSON or YAML of the service's own
// objects for scripts. No colours, so a table piped into a file or grep stays plain text.
import { stringify } from 'yaml';

export type OutputFormat = 'table' | 'json' | 'yaml';

export interface Table {
  columns: string[];
  rows: string[][];
}

/** Columns left-aligned, padded to the widest cell, three spaces apart, as kubectl does. */
export function renderTable({ columns, rows }: Table): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('   ')
      .trimEnd();
  return `${[columns, ...rows].map(line).join('\n')}\n`;
}

/** `value` is what json and yaml print; `table` builds the rows only when a table is asked for. */
export function print(format: OutputFormat, value: unknown, table: () => Table): void {
  process.stdout.write(format === 'table' ? renderTable(table()) : serialize(format, value));
}

export function serialize(format: 'json' | 'yaml', value: unknown): string {
  return format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : stringify(value);
}

/** A table cell for a value the service may leave empty. */
export const cell = (value: string | number | boolean | null | undefined): string =>
  value === null || value === undefined || value === '' ? '<none>' : String(value);
