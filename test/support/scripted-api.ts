/**
 * A scripted admin API on a local port for the CLI's unit tests: the program runs against it with
 * `--api` (so each request is signed as on AWS, with the example credentials set in the
 * environment while the file runs), answering from `answers` and keeping every request in `seen`.
 * `scriptedApi()` registers its own `beforeAll`, `afterAll` and `beforeEach`: call it once, at the
 * top of a test file.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { gridwireProgram, runGridwire } from '../../cli/program';

/** A request the API took. */
export interface SeenRequest {
  method: string;
  path: string;
  body: unknown;
  authorization: string;
}

export interface ScriptedAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ScriptedApi<Answer extends ScriptedAnswer | ScriptedAnswer[]> {
  /**
   * The API's answers by `METHOD /path`: one answer, or a list given in turn (the last one
   * repeated); anything else is a 404. Emptied before each test.
   */
  readonly answers: Record<string, Answer>;
  /** The requests it took, in order; emptied before each test. */
  readonly seen: SeenRequest[];
  /** Its address (`http://127.0.0.1:<port>`), once the file's tests have started. */
  readonly api: string;
  /** Runs a command against the scripted API (with `--api` and `--region eu-west-1`); what it printed. */
  gridwire(...args: string[]): Promise<string>;
}

/** The program, its errors thrown instead of ending the process, and commander's own output kept quiet. */
function testProgram(): Command {
  const quiet = (command: Command) => {
    command.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
    for (const sub of command.commands) quiet(sub);
  };
  const program = gridwireProgram();
  quiet(program);
  return program;
}

export function scriptedApi<
  Answer extends ScriptedAnswer | ScriptedAnswer[] = ScriptedAnswer,
>(): ScriptedApi<Answer> {
  const answers: Record<string, Answer> = {};
  const seen: SeenRequest[] = [];
  let server: Server;
  let api: string | undefined;
  const savedEnv = { ...process.env };

  /** The answer to `key`: a list gives its first until one is left. */
  const answerTo = (key: string): ScriptedAnswer => {
    const scripted: ScriptedAnswer | ScriptedAnswer[] | undefined = answers[key];
    const queue = scripted === undefined ? [] : Array.isArray(scripted) ? scripted : [scripted];
    if (queue.length === 0) return { status: 404, body: { error: { message: `no route ${key}` } } };
    return (queue.length > 1 ? queue.shift() : queue[0]) as ScriptedAnswer;
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const key = `${request.method} ${request.url}`;
        seen.push({
          method: request.method ?? '',
          path: request.url ?? '',
          body: text === '' ? undefined : JSON.parse(text),
          authorization: request.headers.authorization ?? '',
        });
        const answer = answerTo(key);
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Requests with --api are signed with the SDK's default credentials: these, from the environment.
    delete process.env.AWS_PROFILE;
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
  });

  afterAll(async () => {
    process.env = savedEnv;
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    for (const key of Object.keys(answers)) delete answers[key];
    seen.length = 0;
  });

  const address = (): string => {
    if (api === undefined) throw new Error('the scripted API listens once the tests start');
    return api;
  };

  return {
    answers,
    seen,
    get api() {
      return address();
    },
    async gridwire(...args: string[]): Promise<string> {
      const lines: string[] = [];
      const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
        lines.push(parts.map(String).join(' '));
      });
      try {
        await runGridwire([...args, '--api', address(), '--region', 'eu-west-1'], testProgram());
      } finally {
        log.mockRestore();
      }
      return lines.join('\n');
    },
  };
}
