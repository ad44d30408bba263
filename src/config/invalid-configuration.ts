/**
 * A setting the server cannot use: the start stops with exit status 1 and this message alone on one line
 * (no stack: the message names the variable or setting, what it may be and what it was given).
 */
export class InvalidConfiguration extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidConfiguration';
  }
}

/** An environment variable the server cannot use: `<NAME> must be <allowed>, got "<value>"`. */
export class InvalidVariable extends InvalidConfiguration {
  constructor(
    readonly variable: string,
    allowed: string,
    given?: string,
  ) {
    super(given === undefined ? `${variable} must be ${allowed}` : `${variable} must be ${allowed}, got "${given}"`);
    this.name = 'InvalidVariable';
  }
}
