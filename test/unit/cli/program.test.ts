import type { Command } from 'commander';
import { gridwireProgram, gridwireVersion } from '../../../cli/program';

const find = (program: Command, ...names: string[]): Command =>
  names.reduce((command, name) => {
    const sub = command.commands.find((candidate) => candidate.name() === name);
    if (sub === undefined) throw new Error(`no command ${name}`);
    return sub;
  }, program);

describe('the gridwire program', () => {
  it('marks the options a command requires in its help, and only those', () => {
    const help = find(gridwireProgram(), 'subscription', 'create').helpInformation();
    const line = (flag: string) =>
      help.split('\n').find((text) => text.trimStart().startsWith(`${flag} `)) ?? '';
    expect(line('--topic')).toMatch(/\(required\)$/);
    expect(line('--name')).toMatch(/\(required\)$/);
    // A webhook or an AWS resource: one of the two, checked when the command runs.
    expect(line('--endpoint')).not.toContain('(required)');
    expect(line('--resource-arn')).toContain('AWS resource');
    expect(line('--namespace')).not.toContain('(required)');
    expect(line('--max-delivery-attempts')).not.toContain('(required)');
    // Deeper commands too, and those of the older command groups.
    expect(find(gridwireProgram(), 'deadletters', 'list').helpInformation()).toMatch(
      /--subscription <name> .*\(required\)/,
    );
  });

  it('has every az-shaped command', () => {
    const program = gridwireProgram();
    expect(
      find(program, 'topic')
        .commands.map((command) => command.name())
        .sort(),
    ).toEqual(['create', 'delete', 'keys', 'list', 'regenerate-key', 'show', 'update'].sort());
    expect(
      find(program, 'subscription')
        .commands.map((command) => command.name())
        .sort(),
    ).toEqual(
      ['create', 'delete', 'list', 'pause', 'resume', 'show', 'signing-secret', 'update', 'validate'].sort(),
    );
    expect(program.version()).toBe(gridwireVersion());
    expect(gridwireVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
