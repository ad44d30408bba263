import { InvalidConfiguration } from './invalid-configuration';

/** A block of CONFIG_FILE is malformed: the server does not start (the message names the setting by its path). */
export class ConfigBlockError extends InvalidConfiguration {
  constructor(path: string, problem: string) {
    super(`${path} ${problem}`);
    this.name = 'ConfigBlockError';
  }
}

interface Kinds {
  boolean: boolean;
  string: string;
  number: number;
}

/**
 * One mapping of CONFIG_FILE (`analyticsEmbed`, `aiGateway.providers.openai` ...) read setting by
 * setting; every refusal names the setting by its whole path (`aiGateway.providers.openai.baseUrl`).
 */
export class ConfigBlock {
  private constructor(
    readonly path: string,
    private readonly settings: Record<string, unknown>,
  ) {}

  /** The block at `path`: undefined when absent (or null), refused when it is not a mapping. */
  static of(raw: unknown, path: string): ConfigBlock | undefined {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigBlockError(path, 'must be a mapping');
    return new ConfigBlock(path, raw as Record<string, unknown>);
  }

  /** The refusal of one setting of this block. */
  error(setting: string, problem: string): ConfigBlockError {
    return new ConfigBlockError(`${this.path}.${setting}`, problem);
  }

  /** The names of the settings written in the block, in order. */
  names(): string[] {
    return Object.keys(this.settings);
  }

  /** The mapping a setting holds, if any. */
  child(setting: string): ConfigBlock | undefined {
    return ConfigBlock.of(this.settings[setting], `${this.path}.${setting}`);
  }

  /** A setting of one kind, absent (or null) allowed; `must` completes "<path> must ...". */
  optional<K extends keyof Kinds>(setting: string, kind: K, must: string): Kinds[K] | undefined {
    const value = this.settings[setting];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== kind) throw this.error(setting, `must ${must}`);
    return value as Kinds[K];
  }

  /** A non-blank text, trimmed; `when` says when it is required (`when enabled`). */
  requiredText(setting: string, when = ''): string {
    const value = this.optional(setting, 'string', 'be a text')?.trim();
    if (!value) throw this.error(setting, `is required${when ? ` ${when}` : ''}`);
    return value;
  }

  /** A list of distinct non-blank texts (absent: none). */
  textList(setting: string): string[] {
    const value = this.settings[setting];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string' && item.trim() !== '')) {
      throw this.error(setting, 'must be a list of non-blank texts');
    }
    return [...new Set(value)];
  }
}
