import {
  NoSealingKeyError,
  openEndpointUrl,
  sameStoredEndpoint,
  sealEndpointUrl,
  splitEndpointUrl,
} from '../../../shared/delivery/sealed-endpoint';
import { AesGcmSealer, keyText } from '../../../shared/platform/sealing';

const sealer = new AesGcmSealer(keyText('test key'));

describe('endpoint URLs at rest', () => {
  it('splits a URL into what stays in the clear and its query string and fragment', () => {
    expect(splitEndpointUrl('https://h.example.test:8443/a/b?token=s&x=1#frag')).toEqual({
      base: 'https://h.example.test:8443/a/b',
      rest: '?token=s&x=1#frag',
    });
    expect(splitEndpointUrl('https://h.example.test/in')).toEqual({
      base: 'https://h.example.test/in',
      rest: '',
    });
    expect(splitEndpointUrl('https://h.example.test/in?')).toEqual({
      base: 'https://h.example.test/in?',
      rest: '',
    });
  });

  it('seals the query string and opens it again (round trip); a URL without one stays whole', async () => {
    const stored = await sealEndpointUrl('https://h.example.test/in?token=s3cret', sealer);
    expect(stored).toEqual({
      endpointUrl: 'https://h.example.test/in',
      sealedQuery: expect.stringMatching(/^v1\./),
    });
    expect(JSON.stringify(stored)).not.toContain('s3cret');
    await expect(openEndpointUrl(stored, sealer)).resolves.toBe('https://h.example.test/in?token=s3cret');
    await expect(sealEndpointUrl('https://h.example.test/in', sealer)).resolves.toEqual({
      endpointUrl: 'https://h.example.test/in',
    });
    // Stored before sealing: the whole URL in the clear.
    await expect(
      openEndpointUrl({ endpointUrl: 'https://h.example.test/in?token=old' }, undefined),
    ).resolves.toBe('https://h.example.test/in?token=old');
  });

  it('keeps the seal of an unchanged URL, and seals a changed one anew', async () => {
    const first = await sealEndpointUrl('https://h.example.test/in?token=a', sealer);
    const same = await sealEndpointUrl('https://h.example.test/in?token=a', sealer, first);
    expect(same).toEqual(first);
    expect(sameStoredEndpoint(first, same)).toBe(true);
    const changed = await sealEndpointUrl('https://h.example.test/in?token=b', sealer, first);
    expect(sameStoredEndpoint(first, changed)).toBe(false);
    await expect(openEndpointUrl(changed, sealer)).resolves.toBe('https://h.example.test/in?token=b');
    // A seal of another key is not kept: the URL is sealed with this one.
    const foreign = { endpointUrl: 'https://h.example.test/in', sealedQuery: 'v1.AAAA.BBBB' };
    const resealed = await sealEndpointUrl('https://h.example.test/in?token=a', sealer, foreign);
    await expect(openEndpointUrl(resealed, sealer)).resolves.toBe('https://h.example.test/in?token=a');
  });

  it('without a key, refuses to seal or open a query string', async () => {
    await expect(sealEndpointUrl('https://h.example.test/in?token=a', undefined)).rejects.toBeInstanceOf(
      NoSealingKeyError,
    );
    await expect(
      openEndpointUrl({ endpointUrl: 'https://h.example.test/in', sealedQuery: 'v1.a.b' }, undefined),
    ).rejects.toBeInstanceOf(NoSealingKeyError);
    await expect(sealEndpointUrl('https://h.example.test/in', undefined)).resolves.toEqual({
      endpointUrl: 'https://h.example.test/in',
    });
  });
});
