/**
 * What the functions write to standard output and error, as CloudWatch Logs would ingest it:
 * Powertools Logger and Metrics write one JSON line per log record or EMF record to the process's
 * stdout/stderr (through their own `Console`), so a hook on those streams' `write` in the
 * benchmark's process sees every line the handlers of the local stack write. Lines with an `_aws`
 * member are EMF metric records; lines with the functions' `service` are application log lines;
 * anything else (the benchmark's own output) passes through untouched.
 */
import { SERVICE_NAME } from '../shared/observability/metrics';

export interface CapturedOutput {
  applicationLines: number;
  applicationBytes: number;
  emfRecords: number;
  emfBytes: number;
}

type Write = typeof process.stdout.write;

/** Starts counting (and holding back) the functions' lines; `stop` restores the streams. */
export function captureFunctionOutput(): { stop(): CapturedOutput } {
  const counted: CapturedOutput = { applicationLines: 0, applicationBytes: 0, emfRecords: 0, emfBytes: 0 };
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  streams.forEach((stream, index) => {
    const original = originals[index] as Write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text =
        typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
      if (text === undefined || !text.startsWith('{'))
        return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
      let kept = '';
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const kind = kindOf(line);
        if (kind === 'emf') {
          counted.emfRecords += 1;
          counted.emfBytes += Buffer.byteLength(line, 'utf8');
        } else if (kind === 'application') {
          counted.applicationLines += 1;
          counted.applicationBytes += Buffer.byteLength(line, 'utf8');
        } else kept += `${line}\n`;
      }
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (kept !== '') return (original as (...args: unknown[]) => boolean).call(stream, kept, ...rest);
      callback?.();
      return true;
    }) as Write;
  });
  return {
    stop: () => {
      streams.forEach((stream, index) => {
        stream.write = originals[index] as Write;
      });
      return { ...counted };
    },
  };
}

function kindOf(line: string): 'emf' | 'application' | 'other' {
  try {
    const parsed = JSON.parse(line) as { _aws?: unknown; service?: unknown };
    if (parsed._aws !== undefined) return 'emf';
    if (parsed.service === SERVICE_NAME) return 'application';
  } catch {
    // not JSON: not the functions'
  }
  return 'other';
}
