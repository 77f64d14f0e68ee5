/**
 * The cdk-nag rule packs the app attaches (`infra/checks.ts`), run over a construct tree by the
 * template tests: each finding not acknowledged where it occurs, as `<rule>: <construct path>`.
 */
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** The two packs, by name, for `it.each`. */
export const RULE_PACKS = [
  ['AwsSolutions', () => new AwsSolutionsChecks()],
  ['Serverless', () => new ServerlessChecks()],
] as const;

export type RulePack = (typeof RULE_PACKS)[number][1];

/** What `pack` finds unacknowledged in `scope` (empty when everything is acknowledged). */
export const unacknowledged = (pack: RulePack, scope: IConstruct): string[] =>
  pack()
    .validateScope(scope)
    .violations.map((v) => `${v.ruleName}: ${v.violatingResources[0]?.constructPath}`);
