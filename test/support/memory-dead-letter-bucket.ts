/**
 * The dead-letter bucket in memory, for the operator routes' tests: blobs with their write time
 * and topic stamp, and replay markers kept as the text the real bucket writes and read back the
 * way it reads them.
 */
import type { DeadLetterBlobs } from '../../shared/management/dead-letters';
import {
  type DeadLetterBlobInfo,
  parseReplayMarker,
  type ReplayMarker,
  replayMarkerText,
} from '../../shared/storage/dead-letter-bucket';

interface StoredBlob {
  text: string;
  writtenAt: number;
  topic?: string;
  uid?: string;
}

/** What S3 would answer about a blob: its stamps and when it was written. */
const stampOf = ({ topic, uid, writtenAt }: StoredBlob) => ({
  ...(topic === undefined ? {} : { topic }),
  ...(uid === undefined ? {} : { uid }),
  writtenAt,
});

export class MemoryDeadLetterBucket implements DeadLetterBlobs {
  readonly blobs = new Map<string, StoredBlob>();
  /** Marker texts by blob key. */
  readonly markers = new Map<string, string>();
  /** The prefixes listed, in order. */
  readonly listed: string[] = [];
  /** Keys whose text was read, in order. */
  readonly reads: string[] = [];
  /** Marking these keys fails. */
  readonly failMarking = new Set<string>();

  put(key: string, text: string, writtenAt: number, topic?: string, uid?: string): void {
    this.blobs.set(key, {
      text,
      writtenAt,
      ...(topic === undefined ? {} : { topic }),
      ...(uid === undefined ? {} : { uid }),
    });
  }

  async list(prefix: string, window: { since?: number; until?: number } = {}): Promise<DeadLetterBlobInfo[]> {
    this.listed.push(prefix);
    return [...this.blobs.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .filter(([, blob]) => window.since === undefined || blob.writtenAt >= window.since)
      .filter(([, blob]) => window.until === undefined || blob.writtenAt < window.until)
      .map(([key, blob]) => ({
        key,
        writtenAt: blob.writtenAt,
        bytes: Buffer.byteLength(blob.text),
        replayed: this.markers.has(key),
      }))
      .sort((a, b) => b.writtenAt - a.writtenAt);
  }

  /** The hour folders of the keys under `prefix` (`<yyyy>/<M>/<d>/<H>/`), newest first, as S3 would list them. */
  async *hourFolders(prefix: string, window: { since?: number; until?: number } = {}) {
    const folders = new Map<string, number>();
    for (const key of this.blobs.keys()) {
      const match = /^(\d{1,4})\/(\d{1,2})\/(\d{1,2})\/(\d{1,2})\//.exec(key.slice(prefix.length));
      if (!key.startsWith(prefix) || match === null) continue;
      const [, year, month, day, hour] = match.map(Number) as [number, number, number, number, number];
      folders.set(`${prefix}${match[0]}`, Date.UTC(year, month - 1, day, hour));
    }
    const ordered = [...folders.entries()]
      // As the real bucket: a folder ending up to 15 minutes before `since` is still looked in.
      .filter(([, start]) => window.since === undefined || start + 3_600_000 + 15 * 60_000 > window.since)
      .filter(([, start]) => window.until === undefined || start < window.until)
      .sort((a, b) => b[1] - a[1]);
    for (const [folder, hourStart] of ordered) yield { prefix: folder, hourStart };
  }

  async read(key: string) {
    this.reads.push(key);
    const blob = this.blobs.get(key);
    return blob === undefined ? undefined : { text: blob.text, ...stampOf(blob) };
  }

  async stampOf(key: string) {
    const blob = this.blobs.get(key);
    return blob === undefined ? undefined : stampOf(blob);
  }

  async replayMarker(key: string): Promise<ReplayMarker | undefined> {
    const text = this.markers.get(key);
    return text === undefined ? undefined : parseReplayMarker(text, 0);
  }

  async replayedAt(key: string): Promise<number | undefined> {
    return (await this.replayMarker(key))?.at;
  }

  async markReplayed(key: string, at: number, reasons: readonly string[]): Promise<void> {
    if (this.failMarking.has(key)) throw new Error('S3 is down');
    this.markers.set(key, replayMarkerText(at, reasons));
  }

  /** An old-style marker: just the ISO time (it covers every reason). */
  markAll(key: string, at: number): void {
    this.markers.set(key, new Date(at).toISOString());
  }

  /** The marker of `key` as the bucket reads it. */
  markerOf(key: string): ReplayMarker | undefined {
    const text = this.markers.get(key);
    return text === undefined ? undefined : parseReplayMarker(text, 0);
  }
}
