import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InvalidConfiguration } from './invalid-configuration';

/** Read when CONFIG_FILE is not set, if it exists (relative to the working directory). */
export const DEFAULT_CONFIG_FILE = 'platform.config.yaml';

/** The structured settings of CONFIG_FILE: a mapping of blocks (`analyticsEmbed` ...), each checked by its reader. */
export type ConfigFile = Record<string, unknown>;

/** CONFIG_FILE cannot be read or is not a mapping: the server does not start. */
export class ConfigFileError extends InvalidConfiguration {
  constructor(file: string, problem: string) {
    super(`CONFIG_FILE ${file}: ${problem}`);
    this.name = 'ConfigFileError';
  }
}

/**
 * The settings of `configured` (CONFIG_FILE), else of ./platform.config.yaml when it exists, else none.
 * A file named explicitly must exist.
 */
export function loadConfigFile(configured: string | undefined): ConfigFile {
  const file = configured || DEFAULT_CONFIG_FILE;
  if (!configured && !existsSync(file)) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigFileError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseConfigText(text, file);
}

/** JSON for a `.json` file, YAML otherwise (YAML 1.2 reads JSON too); an empty file holds no settings. */
export function parseConfigText(text: string, file: string): ConfigFile {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigFileError(file, `not valid ${extname(file).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigFileError(file, 'must be a mapping of settings blocks');
  return parsed as ConfigFile;
}
