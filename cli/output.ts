/** What a command prints: its JSON document with `--json`, else lines for a person. */

/** `--json`: the machine-readable form of a command's answer. */
export interface JsonOption {
  json?: boolean;
}

/** Prints `value` as indented JSON with `--json`, else the lines `text` makes of it. */
export function printAnswer<T>(options: JsonOption, value: T, text: (value: T) => string): void {
  console.log(options.json === true ? JSON.stringify(value, null, 2) : text(value));
}

/**
 * Aligned columns two spaces apart: a header row, then one row per item (cells may be empty).
 * With `numbersRight`, a number (`12`, `3 / 4`) after the first column is aligned right.
 */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: { numbersRight?: boolean } = {},
): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((cells) => (cells[column] ?? '').length)));
  const isNumber = (cell: string) => !Number.isNaN(Number(cell.replace(/[/ ]/g, '')));
  return all
    .map((cells) =>
      cells
        .map((cell, column) =>
          options.numbersRight === true && column > 0 && isNumber(cell)
            ? cell.padStart(widths[column] ?? 0)
            : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
