import jsonata from 'jsonata';
import { BoundedMap } from '../../engine/bounded-map';
import type { ExpressionPool } from './expression-pool';
import { re2Flags, re2Problem, Re2RegexEngine } from '../../engine/re2';

/** Compiled expressions kept at most; trigger filters, input mappings and SCRIPT steps repeat few texts. */
const MAX_COMPILED = 1_000;

/** A text that does not parse as JSONata; `message` is the parser's, with its code and position. */
export class ExpressionSyntaxError extends Error {
  constructor(
    readonly text: string,
    readonly parserMessage: string,
    readonly code?: string,
    readonly position?: number,
  ) {
    super(`does not parse as JSONata: ${parserMessage}${code ? ` (${code}${position !== undefined ? ` at position ${position}` : ''})` : ''}`);
    this.name = 'ExpressionSyntaxError';
  }
}

type Compiled = { expression: jsonata.Expression } | { error: ExpressionSyntaxError };

const compiled = new BoundedMap<string, Compiled>(MAX_COMPILED);

function compile(text: string): Compiled {
  const known = compiled.get(text);
  if (known) return known;
  let result: Compiled;
  try {
    // Regex literals match with RE2 (linear time), and one RE2 does not compile is a syntax error.
    const expression = jsonata(text, { RegexEngine: Re2RegexEngine as unknown as RegExpConstructor });
    const literal = nonRe2Literal(expression.ast());
    result = literal
      ? { error: new ExpressionSyntaxError(text, `regular expression /${literal.regex.source}/ ${literal.problem}`, undefined, literal.position) }
      : { expression };
  } catch (error) {
    // jsonata throws plain objects {code, position, token, message}, not Error instances.
    const raw = error as { message?: unknown; code?: unknown; position?: unknown };
    const message = typeof raw?.message === 'string' ? raw.message : String(error);
    result = {
      error: new ExpressionSyntaxError(
        text,
        message,
        typeof raw?.code === 'string' ? raw.code : undefined,
        typeof raw?.position === 'number' ? raw.position : undefined,
      ),
    };
  }
  compiled.set(text, result);
  return result;
}

/** A regex literal of a parsed expression that RE2 does not compile, with why. */
function nonRe2Literal(ast: unknown): { regex: RegExp; problem: string; position?: number } | undefined {
  const seen = new Set<object>();
  const stack: unknown[] = [ast];
  while (stack.length) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (node instanceof RegExp) continue;
    const { type, value, position } = node as { type?: unknown; value?: unknown; position?: unknown };
    if (type === 'regex' && value instanceof RegExp) {
      const problem = re2Problem(value.source, re2Flags(value.flags));
      if (problem) return { regex: value, problem, position: typeof position === 'number' ? position : undefined };
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return undefined;
}

/**
 * The JSONata expression `text` compiles to, compiled once and cached by text (a text that does not
 * parse is remembered too). Shared between callers: evaluate it with bindings, never `assign` to it.
 * Throws ExpressionSyntaxError when the text does not parse.
 */
export function compiledExpression(text: string): jsonata.Expression {
  const result = compile(text);
  if ('error' in result) throw result.error;
  return result.expression;
}

/** The longest expression text stored (a SCRIPT step's, a trigger's filter or mapping): texts are cached by text. */
export const MAX_EXPRESSION_LENGTH = 10_000;

/**
 * Why `text` does not parse as JSONata (the message of ExpressionSyntaxError), or is longer than
 * MAX_EXPRESSION_LENGTH; undefined when it is fine.
 */
export function expressionSyntaxProblem(text: string): string | undefined {
  if (text.length > MAX_EXPRESSION_LENGTH) return `must be at most ${MAX_EXPRESSION_LENGTH} characters (a JSONata expression), got ${text.length}`;
  const result = compile(text);
  return 'error' in result ? result.error.message : undefined;
}

/** An evaluation that failed (a type mismatch, an undefined function): JSONata's message, code and position. */
export class ExpressionEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionEvaluationError';
  }
}

/**
 * Evaluates `text` over `input` in `pool`, off the main thread and within its limits (see
 * expression-pool.ts). Throws ExpressionSyntaxError when the text does not parse,
 * ExpressionEvaluationError for JSONata's errors (`<message> (JSONata <code> at position <n>)`) and
 * ExpressionLimitError (one of them) for a limit exceeded, so callers can tell an expression's failure
 * from the server's. The result is as JSON gives it back: dates as text, no functions, undefined for none.
 */
export async function evaluateExpression(text: string, input: unknown, pool: ExpressionPool): Promise<unknown> {
  // Parsed here too (once per text): a text that does not parse fails as before, without a round trip.
  compiledExpression(text);
  return pool.evaluate(text, input);
}
