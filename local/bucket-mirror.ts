/**
 * Dead letters saved by an earlier version of the local stack, whose S3 emulator held objects in
 * memory only and mirrored the bucket to files on a clean stop. The emulator now keeps the bucket
 * on disk itself, so the mirror is put back once, then removed.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

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

/**
 * Puts every mirrored object back into the bucket, then removes the mirror (only once all are
 * back: an interrupted start puts them back again, which is harmless); returns how many.
 */
export async function restoreBucket(s3: S3Client, bucket: string, dataDir: string): Promise<number> {
  const root = join(dataDir, BUCKET_MIRROR_DIR);
  const files = await filesUnder(root);
  for (const file of files) {
    const key = relative(root, file).split(sep).join('/');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: await readFile(file) }));
  }
  await rm(root, { recursive: true, force: true });
  return files.length;
}
