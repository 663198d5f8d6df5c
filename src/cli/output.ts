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

export interface PrintOptions {
  /** Print `secrets[].value` as the service answered it (--show-secrets); hidden otherwise. */
  showSecrets?: boolean | undefined;
}

/** `value` is what json and yaml print; `table` builds the rows only when a table is asked for. */
export function print(
  format: OutputFormat,
  value: unknown,
  table: () => Table,
  options: PrintOptions = {},
): void {
  process.stdout.write(format === 'table' ? renderTable(table()) : serialize(format, value, options));
}

export function serialize(format: 'json' | 'yaml', value: unknown, options: PrintOptions = {}): string {
  const shown = options.showSecrets ? value : hideSecretValues(value);
  return format === 'json' ? `${JSON.stringify(shown, null, 2)}\n` : stringify(shown);
}

export const hidden = '<hidden>';

/**
 * The value of every entry of every `secrets` list, wherever it sits, replaced by `<hidden>`: a terminal,
 * a CI log or a pasted issue is not where a secret belongs.
 */
export function hideSecretValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hideSecretValues);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === 'secrets' && Array.isArray(v)
        ? v.map((s) => (typeof s === 'object' && s !== null && 'value' in s ? { ...s, value: hidden } : s))
        : hideSecretValues(v),
    ]),
  );
}

/** A table cell for a value the service may leave empty. */
export const cell = (value: string | number | boolean | null | undefined): string =>
  value === null || value === undefined || value === '' ? '<none>' : String(value);
