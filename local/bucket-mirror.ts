/**
 * Keeps the local dead-letter bucket across restarts. The S3 emulator holds objects in memory
 * only, so the local stack mirrors the bucket to files in its data directory: every object is put
 * back on start, and written out again on a clean stop. The files are the durable copy; nothing
 * is removed from them.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

export const BUCKET_MIRROR_DIR = 'dead-letters';

async function filesUnder(dir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Puts every mirrored object back into the bucket; returns how many. */
export async function restoreBucket(s3: S3Client, bucket: string, dataDir: string): Promise<number> {
  const root = join(dataDir, BUCKET_MIRROR_DIR);
  const files = await filesUnder(root);
  for (const file of files) {
    const key = relative(root, file).split(sep).join('/');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: await readFile(file) }));
  }
  return files.length;
}

/** Writes every object of the bucket to the mirror; returns how many. */
export async function saveBucket(s3: S3Client, bucket: string, dataDir: string): Promise<number> {
  const root = join(dataDir, BUCKET_MIRROR_DIR);
  let saved = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const object of page.Contents ?? []) {
      const key = object.Key;
      // Keys come from the dead-letter layout; refuse anything that would leave the mirror.
      if (key === undefined || key.split('/').some((part) => part === '..' || part === '')) continue;
      const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const file = join(root, ...key.split('/'));
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, (await Body?.transformToByteArray()) ?? new Uint8Array());
      saved += 1;
    }
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return saved;
}
