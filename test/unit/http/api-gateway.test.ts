import {
  type HttpEvent,
  header,
  MAX_JSON_DEPTH,
  parseJsonBytes,
  pathParam,
  publicBaseUrl,
} from '../../../shared/http/api-gateway';
import { badRequest } from '../../../shared/http/errors';

describe('HTTP helpers', () => {
  const event = (headers: Record<string, string>, domainName = 'abc.execute-api.eu-west-1.amazonaws.com') =>
    ({ headers, requestContext: { domainName, stage: '$default' } }) as unknown as HttpEvent;

  it('finds headers whatever their case', () => {
    expect(header(event({ 'AEG-SAS-KEY': 'k' }), 'aeg-sas-key')).toBe('k');
  });

  it('refuses a path parameter that is not validly percent-encoded', () => {
    const withParam = (topic: string) => ({ pathParameters: { topic } }) as unknown as HttpEvent;
    expect(pathParam(withParam('my%2Dtopic'), 'topic')).toBe('my-topic');
    expect(() => pathParam(withParam('bad%E0%A4%A'), 'topic')).toThrow(
      "The path parameter 'topic' is not validly percent-encoded.",
    );
  });

  it('takes the public URL from configuration only, without a trailing slash', () => {
    expect(publicBaseUrl('https://events.example.com/')).toBe('https://events.example.com');
    expect(publicBaseUrl('https://abc.execute-api.eu-west-1.amazonaws.com')).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com',
    );
  });

  it('parses JSON bodies with errors that name the limit or the problem', () => {
    expect(parseJsonBytes(Buffer.from('[1]'), 10)).toEqual([1]);
    expect(() => parseJsonBytes(Buffer.from('[1,2,3]'), 3)).toThrow(
      'The request body is 7 bytes; the limit is 3 bytes.',
    );
    expect(() => parseJsonBytes(Buffer.alloc(0), 3)).toThrow(/empty/);
    expect(() => parseJsonBytes(Buffer.from('{'), 3)).toThrow(/not valid JSON/);
    const nested = (levels: number) => Buffer.from(`${'['.repeat(levels)}${']'.repeat(levels)}`);
    expect(parseJsonBytes(nested(MAX_JSON_DEPTH), 1000)).toBeDefined();
    expect(() => parseJsonBytes(nested(MAX_JSON_DEPTH + 1), 1000)).toThrow(
      'The request body nests 101 levels deep; at most 100 levels of arrays and objects are allowed.',
    );
    expect(badRequest('x').toBody()).toEqual({
      error: { code: 'BadRequest', message: 'x', details: [{ code: 'InputJsonInvalid', message: 'x' }] },
    });
  });
});
