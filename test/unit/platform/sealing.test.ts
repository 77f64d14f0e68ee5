import { AesGcmSealer, keyText } from '../../../shared/platform/sealing';

describe('sealing secret values', () => {
  const sealer = new AesGcmSealer(keyText('a stack-managed key of some length'));

  it('opens what it sealed, and never shows the plaintext in the sealed form', async () => {
    for (const plain of ['Bearer s3cret', '', 'ünïcødé ✓', 'x'.repeat(4096)]) {
      const sealed = await sealer.seal(plain);
      expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
      if (plain !== '') expect(sealed).not.toContain(plain);
      expect(await sealer.open(sealed)).toBe(plain);
    }
  });

  it('seals the same value differently each time (a fresh IV)', async () => {
    expect(await sealer.seal('same')).not.toBe(await sealer.seal('same'));
  });

  it('refuses a value sealed with another key, or altered', async () => {
    const sealed = await sealer.seal('Bearer s3cret');
    await expect(new AesGcmSealer(keyText('another key')).open(sealed)).rejects.toThrow();
    const [version, iv, body] = sealed.split('.');
    const flipped = `${body?.[0] === 'A' ? 'B' : 'A'}${body?.slice(1)}`;
    await expect(sealer.open(`${version}.${iv}.${flipped}`)).rejects.toThrow();
  });

  it.each(['', 'v2.a.b', 'v1.only-two', 'v1.a.b.c', 'v1.AAAA.AAAA'])(
    'refuses the malformed value %j',
    async (value) => {
      await expect(sealer.open(value)).rejects.toThrow();
    },
  );

  it('reads the key once, and again after a failed read', async () => {
    let reads = 0;
    const flaky = new AesGcmSealer({
      keyText: async () => {
        reads += 1;
        if (reads === 1) throw new Error('secret store unavailable');
        return 'key';
      },
    });
    await expect(flaky.seal('x')).rejects.toThrow(/unavailable/);
    const sealed = await flaky.seal('x');
    expect(await flaky.open(sealed)).toBe('x');
    expect(reads).toBe(2);
  });
});
