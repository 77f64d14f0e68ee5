import {
  MIN_SECRET_CHARS,
  queryValuesOf,
  REDACTED,
  redactResult,
  redactSecrets,
  redactTokenFields,
  requestCredentialsOf,
} from '../../../../shared/delivery/rules/redact';

/** A secret with characters each encoding treats its own way: a space, `/`, `+`, `"`, `&` and a non-ASCII one. */
const SECRET = 'k3y "s/v+1&é';
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
/** JSON as Python writes it by default: every non-ASCII character as `\uXXXX`, lowercase. */
const asciiJson = (text: string) =>
  JSON.stringify(text).replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
const html = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/é/g, '&#xE9;');

describe('a secret in an answer', () => {
  it.each([
    ['as sent', SECRET],
    ['URL-encoded', encodeURIComponent(SECRET)],
    [
      'URL-encoded, lowercase hex',
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    ],
    ['form-encoded (a space as +)', new URLSearchParams({ x: SECRET }).toString().slice(2)],
    [
      'every character percent-encoded',
      [...Buffer.from(SECRET, 'utf8')].map((byte) => `%${byte.toString(16)}`).join(''),
    ],
    ['JSON-escaped', JSON.stringify(SECRET).slice(1, -1)],
    ['JSON-escaped with \\/', JSON.stringify(SECRET).slice(1, -1).replace(/\//g, '\\/')],
    ['JSON-escaped, ASCII only', asciiJson(SECRET).slice(1, -1)],
    ['HTML-escaped', html(SECRET)],
    ['base64', base64(SECRET)],
    ['base64url', base64url(SECRET)],
    [
      'in a Basic credential, URL-encoded (RFC 6749 2.3.1)',
      base64(`my-client:${encodeURIComponent(SECRET)}`),
    ],
    ['in a Basic credential, as is', base64(`my-client:${SECRET}`)],
  ])('is redacted %s', (_form, shown) => {
    const text = `{"headers":{"x-api-key":"${shown}","accept":"*/*"}}`;
    const redacted = redactSecrets(text, [SECRET]);
    expect(redacted).toBe(`{"headers":{"x-api-key":"${REDACTED}","accept":"*/*"}}`);
  });

  it('is redacted where a Basic header echoes it, the scheme kept', () => {
    const echoed = `authorization: Basic ${base64(`gridwire:${SECRET}`)}\r\nhost: x`;
    expect(redactSecrets(echoed, [SECRET])).toBe(`authorization: Basic ${REDACTED}\r\nhost: x`);
  });

  it('is redacted inside a base64 word glued to other text', () => {
    const glued = `xyz${base64(`prefix ${SECRET} suffix`)}`;
    expect(redactSecrets(`[${glued}]`, [SECRET])).toBe(`[${REDACTED}]`);
  });

  it('is redacted every time it stands, beside text left as it is', () => {
    expect(redactSecrets(`a ${SECRET} b ${encodeURIComponent(SECRET)} c`, [SECRET])).toBe(
      `a ${REDACTED} b ${REDACTED} c`,
    );
  });

  it('is redacted from its start when the end of the text cuts it', () => {
    expect(redactSecrets('token=abcdefghij', ['abcdefghijklmnop'])).toBe(`token=${REDACTED}`);
    expect(redactSecrets('token=abcd%2', ['abcd/efgh'])).toBe(`token=${REDACTED}`);
    expect(redactSecrets('token=abcd%C3', ['abcdéfgh'])).toBe(`token=${REDACTED}`);
    expect(redactSecrets('"token":"abcd\\u00', ['abcdéfgh'])).toBe(`"token":"${REDACTED}`);
    // A whole escape that is not the secret's next character ends the match there.
    expect(redactSecrets('token=abcd%41', ['abcd/efgh'])).toBe('token=abcd%41');
    // Fewer characters than MIN_SECRET_CHARS at the end are not told from other text.
    expect(redactSecrets('token=abc', ['abcdefghijklmnop'])).toBe('token=abc');
  });

  it('redacts the longer of two secrets where one holds the other, and several at once', () => {
    expect(redactSecrets('x sk_live_12345 y pw-9876', ['sk_live', 'sk_live_12345', 'pw-9876'])).toBe(
      `x ${REDACTED} y ${REDACTED}`,
    );
  });

  it(`looks for no secret shorter than ${MIN_SECRET_CHARS} characters, and leaves text without one as it was`, () => {
    expect(redactSecrets('{"status":1,"ok":true}', ['1', 'ok', ''])).toBe('{"status":1,"ok":true}');
    expect(redactSecrets('nothing to see here', [SECRET])).toBe('nothing to see here');
    expect(redactSecrets('', [SECRET])).toBe('');
  });

  it('does not take a near miss for the secret', () => {
    expect(redactSecrets('abcd-efgx', ['abcd-efgh'])).toBe('abcd-efgx');
    expect(redactSecrets(base64('abcd-efgx and more'), ['abcd-efgh'])).toBe(base64('abcd-efgx and more'));
  });

  it('reads a percent sign as itself or as %25, whichever the secret needs next', () => {
    expect(redactSecrets('a %25abc b', ['%abc'])).toBe(`a ${REDACTED} b`);
    expect(redactSecrets('a %25abc b', ['%25abc'])).toBe(`a ${REDACTED} b`);
    expect(redactSecrets(`${'%25'.repeat(300)} end`, ['%%%%%%x'])).toBe(`${'%25'.repeat(300)} end`);
  });
});

describe('redacted results', () => {
  it('redacts the excerpt and the error, other fields as they are', () => {
    const result = { delivered: false, httpStatus: 400, response: `echo ${SECRET}`, error: `got ${SECRET}` };
    expect(redactResult(result, [SECRET])).toEqual({
      delivered: false,
      httpStatus: 400,
      response: `echo ${REDACTED}`,
      error: `got ${REDACTED}`,
    });
  });

  it('gives a result with nothing to redact back as it is', () => {
    const result: { delivered: boolean; response?: string } = { delivered: true };
    expect(redactResult(result, [SECRET])).toBe(result);
    const answered = { delivered: true, response: SECRET };
    expect(redactResult(answered, [])).toBe(answered);
  });
});

describe('credentials read from a request as sent', () => {
  it.each([
    [{ authorization: 'Bearer tok-abc123' }, ['tok-abc123']],
    [{ Authorization: 'Basic Z3JpZHdpcmU6czNjcmV0' }, ['Z3JpZHdpcmU6czNjcmV0']],
    [
      {
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/lambda/aws4_request, SignedHeaders=host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
        'x-amz-security-token': 'FwoGZXIvYXdzEBYaDexample',
        'x-amz-date': '20260101T000000Z',
      },
      [
        'Credential=AKIDEXAMPLE/20260101/us-east-1/lambda/aws4_request, SignedHeaders=host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
        '5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
        'FwoGZXIvYXdzEBYaDexample',
      ],
    ],
    [{ 'content-type': 'application/json' }, []],
  ])('%j gives %j', (headers, expected) => {
    expect(requestCredentialsOf(headers).sort()).toEqual([...expected].sort());
  });
});

describe('query string values', () => {
  it.each([
    ['https://hooks.example/in?code=abc123&tenant=t%2F1', ['abc123', 't/1']],
    ['https://hooks.example/in?sig', ['sig']],
    ['https://hooks.example/in', []],
    ['not a url', []],
  ])('%s gives %j', (href, expected) => {
    expect(queryValuesOf(href)).toEqual(expected);
  });
});

describe('token fields of a token endpoint answer', () => {
  it.each([
    [
      '{"error":"invalid_client","access_token":"eyJ.abc"}',
      `{"error":"invalid_client","access_token":"${REDACTED}"}`,
    ],
    [
      '{"refresh_token" : "r-\\"1\\"", "id_token":"i-2"}',
      `{"refresh_token" : "${REDACTED}", "id_token":"${REDACTED}"}`,
    ],
    ['{"error":"x","client_secret":"s3cr', `{"error":"x","client_secret":"${REDACTED}"`],
    [
      'error=invalid&access_token=abc&client_secret=s3cret',
      `error=invalid&access_token=${REDACTED}&client_secret=${REDACTED}`,
    ],
    [
      '{"error":"invalid_client","error_description":"bad"}',
      '{"error":"invalid_client","error_description":"bad"}',
    ],
  ])('%s becomes %s', (text, expected) => {
    expect(redactTokenFields(text)).toBe(expected);
  });
});
