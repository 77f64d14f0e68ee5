/**
 * Labels on the command line (`--labels` of `subscription create|update`, `--label` of
 * `portal-link`): `tenant=acme team=web` or `tenant=acme,team=web`, checked against the limits the
 * API holds them to (`LABEL_LIMITS`), naming the flag.
 */
import { InvalidArgumentError } from 'commander';
import { LABEL_LIMITS } from '../shared/sessions/scope';

/**
 * The parser of a labels flag: each value is one label or several separated by commas (so a
 * label given here holds no comma), accumulated over the flag's words and repeats. An empty
 * value (`--labels ""`) adds none.
 */
export const labelsArgument =
  (flag: string) =>
  (value: string, previous: string[] | false | undefined): string[] => {
    const added = value
      .split(',')
      .map((label) => label.trim())
      .filter((label) => label !== '');
    for (const label of added) {
      if (label.length > LABEL_LIMITS.length) {
        throw new InvalidArgumentError(
          `${flag}: the label '${label.slice(0, 24)}…' is ${label.length} characters long; the limit is ${LABEL_LIMITS.length}.`,
        );
      }
    }
    const labels = [...new Set([...(Array.isArray(previous) ? previous : []), ...added])];
    if (labels.length > LABEL_LIMITS.count) {
      throw new InvalidArgumentError(
        `${flag}: at most ${LABEL_LIMITS.count} labels (${labels.length} given).`,
      );
    }
    return labels;
  };
