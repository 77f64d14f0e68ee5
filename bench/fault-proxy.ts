/**
 * Loopback proxies a test (or the soak) puts between the local stack's AWS clients and an emulator (with the
 * stack's `routeClients` option), to make real network faults:
 *
 * - {@link TcpProxy} passes bytes through until it is taken down: then every open connection is
 *   reset and every new one is reset as soon as it is accepted, as when the service is gone.
 * - {@link HttpFaultProxy} passes HTTP requests through, and answers the ones a rule picks with
 *   an error of the service's own (a 500, or throttling) instead: SQS's JSON error, or S3's XML
 *   error document for a request without an `X-Amz-Target`.
 */
import {
  Agent,
  createServer as createHttpServer,
  type IncomingMessage,
  request,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server as NetServer, type Socket } from 'node:net';

const portOf = (url: string) => Number(new URL(url).port);

export class TcpProxy {
  private server: NetServer | undefined;
  private readonly sockets = new Set<Socket>();
  private isDown = false;
  /** Connections reset while down (a proof the fault was met). */
  refused = 0;
  url = '';

  /** `target`: the emulator's URL (`http://127.0.0.1:<port>`). */
  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    const server = createServer((client) => {
      if (this.isDown) {
        this.refused += 1;
        client.resetAndDestroy();
        return;
      }
      const upstream = connect(portOf(this.target), '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** From now on the service is unreachable: open connections are reset, new ones too. */
  down(): void {
    this.isDown = true;
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
  }

  /** Reachable again. */
  up(): void {
    this.isDown = false;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A request as the fault rule sees it. */
export interface ProxiedRequest {
  method: string;
  path: string;
  /** The AWS JSON protocol's operation (`AmazonSQS.SendMessageBatch`), when there is one. */
  target: string | undefined;
  body: string;
}

/** An error answer of an AWS JSON-protocol service. */
export interface FaultAnswer {
  status: number;
  /** The error's type, e.g. `InternalError` or `ThrottlingException`. */
  type: string;
}

export class HttpFaultProxy {
  private server: Server | undefined;
  private readonly agent = new Agent({ keepAlive: true });
  /** Picks the requests to fail; undefined passes everything through. */
  rule: ((request: ProxiedRequest) => FaultAnswer | undefined) | undefined;
  /** Requests failed by the rule, in order. */
  readonly failed: ProxiedRequest[] = [];
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    const server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const target = req.headers['x-amz-target'];
        const seen: ProxiedRequest = {
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          target: typeof target === 'string' ? target : undefined,
          body: body.toString('utf8'),
        };
        const fault = this.rule?.(seen);
        if (fault !== undefined) {
          this.failed.push(seen);
          if (seen.target === undefined) {
            // A REST-XML service (S3): its error document.
            res.writeHead(fault.status, { 'content-type': 'application/xml' });
            res.end(
              `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${fault.type}</Code><Message>${fault.type}</Message></Error>`,
            );
            return;
          }
          const answer = JSON.stringify({ __type: `com.amazonaws.sqs#${fault.type}`, message: fault.type });
          res.writeHead(fault.status, {
            'content-type': 'application/x-amz-json-1.0',
            'x-amzn-query-error': `${fault.type};Receiver`,
          });
          res.end(answer);
          return;
        }
        const upstream = request(
          {
            host: '127.0.0.1',
            port: portOf(this.target),
            method: req.method,
            path: req.url,
            headers: req.headers,
            agent: this.agent,
          },
          (answer: IncomingMessage) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(body);
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
