import jsonata from 'jsonata';
import { BoundedMap } from './bounded-map';

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
    result = { expression: jsonata(text) };
  } catch (error) {
    // jsonata throws plain objects {code, position, token, message}, not Error instances.
    const raw = error as { message?: unknown; code?: unknown; position?: unknown };
    const message = typeof raw?.message === 'string' ? raw.message : String(error);
    result = { error: new ExpressionSyntaxError(text, message, typeof raw?.code === 'string' ? raw.code : undefined, typeof raw?.position === 'number' ? raw.position : undefined) };
  }
  compiled.set(text, result);
  return result;
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

/** Why `text` does not parse as JSONata (the message of ExpressionSyntaxError), or undefined when it does. */
export function expressionSyntaxProblem(text: string): string | undefined {
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
 * Evaluates `text` over `input`. JSONata throws plain objects `{code, position, message}` when an
 * evaluation fails: they are thrown as ExpressionEvaluationError (or ExpressionSyntaxError when the text
 * does not parse), so callers can tell an expression's failure from the server's.
 */
export async function evaluateExpression(text: string, input: unknown): Promise<unknown> {
  const expression = compiledExpression(text);
  try {
    return await expression.evaluate(input);
  } catch (error) {
    const raw = error as { code?: unknown; position?: unknown; message?: unknown } | null;
    if (error instanceof Error || typeof raw?.code !== 'string' || typeof raw.message !== 'string') throw error;
    throw new ExpressionEvaluationError(`${raw.message} (JSONata ${raw.code}${typeof raw.position === 'number' ? ` at position ${raw.position}` : ''})`);
  }
}
