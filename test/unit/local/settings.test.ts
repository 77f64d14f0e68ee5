import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkedFunctionSettings, localFunctionConfig, localFunctionSettings } from '../../../local/settings';
import { LocalStackError, startLocalStack } from '../../../local/stack';
import type { LocalStackOptions } from '../../../local/stack-options';
import { ENV, type QueueKey } from '../../../shared/config/resources';

const DATA_DIR = '/tmp/gridwire-settings-test';

const RESOURCES = {
  queueUrls: {} as Record<QueueKey, string>,
  redriveQueueUrls: {} as Record<QueueKey, string>,
  tableName: 'gridwire-state',
  bucketName: 'gridwire-dead-letters',
  fanOutBucketName: 'gridwire-fan-outs',
  backlogBucketName: 'gridwire-backlog',
  archiveBucketName: 'gridwire-archive',
};
const KEYS = { headerKey: 'h'.repeat(64), topicKey: 't'.repeat(64), sessionKeyFile: '/tmp/session-key' };

/** The configuration the local functions get from `options`, as the stack makes it. */
const configOf = (options: Omit<LocalStackOptions, 'dataDir'>) =>
  localFunctionConfig(checkedFunctionSettings({ dataDir: DATA_DIR, ...options }), RESOURCES, KEYS);

/** The error `checkedFunctionSettings` refuses `options` with. */
function refusal(options: Omit<LocalStackOptions, 'dataDir'>): unknown {
  try {
    checkedFunctionSettings({ dataDir: DATA_DIR, ...options });
  } catch (error) {
    return error;
  }
  throw new Error('the options were taken');
}

describe("the local stack's portal options", () => {
  it('are left out by default: the portal may not be framed and has its own look', () => {
    const settings = localFunctionSettings({ dataDir: DATA_DIR });
    expect(settings).not.toHaveProperty(ENV.portalFrameAncestors);
    expect(settings).not.toHaveProperty(ENV.portalBranding);
    expect(configOf({})).toMatchObject({ portalFrameAncestors: [], portalBranding: {} });
    expect(localFunctionSettings({ dataDir: DATA_DIR, portalFrameAncestors: [] })).not.toHaveProperty(
      ENV.portalFrameAncestors,
    );
  });

  it("reach the functions' configuration as the construct's props do", () => {
    const branding = {
      title: 'Acme events',
      logoUrl: 'https://cdn.acme.example/logo.svg',
      accentColor: '#0a7cff',
    };
    const options = {
      portalFrameAncestors: ['https://app.acme.example', 'https://*.acme.example:8443'],
      portalBranding: branding,
    };
    expect(localFunctionSettings({ dataDir: DATA_DIR, ...options })).toMatchObject({
      [ENV.portalFrameAncestors]: 'https://app.acme.example https://*.acme.example:8443',
      [ENV.portalBranding]: JSON.stringify(branding),
    });
    expect(configOf(options)).toMatchObject({
      portalFrameAncestors: ['https://app.acme.example', 'https://*.acme.example:8443'],
      portalBranding: branding,
    });
    expect(configOf({ portalBranding: { title: 'Acme' } })).toMatchObject({
      portalFrameAncestors: [],
      portalBranding: { title: 'Acme' },
    });
  });

  it.each([
    [
      { portalFrameAncestors: ['http://app.acme.example'] },
      /^Invalid local stack setting: portalFrameAncestors\[0\]: 'http:\/\/app.acme.example' is not an https origin/,
    ],
    [
      { portalFrameAncestors: ['https://app.acme.example', 'https://acme.example/embed'] },
      /portalFrameAncestors\[1\]: /,
    ],
    [{ portalFrameAncestors: ['https://a.example https://b.example'] }, /portalFrameAncestors\[0\]: /],
    [
      { portalFrameAncestors: 'https://app.acme.example' as never },
      /portalFrameAncestors must be a list of https origins/,
    ],
    [{ portalFrameAncestors: [42] as never }, /portalFrameAncestors must be a list of https origins/],
    [{ portalBranding: { title: 'Acme '.repeat(17) } }, /: portalBranding.title: at most 80 characters/],
    [{ portalBranding: { title: '' } }, /portalBranding.title: /],
    [
      { portalBranding: { logoUrl: 'http://cdn.acme.example/logo.svg' } },
      /portalBranding.logoUrl: an https URL/,
    ],
    [{ portalBranding: { accentColor: 'blue' } }, /portalBranding.accentColor: a colour as #rrggbb/],
    [{ portalBranding: { colour: '#000000' } as never }, /: portalBranding/],
    [{ portalBranding: 'Acme' as never }, /: portalBranding/],
  ])('refuses %j, naming the option', (options, message) => {
    const error = refusal(options);
    expect(error).toBeInstanceOf(LocalStackError);
    expect((error as Error).message).toMatch(message);
  });

  it('are refused before anything starts', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'gridwire-portal-options-'));
    const dataDir = join(parent, 'data');
    try {
      await expect(
        startLocalStack({ dataDir, port: 0, portalBranding: { accentColor: 'red' } }),
      ).rejects.toThrow(
        new LocalStackError('Invalid local stack setting: portalBranding.accentColor: a colour as #rrggbb'),
      );
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
