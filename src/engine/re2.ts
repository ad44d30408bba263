import { RE2JS, RE2JSException } from 're2js';
import { BoundedMap } from './bounded-map';

/**
 * Regular expressions that come from users (a template option's `properties.pattern`, a JSONata regex
 * literal) are RE2: matched in time linear in the text whatever the pattern, where the backtracking of
 * JavaScript's RegExp can take exponential time (ReDoS). RE2 has no backreferences or lookaround, so a
 * pattern using them does not compile, and is refused when it is stored.
 */

/** Compiled patterns kept at most; a server matches few distinct patterns. */
const MAX_COMPILED = 1_000;

type Compiled = { regex: RE2JS } | { problem: string };

const compiled = new BoundedMap<string, Compiled>(MAX_COMPILED);

/** A pattern RE2 does not compile; `message` says why, as a field issue words it. */
export class Re2SyntaxError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`is not a valid RE2 regular expression: ${reason}`);
    this.name = 'Re2SyntaxError';
  }
}

function compile(pattern: string, flags: number): Compiled {
  const key = `${flags}:${pattern}`;
  const known = compiled.get(key);
  if (known) return known;
  let result: Compiled;
  try {
    result = { regex: RE2JS.compile(pattern, flags) };
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    result = { problem: error.message.replace(/^error parsing regexp: /, '') };
  }
  compiled.set(key, result);
  return result;
}

/** `pattern` compiled as RE2 (cached); throws Re2SyntaxError when it does not compile. */
export function re2(pattern: string, flags = 0): RE2JS {
  const result = compile(pattern, flags);
  if ('problem' in result) throw new Re2SyntaxError(pattern, result.problem);
  return result.regex;
}

/** Why `pattern` is not an RE2 regular expression (`is not a valid RE2 regular expression: ...`), or undefined when it is. */
export function re2Problem(pattern: string, flags = 0): string | undefined {
  const result = compile(pattern, flags);
  return 'problem' in result ? new Re2SyntaxError(pattern, result.problem).message : undefined;
}

/** RE2 flags of JavaScript ones: `i` and `m` (JSONata's only two); `g` is the caller's concern. */
export function re2Flags(flags: string): number {
  return (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0) | (flags.includes('s') ? RE2JS.DOTALL : 0);
}

/**
 * The part of RegExp JSONata's evaluator uses (`new RegexEngine(literal)`, then `lastIndex` and `exec`
 * as with a global RegExp), over RE2: given as JSONata's `RegexEngine`, its regex literals match in
 * linear time. A literal RE2 does not compile throws (expressions are checked when stored, see
 * modules/workflow/expressions.ts; one built by `$eval` fails its evaluation).
 */
export class Re2RegexEngine {
  lastIndex = 0;
  private readonly regex: RE2JS;

  constructor(literal: RegExp | string, flags?: string) {
    const source = typeof literal === 'string' ? literal : literal.source;
    this.regex = re2(source, re2Flags(flags ?? (typeof literal === 'string' ? '' : literal.flags)));
  }

  exec(text: string): RegExpExecArray | null {
    const matcher = this.regex.matcher(text);
    if (this.lastIndex > text.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    // As RegExp: a group that took no part in the match is undefined.
    const groups = Array.from({ length: matcher.groupCount() + 1 }, (_, group) => matcher.group(group) ?? undefined);
    this.lastIndex = matcher.end();
    return Object.assign(groups, { index: matcher.start(), input: text }) as RegExpExecArray;
  }
}
