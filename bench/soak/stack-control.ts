/**
 * The soak's hold on its stack process (`stack-process.ts`): starts it in a process group of its
 * own on the soak's data directory, and makes the faults the schedule calls for: the whole group
 * SIGKILLed, the emulator process SIGKILLed (the stack then exits with status 1), the table taken
 * away and given back. The soak starts it again after each, on the same directory.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { STACK_ENV, STACK_NODE_FLAGS } from '../../local/emulators';
import type { SoakStackCommand, SoakStackMessage, SoakStackOptions } from './stack-protocol';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ROOT = join(__dirname, '..', '..');
/**
 * Where the soak's stack is built as JavaScript: beside the command line's bundle, inside the
 * repository's node_modules, where its packages are found.
 */
const BUILD_DIR = join(ROOT, 'node_modules', '.cache', 'gridwire-soak');

/**
 * Builds `stack-process.ts` and the emulator host as JavaScript, as `npm start` runs the stack
 * (`scripts/gridwire.js`; docs/local-stack.md, "Memory"), so the soak's memory is the stack's and
 * not a TypeScript compiler's; the script that starts it.
 */
export async function buildSoakStack(): Promise<string> {
  const launcher = require('../../scripts/gridwire') as {
    buildBundle(paths: { entry: string; bundle: string }): Promise<void>;
  };
  const bundle = join(BUILD_DIR, 'soak-stack.js');
  await launcher.buildBundle({ entry: join(__dirname, 'stack-process.ts'), bundle });
  const start = join(BUILD_DIR, 'soak-stack-start.js');
  await writeFile(start, `require(${JSON.stringify(bundle)}).main();\n`);
  return start;
}

export interface RunningSoakStack {
  readonly child: ChildProcess;
  readonly apiUrl: string;
  readonly destinationQueueArn: string;
  /** Resolves once it has exited, with its code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export class SoakStackControl {
  private current: RunningSoakStack | undefined;
  /** Exits nobody asked for (each a finding), with what the process said. */
  readonly unplannedExits: string[] = [];
  private planned = false;
  private lastFatal = '';

  constructor(
    private readonly options: SoakStackOptions,
    private readonly onQueued: (ids: readonly string[]) => void,
    /** The built stack (`buildSoakStack`); the TypeScript through tsx without it. */
    private readonly built?: string,
  ) {}

  get running(): RunningSoakStack | undefined {
    return this.current;
  }

  /** Starts the stack process; resolves once it serves (at most 90 s). */
  async start(): Promise<RunningSoakStack> {
    const child = fork(this.built ?? join(__dirname, 'stack-process.ts'), [JSON.stringify(this.options)], {
      // With the memory settings `npm start` runs the stack with (docs/local-stack.md, "Memory").
      execArgv: [
        ...(this.built === undefined ? ['--import', 'tsx'] : []),
        '--no-warnings',
        ...STACK_NODE_FLAGS,
      ],
      env: { ...STACK_ENV, ...process.env },
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const ready = await new Promise<Extract<SoakStackMessage, { type: 'ready' }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the soak's stack did not start:\n${stderr}`)), 90_000);
      child.on('message', (message: SoakStackMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(message);
        } else if (message.type === 'queued') this.onQueued(message.ids);
        else if (message.type === 'fatal') this.lastFatal = message.message;
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`the soak's stack exited (${code ?? signal}) before it served:\n${stderr}`));
      });
    });
    const running: RunningSoakStack = {
      child,
      apiUrl: ready.apiUrl,
      destinationQueueArn: ready.destinationQueueArn,
      exited,
    };
    this.planned = false;
    void exited.then(({ code, signal }) => {
      if (!this.planned) {
        this.unplannedExits.push(`exit ${code ?? signal}: ${this.lastFatal || stderr.slice(-500)}`);
      }
      if (this.current === running) this.current = undefined;
    });
    this.current = running;
    return running;
  }

  /** SIGKILLs the whole process group (the stack and its emulator) and waits until it is gone. */
  async killAll(): Promise<void> {
    const running = this.current;
    if (running === undefined) return;
    this.planned = true;
    signalGroup(running.child, 'SIGKILL');
    await running.exited;
    await this.groupGone(running.child);
  }

  /** SIGKILLs the emulator process alone; the stack exits on its own (status 1); waits for both. */
  async killEmulator(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const running = this.current;
    if (running === undefined) throw new Error('no soak stack is running');
    this.planned = true;
    process.kill(await emulatorPidOf(running.child), 'SIGKILL');
    const exit = await Promise.race([running.exited, sleep(30_000).then(() => undefined)]);
    if (exit === undefined) {
      // It should have gone on its own; it did not: a finding, and the group is stopped here.
      this.unplannedExits.push('the stack kept running after its emulator process was killed');
      signalGroup(running.child, 'SIGKILL');
    }
    const final = await running.exited;
    await this.groupGone(running.child);
    return final;
  }

  /** Takes the DynamoDB emulator away from the stack's clients (`down`), or gives it back. */
  async table(down: boolean): Promise<void> {
    const running = this.current;
    if (running === undefined) throw new Error('no soak stack is running');
    const command: SoakStackCommand = { type: 'table', down };
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the stack did not acknowledge the table fault')),
        10_000,
      );
      const listener = (message: SoakStackMessage) => {
        if (message.type === 'table' && message.down === down) {
          clearTimeout(timer);
          running.child.off('message', listener);
          resolve();
        }
      };
      running.child.on('message', listener);
      running.child.send(command);
    });
  }

  /** Stops whatever runs (the end of the soak). */
  async stop(): Promise<void> {
    await this.killAll();
  }

  private async groupGone(child: ChildProcess): Promise<void> {
    for (let tries = 0; tries < 150; tries += 1) {
      try {
        process.kill(-(child.pid as number), 0);
      } catch {
        return;
      }
      await sleep(100);
    }
    throw new Error(`the soak stack's process group ${child.pid} did not go away`);
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    // Already gone.
  }
}

/** The pid of the stack's emulator process (its child running `emulator-host`). */
async function emulatorPidOf(child: ChildProcess): Promise<number> {
  const { stdout } = await run('pgrep', ['-P', String(child.pid)]);
  for (const pid of stdout.split('\n').filter((line) => line.trim() !== '')) {
    const { stdout: command } = await run('ps', ['-o', 'args=', '-p', pid]);
    if (command.includes('emulator-host')) return Number(pid);
  }
  throw new Error(`no emulator process under ${child.pid}`);
}
