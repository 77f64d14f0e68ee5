/**
 * The recovery scenario's webhook, run as a child process so it does not share a core with the
 * stack: it answers 503 while `down` and 200 while `up`, each answer held back a configured time
 * (as a real webhook takes; so requests overlap and the number in flight at once means
 * something), and counts what `RecoveryTally` counts. Told over IPC when to switch.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PhaseTally, type RecoveryPhase, RecoveryTally } from './recovery';

export type RecoverySinkRequest =
  | { type: 'switch'; phase: RecoveryPhase; answerDelayMs: number }
  | { type: 'take' }
  | { type: 'acknowledged' }
  | { type: 'stop' };

export type RecoverySinkMessage =
  | { type: 'ready'; port: number }
  | { type: 'taken'; tally: PhaseTally }
  | { type: 'acknowledged'; counts: Array<[string, number]> };

function main(): void {
  const tally = new RecoveryTally('down', Date.now());
  let answerDelayMs = 0;
  const server = createServer((request, response) => {
    tally.requestStarted(Date.now());
    const status = tally.current === 'up' ? 200 : 503;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = () => {
        let ids: string[] = [];
        if (status === 200) {
          try {
            const events = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<{ id: string }>;
            ids = events.map((event) => event.id);
          } catch {
            // not an event array: counted as a request, acknowledges nothing
          }
        }
        response.writeHead(status).end();
        tally.requestAnswered(Date.now(), status, ids);
      };
      if (answerDelayMs > 0) setTimeout(answer, answerDelayMs);
      else answer();
    });
  });
  server.on('connection', (socket) => {
    tally.connectionOpened();
    socket.on('close', () => tally.connectionClosed());
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({
      type: 'ready',
      port: (server.address() as AddressInfo).port,
    } satisfies RecoverySinkMessage);
  });
  process.on('message', (message: RecoverySinkRequest) => {
    switch (message.type) {
      case 'switch':
        answerDelayMs = message.answerDelayMs;
        tally.switchTo(message.phase, Date.now());
        break;
      case 'take':
        process.send?.({ type: 'taken', tally: tally.snapshot() } satisfies RecoverySinkMessage);
        break;
      case 'acknowledged':
        process.send?.({
          type: 'acknowledged',
          counts: tally.acknowledgedCounts(),
        } satisfies RecoverySinkMessage);
        break;
      case 'stop':
        server.closeAllConnections();
        server.close(() => process.exit(0));
        break;
    }
  });
  process.on('disconnect', () => process.exit(0));
}

main();
