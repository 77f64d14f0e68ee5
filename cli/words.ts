/**
 * Options written as several words after one flag, and repeatable, as the Azure CLI writes them:
 * `--advanced-filter data.total NumberGreaterThan 100 --advanced-filter data.region StringIn eu uk`.
 * A commander option takes the words of every occurrence as one list, so before parsing each
 * occurrence's words are joined into one argument ({@link groupOptionWords}), and the option's
 * parser splits them again ({@link optionWords}). One quoted argument
 * (`--advanced-filter "data.total NumberGreaterThan 100"`) works the same.
 */

/** The flags whose words are grouped per occurrence. */
export const MULTI_WORD_FLAGS = ['--advanced-filter', '--delivery-attribute-mapping'] as const;

/** Joins the words of one occurrence: a character no shell argument a user types holds. */
const WORD_JOIN = '\u001f';

/** A flag, not a value: `--name`, or a one-letter `-x` (a negative number such as `-5` is a value). */
const isFlag = (arg: string) => arg.startsWith('--') || /^-[a-zA-Z]$/.test(arg);

/** `argv` with the words after each multi-word flag joined into one argument per occurrence. */
export function groupOptionWords(argv: readonly string[]): string[] {
  const grouped: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    grouped.push(arg);
    if (arg === '--') {
      grouped.push(...argv.slice(index + 1));
      break;
    }
    if (!(MULTI_WORD_FLAGS as readonly string[]).includes(arg)) continue;
    const words: string[] = [];
    while (index + 1 < argv.length && !isFlag(argv[index + 1] as string)) {
      index += 1;
      words.push(argv[index] as string);
    }
    if (words.length > 0) grouped.push(words.join(WORD_JOIN));
  }
  return grouped;
}

/** The words of one occurrence: as grouped, or one quoted argument split at white space. */
export function optionWords(value: string): string[] {
  const words = value.includes(WORD_JOIN) ? value.split(WORD_JOIN) : value.trim().split(/\s+/);
  return words.filter((word) => word !== '');
}
