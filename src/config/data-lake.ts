import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidVariable } from './invalid-configuration';

/** Where data-lake records go: a folder, or a bucket (and key prefix) of an S3-compatible store. */
export type DataLakeTarget = { kind: 'file'; dir: string } | { kind: 's3'; bucket: string; prefix: string; endpoint?: string };

/**
 * DATA_LAKE_URL (`file:///path` or `s3://bucket/prefix`) over DATA_LAKE_DIR; DATA_LAKE_S3_ENDPOINT names
 * an S3-compatible endpoint (addressed path-style). Anything else stops the start, naming the variable.
 */
export function dataLakeTarget(url: string | undefined, dir: string, s3Endpoint: string | undefined): DataLakeTarget {
  if (s3Endpoint !== undefined && !/^https?:\/\/[^/]+/.test(s3Endpoint)) {
    throw new InvalidVariable('DATA_LAKE_S3_ENDPOINT', 'an http:// or https:// URL', s3Endpoint);
  }
  if (url === undefined) return { kind: 'file', dir };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidVariable('DATA_LAKE_URL', 'file:///path or s3://bucket/prefix', url);
  }
  if (parsed.protocol === 'file:') {
    const path = fileURLToPath(parsed);
    if (!isAbsolute(path)) throw new InvalidVariable('DATA_LAKE_URL', 'file:///absolute/path or s3://bucket/prefix', url);
    return { kind: 'file', dir: resolve(path) };
  }
  // Bucket names are 3 to 63 lower-case letters, digits, dots and hyphens.
  if (parsed.protocol === 's3:' && /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(parsed.hostname) && !parsed.search && !parsed.hash) {
    const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, '');
    return { kind: 's3', bucket: parsed.hostname, prefix, ...(s3Endpoint ? { endpoint: s3Endpoint } : {}) };
  }
  throw new InvalidVariable('DATA_LAKE_URL', 'file:///path or s3://bucket/prefix', url);
}
