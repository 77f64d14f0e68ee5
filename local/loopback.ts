/**
 * Proof that a server told to listen on loopback does: nothing answers on its port at any of this
 * machine's other addresses. The emulators take no credentials, so one reachable from the network
 * would hand out the queues (forged delivery jobs) and the bucket (dead letters).
 */
import { BlockList, connect } from 'node:net';
import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';

/** How long a connection attempt to one of this machine's own addresses may take. */
const CONNECT_TIMEOUT_MS = 2_000;

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether `host` (a name or an address) means this machine's loopback interface only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare.toLowerCase() === 'localhost') return true;
  try {
    return loopback.check(bare, bare.includes(':') ? 'ipv6' : 'ipv4');
  } catch {
    return false;
  }
}

/**
 * This machine's addresses outside loopback, as hosts to connect to (an IPv6 link-local one
 * with its interface).
 */
export function nonLoopbackAddresses(
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string[] {
  const hosts: string[] = [];
  for (const [name, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal || isLoopbackHost(info.address)) continue;
      const linkLocal = info.family === 'IPv6' && /^fe80:/i.test(info.address);
      hosts.push(linkLocal ? `${info.address}%${name}` : info.address);
    }
  }
  return hosts;
}

/** Whether something accepts a TCP connection at `host`:`port`. */
export function answers(host: string, port: number, timeoutMs = CONNECT_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const settle = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => settle(false));
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
  });
}

/** The `address:port` pairs, of `ports` on this machine's non-loopback `addresses`, that answer. */
export async function reachableBeyondLoopback(
  ports: readonly number[],
  addresses: readonly string[] = nonLoopbackAddresses(),
): Promise<string[]> {
  const attempts = addresses.flatMap((address) =>
    ports.map(async (port) => {
      const where = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
      return (await answers(address, port)) ? [where] : [];
    }),
  );
  return (await Promise.all(attempts)).flat();
}
