/**
 * The one error the expression language throws for a bad expression: at parse time (syntax, unknown
 * query or function, limits) and at evaluation time (operands grouped by different dimensions, a
 * query with no series). `position` is the 0-based character offset of the offending token in the
 * expression's source (the source length for "unexpected end"); the message ends with ` at <position>`,
 * e.g. `unknown query 'foo' at 14`. `reason` is the message without the position.
 */
export class ExpressionError extends Error {
  readonly position: number;
  readonly reason: string;

  constructor(reason: string, position: number) {
    super(`${reason} at ${position}`);
    this.name = 'ExpressionError';
    this.reason = reason;
    this.position = position;
  }
}
