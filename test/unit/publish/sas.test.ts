import { AzureKeyCredential, generateSharedAccessSignature } from '@azure/eventgrid';
import { createSasToken, formatSasExpiry, parseSasExpiry, verifySasToken } from '../../../shared/publish/sas';

const key1 = Buffer.alloc(32, 1).toString('base64');
const key2 = Buffer.alloc(32, 2).toString('base64');
const keys = { key1, key2 };
const PATH = '/topics/orders/api/events';
const URL_OF_TOPIC = `http://127.0.0.1:4000${PATH}`;
const now = Date.UTC(2026, 10, 23, 12, 0, 0);
const inAnHour = new Date(now + 3_600_000);

/** A token made by the official SDK, exactly as a publisher would send it. */
const sdkToken = (key: string, expiresOn = inAnHour, url = URL_OF_TOPIC) =>
  generateSharedAccessSignature(url, new AzureKeyCredential(key), expiresOn);

describe('SAS tokens', () => {
  it('accepts tokens the official SDK signs with either key', async () => {
    expect(verifySasToken(await sdkToken(key1), keys, PATH, now)).toEqual({ valid: true });
    expect(verifySasToken(await sdkToken(key2), keys, PATH, now)).toEqual({ valid: true });
  });

  it('accepts a token for a resource that is a prefix of the request path, under any host', async () => {
    const token = await sdkToken(key1, inAnHour, 'https://events.example.test/topics/orders');
    expect(verifySasToken(token, keys, PATH, now)).toEqual({ valid: true });
    expect(verifySasToken(token, keys, '/TOPICS/Orders/api/events', now)).toEqual({ valid: true });
  });

  it.each([
    ['expired', async () => sdkToken(key1, new Date(now - 1000)), /expired at 2026-11-23T11:59:59\.000Z/],
    [
      'signed with another key',
      async () => sdkToken(Buffer.alloc(32, 9).toString('base64')),
      /does not match/,
    ],
    [
      'for another topic',
      async () => sdkToken(key1, inAnHour, 'http://127.0.0.1:4000/topics/payments/api/events'),
      /for another resource/,
    ],
    [
      'with a tampered expiry',
      async () =>
        (await sdkToken(key1)).replace(/e=[^&]+/, `e=${encodeURIComponent('11/23/2027 1:00:00 PM')}`),
      /does not match/,
    ],
    [
      'without a signature',
      async () => (await sdkToken(key1)).replace(/&s=.*$/, ''),
      /malformed: it has no 's'/,
    ],
    ['not name=value pairs', async () => 'garbage', /malformed: 'garbage' is not a name=value pair/],
    ['badly encoded', async () => 'r=%E0%A4%A&e=x&s=y', /malformed: a field is not valid URL encoding/],
    [
      'with an unreadable expiry',
      async () => 'r=%2Ftopics&e=tomorrow&s=abc',
      /expiry 'e' \(tomorrow\) is not a time/,
    ],
  ])('refuses a token %s, naming the reason', async (_case, make, reason) => {
    const verdict = verifySasToken(await make(), keys, PATH, now);
    expect(verdict.valid).toBe(false);
    expect(verdict.valid === false && verdict.reason).toMatch(reason);
  });

  it.each([
    ['11/23/2026 5:05:09 PM', Date.UTC(2026, 10, 23, 17, 5, 9)],
    ['1/2/2027 12:00:00 AM', Date.UTC(2027, 0, 2, 0, 0, 0)],
    ['1/2/2027 12:30:00 PM', Date.UTC(2027, 0, 2, 12, 30, 0)],
    ['2026-11-23T17:05:09Z', Date.UTC(2026, 10, 23, 17, 5, 9)],
    ['13/40/2026 1:00:00 AM', undefined],
    ['11/23/2026 13:00:00 PM', undefined],
    ['tomorrow', undefined],
  ])('reads the expiry %s', (text, expected) => {
    expect(parseSasExpiry(text)).toBe(expected);
  });
});

describe('createSasToken (the client entry point)', () => {
  it.each([
    ['morning', new Date(Date.UTC(2026, 10, 23, 9, 5, 7))],
    ['midnight', new Date(Date.UTC(2026, 0, 1, 0, 0, 0))],
    ['noon', new Date(Date.UTC(2026, 11, 31, 12, 30, 0))],
    ['evening', new Date(Date.UTC(2027, 1, 28, 23, 59, 59))],
  ])('makes the token the official SDK makes (%s expiry)', async (_name, expiresAt) => {
    expect(createSasToken(URL_OF_TOPIC, key1, expiresAt)).toBe(await sdkToken(key1, expiresAt));
  });

  it('writes expiries that read back to the same instant', () => {
    const at = new Date(Date.UTC(2026, 6, 4, 13, 1, 2));
    expect(formatSasExpiry(at)).toBe('7/4/2026 1:01:02 PM');
    expect(parseSasExpiry(formatSasExpiry(at))).toBe(at.getTime());
  });

  it('makes tokens the publish check accepts until they expire', () => {
    const token = createSasToken(URL_OF_TOPIC, key2, inAnHour);
    expect(verifySasToken(token, keys, PATH, now)).toEqual({ valid: true });
    expect(verifySasToken(token, keys, PATH, inAnHour.getTime())).toMatchObject({ valid: false });
  });
});
