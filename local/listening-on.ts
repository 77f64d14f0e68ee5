/**
 * Makes a dependency's servers listen where they are told: `emulator-host.ts` starts fauxqs,
 * which binds `0.0.0.0` whatever host it is given, inside `listeningAt` (on a Unix socket).
 */
import { type AddressInfo, Server } from 'node:net';

/**
 * Runs `start` with every server it starts listening on `host`. fauxqs 2.4.1 (the newest
 * release) uses the host it is given only in its queue URLs and listens on `0.0.0.0` whatever it
 * is told, which would open the queues and the bucket, without credentials, to every machine
 * that can reach this one. Its server is Node's, so the address is corrected where it is bound;
 * only while fauxqs starts, and only in this process. `startLocalStack` checks the result.
 */
export async function listeningOn<T>(host: string, start: () => Promise<T>): Promise<T> {
  const listen = Server.prototype.listen;
  const wildcard = (value: unknown) => value === undefined || value === '0.0.0.0' || value === '::';
  Server.prototype.listen = function listenOnHost(this: Server, ...args: unknown[]) {
    const [first, second] = args;
    if (typeof first === 'object' && first !== null && !('fd' in first) && !('path' in first)) {
      // listen({ port, host }), as Fastify calls it.
      if (wildcard((first as { host?: string }).host)) args[0] = { ...first, host };
    } else if (typeof first === 'number') {
      // listen(port[, host][, callback]).
      if (typeof second === 'string') {
        if (wildcard(second)) args[1] = host;
      } else args.splice(1, 0, host);
    }
    return (listen as (...a: unknown[]) => Server).apply(this, args);
  } as typeof listen;
  try {
    return await start();
  } finally {
    Server.prototype.listen = listen;
  }
}

/**
 * Runs `start` with every server it starts listening on the Unix socket `path` instead of the
 * port it asks for, and reporting `reported` as its address. fauxqs takes no socket path and
 * turns the address its server reports into a URL; the address reported is the loopback one
 * requests reach it through (`emulator-access.ts`), which fauxqs's queue URLs then name. Only
 * while fauxqs starts, and only in this process.
 */
export async function listeningAt<T>(
  path: string,
  reported: AddressInfo,
  start: () => Promise<T>,
): Promise<T> {
  const listen = Server.prototype.listen;
  Server.prototype.listen = function listenAtPath(this: Server, ...args: unknown[]) {
    const callback = args.find((arg) => typeof arg === 'function');
    this.address = () => reported;
    return (listen as (...a: unknown[]) => Server).apply(
      this,
      callback === undefined ? [path] : [path, callback],
    );
  } as typeof listen;
  try {
    return await start();
  } finally {
    Server.prototype.listen = listen;
  }
}
