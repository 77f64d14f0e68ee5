/** What a command prints: its JSON document with `--json`, else lines for a person. */

/** `--json`: the machine-readable form of a command's answer. */
export interface JsonOption {
  json?: boolean;
}

/** Prints `value` as indented JSON with `--json`, else the lines `text` makes of it. */
export function printAnswer<T>(options: JsonOption, value: T, text: (value: T) => string): void {
  console.log(options.json === true ? JSON.stringify(value, null, 2) : text(value));
}

/** Aligned columns: a header row, then one row per item (cells may be empty). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
