/**
 * A webhook for trying Gridwire out: prints each delivery (time, delivery count, subscription,
 * event ids and types, or the start of events without them) and answers with a fixed status.
 * It agrees to every validation handshake, whatever that status.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One delivered event in a few words: `id (type)` for Event Grid events and CloudEvents, the start
 * of its JSON for anything else (a custom-schema event delivered as published).
 */
export function describeEvent(event: unknown): string {
  if (event !== null && typeof event === 'object' && !Array.isArray(event)) {
    const { id, eventType, type } = event as Record<string, unknown>;
    const kind = typeof eventType === 'string' ? eventType : type;
    if (typeof id === 'string' && typeof kind === 'string') return `${id} (${kind})`;
  }
  const text = JSON.stringify(event) ?? String(event);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The consent a receiver gives to a validation handshake; `undefined` when the request is not one. */
export function handshakeConsent(
  method: string | undefined,
  headers: IncomingHttpHeaders,
  body: string,
): { headers: Record<string, string>; body: string } | undefined {
  const origin = headers['webhook-request-origin'];
  if (method === 'OPTIONS' && typeof origin === 'string') {
    return { headers: { 'webhook-allowed-origin': origin, 'webhook-allowed-rate': '*' }, body: '' };
  }
  if (method !== 'POST' || headers['aeg-event-type'] !== 'SubscriptionValidation') return undefined;
  try {
    const [event] = JSON.parse(body) as [{ data?: { validationCode?: unknown } }];
    const code = event?.data?.validationCode;
    if (typeof code !== 'string') return undefined;
    return {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ validationResponse: code }),
    };
  } catch {
    return undefined;
  }
}

/**
 * What `--verbose` prints under a delivery's line: each header, then the body (indented JSON when
 * it is JSON, else as it came).
 */
export function verboseLines(headers: IncomingHttpHeaders, body: string): string[] {
  const headerLines = Object.entries(headers).map(
    ([name, value]) => `    ${name}: ${Array.isArray(value) ? value.join(', ') : (value ?? '')}`,
  );
  let shown = body;
  try {
    shown = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // not JSON: as it came
  }
  return [...headerLines, '', ...shown.split('\n').map((line) => `    ${line}`), ''];
}

export async function startDemoWebhook(options: {
  port: number;
  host: string;
  status: number;
  /** Print every request's headers and body too. */
  verbose?: boolean;
}): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const time = new Date().toISOString().slice(11, 23);
      const consent = handshakeConsent(req.method, req.headers, body);
      if (consent !== undefined) {
        console.log(
          `${time}  ${req.method} ${req.url}  validation handshake  subscription=${req.headers['aeg-subscription-name'] ?? '-'}  -> 200 (agreed)`,
        );
        res.writeHead(200, consent.headers);
        res.end(consent.body);
        return;
      }
      let summary = `${body.length} bytes`;
      try {
        const events: unknown = JSON.parse(body);
        summary = (Array.isArray(events) ? events : [events]).map(describeEvent).join(', ');
      } catch {
        // not JSON: print the size only
      }
      console.log(
        `${time}  ${req.method} ${req.url}  delivery-count=${req.headers['aeg-delivery-count'] ?? '-'}  subscription=${req.headers['aeg-subscription-name'] ?? '-'}  -> ${options.status}  ${summary}`,
      );
      if (options.verbose === true) console.log(verboseLines(req.headers, body).join('\n'));
      res.writeHead(options.status);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    url: `http://${options.host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
