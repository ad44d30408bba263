import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder holding package.json, whether running from src/ (tests) or dist/src/ (compiled). */
export const projectRoot = (() => {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return process.cwd();
})();
