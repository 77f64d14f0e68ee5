/**
 * A webhook for trying Gridwire out: prints each delivery (time, delivery count, subscription,
 * event ids and types) and answers with a fixed status.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

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
        const events = JSON.parse(body) as Array<{ id?: string; eventType?: string }>;
        summary = events.map((e) => `${e.id} (${e.eventType})`).join(', ');
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
