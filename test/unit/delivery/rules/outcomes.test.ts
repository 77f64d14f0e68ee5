import {
  classifyError,
  isSuccessStatus,
  isTlsErrorCode,
  outcomeForStatus,
  parseRetryAfter,
  pushesBack,
} from '../../../../shared/delivery/rules/outcomes';

describe('success', () => {
  it.each([200, 201, 202, 203, 204])('%i acknowledges a delivery', (status) => {
    expect(isSuccessStatus(status)).toBe(true);
  });
  it.each([199, 205, 206, 301, 302, 304, 400, 500])('%i does not', (status) => {
    expect(isSuccessStatus(status)).toBe(false);
  });
});

describe('HTTP status to outcome', () => {
  it.each([
    [400, 'BadRequest'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [408, 'TimedOut'],
    [413, 'PayloadTooLarge'],
    [429, 'Busy'],
    [503, 'Busy'],
    [504, 'TimedOut'],
    [500, 'GenericError'],
    [502, 'GenericError'],
    [302, 'GenericError'],
  ])('%i is %s', (status, outcome) => {
    expect(outcomeForStatus(status)).toBe(outcome);
  });
});

describe('network error to outcome', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, 'SocketError'],
    [{ code: 'ECONNRESET' }, 'SocketError'],
    [{ code: 'UND_ERR_SOCKET' }, 'SocketError'],
    [{ code: 'ENOTFOUND' }, 'ResolutionError'],
    [{ code: 'EAI_AGAIN' }, 'ResolutionError'],
    [{ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'TimedOut'],
    [{ name: 'TimeoutError' }, 'TimedOut'],
    [{ name: 'AbortError' }, 'Canceled'],
    [{ code: 'UND_ERR_INVALID_ARG' }, 'GenericError'],
    [{ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } }, 'SocketError'],
    [{ message: 'something else' }, 'SocketError'],
  ])('%j is %s', (error, outcome) => {
    expect(classifyError(error).outcome).toBe(outcome);
  });
});

describe('Retry-After', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it.each([
    [undefined, undefined],
    ['120', 120],
    [' 5 ', 5],
    ['Thu, 01 Jan 2026 12:01:30 GMT', 90],
    ['Thu, 01 Jan 2026 11:00:00 GMT', 0],
    ['soon', undefined],
    ['-3', undefined],
  ])('%j means %s seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});

describe('push-back', () => {
  it('is an endpoint answering busy (429, 503) or too slow (408, 504, a timeout), nothing else', () => {
    for (const status of [429, 503, 408, 504]) expect(pushesBack(outcomeForStatus(status))).toBe(true);
    expect(
      pushesBack(classifyError(Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' })).outcome),
    ).toBe(true);
    for (const status of [400, 401, 404, 410, 413, 500, 502]) {
      expect(pushesBack(outcomeForStatus(status))).toBe(false);
    }
    expect(pushesBack(classifyError(Object.assign(new Error('r'), { code: 'ECONNREFUSED' })).outcome)).toBe(
      false,
    );
    expect(pushesBack(undefined)).toBe(false);
  });
});

describe('TLS failures', () => {
  it.each([
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'CERT_HAS_EXPIRED',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
    'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  ])('%s is a socket error that keeps its code', (code) => {
    expect(isTlsErrorCode(code)).toBe(true);
    expect(classifyError(Object.assign(new Error('tls'), { code }))).toEqual({
      outcome: 'SocketError',
      errorCode: code,
    });
  });

  it('leaves other codes to the table', () => {
    expect(isTlsErrorCode('ECONNRESET')).toBe(false);
    expect(classifyError(Object.assign(new Error('x'), { code: 'ESOMETHING' }))).toEqual({
      outcome: 'SocketError',
    });
  });
});
