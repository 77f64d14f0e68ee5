/**
 * A webhook for trying Gridwire out: prints each delivery (time, delivery count, subscription,
 * event ids and types, or the start of events without them) and answers with a fixed status.
 */
import { createServer } from 'node:http';
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

export async function startDemoWebhook(options: {
  port: number;
  host: string;
  status: number;
}): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let summary = `${body.length} bytes`;
      try {
        const events: unknown = JSON.parse(body);
        summary = (Array.isArray(events) ? events : [events]).map(describeEvent).join(', ');
      } catch {
        // not JSON: print the size only
      }
      const time = new Date().toISOString().slice(11, 23);
      console.log(
        `${time}  ${req.method} ${req.url}  delivery-count=${req.headers['aeg-delivery-count'] ?? '-'}  subscription=${req.headers['aeg-subscription-name'] ?? '-'}  -> ${options.status}  ${summary}`,
      );
      res.writeHead(options.status);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return `http://${options.host}:${(server.address() as AddressInfo).port}`;
}
