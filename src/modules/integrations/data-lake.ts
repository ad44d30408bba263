import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DataLakeTarget } from '../../config/data-lake';
import { logger } from '../../logging/logger';

/** Records written, and records given up on after every attempt, since the process started. */
export interface DataLakeCounts {
  written: number;
  failed: number;
}

/**
 * Records for analytics, written once the change they describe has committed, under a key such as
 * `task-locks/2026/11/26/<taskId>-<epochMillis>.json`. Writing is best effort: a failure is logged and
 * counted, and never reaches the caller.
 */
export interface DataLake {
  /** Where records go, for the log (`file:///...`, `s3://bucket/prefix`). */
  readonly location: string;
  write(key: string, record: Record<string, unknown>): Promise<void>;
  counts(): DataLakeCounts;
  /** Waits for the writes still being retried (at shutdown). */
  flush(): Promise<void>;
}

export function openDataLake(target: DataLakeTarget): DataLake {
  return target.kind === 'file' ? new FileDataLake(target.dir) : new S3DataLake(target);
}

const recordText = (record: Record<string, unknown>) => `${JSON.stringify(record)}\n`;

/** JSON files under a folder; each appears whole or not at all (written aside, then renamed). */
export class FileDataLake implements DataLake {
  private readonly counted: DataLakeCounts = { written: 0, failed: 0 };

  constructor(readonly root: string) {}

  get location(): string {
    return `file://${this.root}`;
  }

  async write(key: string, record: Record<string, unknown>): Promise<void> {
    const target = join(this.root, key);
    const temporary = join(dirname(target), `.${randomUUID()}.tmp`);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(temporary, recordText(record), { flag: 'wx' });
      await rename(temporary, target);
      this.counted.written += 1;
    } catch (error) {
      this.counted.failed += 1;
      logger.error({ err: error, path: target }, 'could not write a data-lake record');
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }

  counts(): DataLakeCounts {
    return { ...this.counted };
  }

  async flush(): Promise<void> {}
}

/** How long one PUT may take before it counts as failed. */
const ATTEMPT_TIMEOUT_MS = 5_000;
/** Pauses before the second and the third (last) attempt. */
const RETRY_DELAYS_MS = [250, 1_000];

/**
 * Objects in a bucket of S3 or an S3-compatible store (DATA_LAKE_S3_ENDPOINT, addressed path-style),
 * through the official SDK with the standard AWS credentials. The request that caused a record waits
 * for the first attempt only (5 s at most); the retries, three attempts in all, go on without it.
 */
export class S3DataLake implements DataLake {
  private readonly client: S3Client;
  private readonly counted: DataLakeCounts = { written: 0, failed: 0 };
  private readonly retrying = new Set<Promise<void>>();

  constructor(private readonly target: Extract<DataLakeTarget, { kind: 's3' }>) {
    this.client = new S3Client({
      region: process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1',
      ...(target.endpoint ? { endpoint: target.endpoint, forcePathStyle: true } : {}),
      // The retries are this class's (they outlive the request); checksums only where S3 requires them,
      // which every S3-compatible store understands.
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  get location(): string {
    return `s3://${this.target.bucket}/${this.target.prefix}`;
  }

  async write(key: string, record: Record<string, unknown>): Promise<void> {
    const objectKey = this.target.prefix ? `${this.target.prefix}/${key}` : key;
    const body = recordText(record);
    if (await this.put(objectKey, body, 1)) return;
    const retries = this.retry(objectKey, body).finally(() => this.retrying.delete(retries));
    this.retrying.add(retries);
  }

  counts(): DataLakeCounts {
    return { ...this.counted };
  }

  async flush(): Promise<void> {
    await Promise.all([...this.retrying]);
  }

  private async retry(objectKey: string, body: string): Promise<void> {
    for (const [index, delay] of RETRY_DELAYS_MS.entries()) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (await this.put(objectKey, body, index + 2)) return;
    }
    this.counted.failed += 1;
    logger.error({ key: objectKey, bucket: this.target.bucket, attempts: RETRY_DELAYS_MS.length + 1 }, 'gave up writing a data-lake record');
  }

  /** One attempt; true once the object is stored. */
  private async put(objectKey: string, body: string, attempt: number): Promise<boolean> {
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.target.bucket, Key: objectKey, Body: body, ContentType: 'application/json' }), {
        abortSignal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      this.counted.written += 1;
      return true;
    } catch (error) {
      logger.warn({ err: error, key: objectKey, bucket: this.target.bucket, attempt }, 'could not write a data-lake record');
      return false;
    }
  }
}
