import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { logger } from '../../logging/logger';

/**
 * Records for analytics, written as JSON files under DATA_LAKE_DIR once the change they describe has
 * committed. Each file appears whole or not at all (written aside, then renamed); writing is best
 * effort: a failure is logged and never reaches the caller.
 */
export class DataLake {
  constructor(readonly root: string) {}

  async write(relativePath: string, record: Record<string, unknown>): Promise<boolean> {
    const target = join(this.root, relativePath);
    const temporary = join(dirname(target), `.${randomUUID()}.tmp`);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(temporary, `${JSON.stringify(record)}\n`, { flag: 'wx' });
      await rename(temporary, target);
      return true;
    } catch (error) {
      logger.error({ err: error, path: target }, 'could not write a data-lake record');
      await rm(temporary, { force: true }).catch(() => undefined);
      return false;
    }
  }
}
