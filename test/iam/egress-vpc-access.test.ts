/**
 * The delivery function in a VPC (the `egress` prop), as IAM's policy evaluation decides on the
 * synthesized roles (`@cloud-copilot/iam-simulate`): its role lets Lambda create, describe and
 * delete its network interfaces (granted inline, in place of the AWS managed
 * AWSLambdaVPCAccessExecutionRole); no other function's role may, and with the prop off none may.
 * The local stack has no VPC, so no recorded call covers these requests.
 */
import { VPC_ACCESS_ACTIONS } from '../../infra/pipeline-function';
import { FUNCTIONS, type FunctionKey } from '../../shared/config/resources';
import { decide, FAKE_ACCOUNT, FAKE_REGION, synthesizedFunctionRoles } from '../support/iam-policies';

const inVpc = synthesizedFunctionRoles({ egress: { staticIps: true } });
const outside = synthesizedFunctionRoles();

const NETWORK_INTERFACE = `arn:aws:ec2:${FAKE_REGION}:${FAKE_ACCOUNT}:network-interface/eni-0123456789abcdef0`;
/** What each action is asked on: the `*` Lambda checks the unscoped ones on, or a network interface. */
const REQUESTS = [
  ...VPC_ACCESS_ACTIONS.anyResource.map((action) => [action, '*'] as const),
  ...VPC_ACCESS_ACTIONS.networkInterfaces.map((action) => [action, NETWORK_INTERFACE] as const),
];

const allowed = async (roles: typeof inVpc, fn: FunctionKey, action: string, resource: string) =>
  (await decide(roles[fn], { action, resource, context: {} })).allowed;

describe("the delivery function's VPC access", () => {
  it('lets Lambda manage its network interfaces', async () => {
    for (const [action, resource] of REQUESTS) {
      expect([action, await allowed(inVpc, 'delivery', action, resource)]).toEqual([action, true]);
    }
  });

  it('acts on network interfaces only, beyond what takes no narrower resource', async () => {
    const subnet = `arn:aws:ec2:${FAKE_REGION}:${FAKE_ACCOUNT}:subnet/subnet-0123456789abcdef0`;
    for (const action of VPC_ACCESS_ACTIONS.networkInterfaces) {
      expect([action, await allowed(inVpc, 'delivery', action, subnet)]).toEqual([action, false]);
    }
    expect(await allowed(inVpc, 'delivery', 'ec2:DeleteSubnet', subnet)).toBe(false);
  });

  it("is no other function's, and no function's with the prop off", async () => {
    const others = (Object.keys(FUNCTIONS) as FunctionKey[]).filter((fn) => fn !== 'delivery');
    for (const [action, resource] of REQUESTS) {
      for (const fn of others) {
        expect([fn, action, await allowed(inVpc, fn, action, resource)]).toEqual([fn, action, false]);
      }
      for (const fn of Object.keys(FUNCTIONS) as FunctionKey[]) {
        expect([fn, action, await allowed(outside, fn, action, resource)]).toEqual([fn, action, false]);
      }
    }
  });
});
