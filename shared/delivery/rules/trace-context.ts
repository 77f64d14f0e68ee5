/**
 * W3C Trace Context on deliveries: every request carries a `traceparent` header. When the
 * publish request carried one, the delivery continues its trace (the same trace id and flags,
 * a new parent id for the delivery request); otherwise it starts a trace of its own. Random ids
 * come from the caller, so the rules are table-tested.
 */

/** The header, as the W3C Trace Context specification names it. */
export const TRACEPARENT_HEADER = 'traceparent';

/** A trace the delivery continues: what a valid `traceparent` carries besides its parent id. */
export interface TraceParent {
  traceId: string;
  flags: string;
}

const ALL_ZEROS = /^0+$/;

/**
 * The trace a `traceparent` value names, or `undefined` for anything the specification says to
 * ignore: version `ff`, ids of the wrong length or all zeros, non-hex characters, or (for
 * version `00`) anything after the flags. Later versions may carry more fields after a dash.
 */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  if (value === undefined) return undefined;
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(value.trim());
  if (match === null) return undefined;
  const [, version, traceId, parentId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(parentId)) return undefined;
  return { traceId, flags };
}

/**
 * The `traceparent` of a delivery request: a child of `parent` (the publish request's, when it
 * had a valid one), or a new trace, not sampled. `randomHex(n)` gives `n` random bytes as hex.
 */
export function deliveryTraceparent(
  parent: string | undefined,
  randomHex: (bytes: number) => string,
): string {
  const trace = parseTraceparent(parent);
  const spanId = nonZero(() => randomHex(8));
  if (trace === undefined) return `00-${nonZero(() => randomHex(16))}-${spanId}-00`;
  return `00-${trace.traceId}-${spanId}-${trace.flags}`;
}

/** A random id that is not all zeros (which the specification makes invalid). */
function nonZero(draw: () => string): string {
  for (;;) {
    const id = draw();
    if (!ALL_ZEROS.test(id)) return id;
  }
}
