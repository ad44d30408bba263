import jsonata from 'jsonata';
import { BoundedMap } from './bounded-map';

/** JSONata expressions (trigger filters and input mappings, SCRIPT steps), compiled once per text. */
const compiled = new BoundedMap<string, jsonata.Expression>(1_000);

/** The compiled expression; throws the parser's error (its `message` says what and where) when it does not parse. */
export function compiledExpression(text: string): jsonata.Expression {
  let expression = compiled.get(text);
  if (!expression) {
    expression = jsonata(text);
    compiled.set(text, expression);
  }
  return expression;
}

/** Evaluates `text` over `input`; JSONata's own errors (a type mismatch, an undefined function) are thrown. */
export async function evaluateExpression(text: string, input: unknown): Promise<unknown> {
  return compiledExpression(text).evaluate(input);
}
