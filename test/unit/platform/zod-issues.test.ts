/** The shared wording of a failed zod parse: the first issue, where it is and what is wrong. */
import { z } from 'zod';
import { firstIssue, issuePath, malformedMessage } from '../../../shared/platform/zod-issues';

const schema = z.object({
  name: z.string({ error: 'must be text' }),
  items: z.array(z.object({ attempts: z.number().int().min(0, { error: 'must be 0 or more' }) })),
});

const errorOf = (input: unknown) => {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error('expected a failed parse');
  return parsed.error;
};

describe('issuePath', () => {
  it.each<[(string | number)[], 'dotted' | 'bracketed' | undefined, string]>([
    [[], undefined, ''],
    [['name'], undefined, 'name'],
    [['items', 0, 'attempts'], undefined, 'items.0.attempts'],
    [['items', 0, 'attempts'], 'bracketed', 'items[0].attempts'],
    [['keys', 1], 'bracketed', 'keys[1]'],
    [[2], 'bracketed', '[2]'],
  ])('%j (%s) is %s', (path, indexes, text) => {
    expect(issuePath(path, indexes === undefined ? {} : { indexes })).toBe(text);
  });
});

describe('firstIssue', () => {
  it('names the first failing field and its message', () => {
    const first = firstIssue(errorOf({ name: 7, items: [{ attempts: -1 }] }));
    expect(first).toMatchObject({ path: 'name', message: 'must be text' });
    expect(first?.issue.code).toBe('invalid_type');
  });

  it('reaches into arrays, dotted or bracketed', () => {
    const error = errorOf({ name: 'a', items: [{ attempts: 1 }, { attempts: -1 }] });
    expect(firstIssue(error)).toMatchObject({ path: 'items.1.attempts', message: 'must be 0 or more' });
    expect(firstIssue(error, { indexes: 'bracketed' })?.path).toBe('items[1].attempts');
  });

  it('gives an empty path when the value itself is wrong, and nothing for an error without issues', () => {
    expect(firstIssue(errorOf('text'))?.path).toBe('');
    expect(firstIssue(new z.ZodError([]))).toBeUndefined();
  });
});

describe('malformedMessage', () => {
  it('says what is malformed, where and why', () => {
    expect(malformedMessage('job message', errorOf({ name: 'a', items: [{ attempts: -1 }] }))).toBe(
      'job message is malformed at items.0.attempts: must be 0 or more',
    );
  });

  it('still says something for an error without issues', () => {
    expect(malformedMessage('stored item T/S', new z.ZodError([]))).toBe(
      'stored item T/S is malformed at ?: invalid',
    );
  });
});
