/**
 * `gridwire status --api <url>`: where a deployed stack's requests to endpoints leave from, read
 * from its `GET /admin/egress` (signed as on AWS) through the program against a scripted API.
 */
import { formatEgress } from '../../../cli/status';
import { scriptedApi } from '../../support/scripted-api';

const { answers, seen, gridwire } = scriptedApi();

it('prints the fixed addresses receivers allow-list', async () => {
  answers['GET /admin/egress'] = {
    status: 200,
    body: { addresses: ['203.0.113.10', '203.0.113.11'], staticAddresses: true, proxy: false },
  };
  const printed = await gridwire('status');
  expect(printed).toContain(
    'Egress       203.0.113.10, 203.0.113.11  (fixed: receivers may allow-list these)',
  );
  expect(seen).toEqual([expect.objectContaining({ method: 'GET', path: '/admin/egress' })]);
  expect(seen[0]?.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
});

it('says when a stack has no fixed addresses, and prints JSON when asked', async () => {
  answers['GET /admin/egress'] = {
    status: 200,
    body: { addresses: [], staticAddresses: false, proxy: false },
  };
  expect(await gridwire('status')).toContain(
    "no fixed addresses: requests leave from Lambda's shared addresses",
  );
  expect(JSON.parse(await gridwire('status', '--json'))).toEqual({
    egress: { addresses: [], staticAddresses: false, proxy: false },
  });
});

it('names the proxy requests go through', () => {
  expect(formatEgress({ addresses: ['203.0.113.10'], staticAddresses: true, proxy: true }, 'aws')).toContain(
    '203.0.113.10 through the egress proxy',
  );
  expect(formatEgress({ addresses: [], staticAddresses: false, proxy: false }, 'local')).toBe(
    "Egress       this machine's addresses",
  );
});
