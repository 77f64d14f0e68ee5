/**
 * The local tools deliberately run on the machine's Node.js 20+, while Lambda runs 24; the AWS
 * SDK's notice about future Node.js requirements is noise there. Other warnings still show.
 */
export function silenceNodeVersionNotice(): void {
  const emitWarning = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.includes('NodeVersionSupportWarning')) return;
    (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}
