/** The benchmark's console output: a line per step, and a progress line that rewrites itself on a terminal. */
export const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export const progress = (line: string): void => {
  if (process.stdout.isTTY) process.stdout.write(`\r\x1b[2K${line}`);
  else log(line);
};

export const endProgress = (): void => {
  if (process.stdout.isTTY) process.stdout.write('\n');
};
