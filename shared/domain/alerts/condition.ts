import type { Query } from '../../model/query-model';
import { ExpressionError } from '../common/expr/errors';
import { type ExprNode, parseExpression } from '../common/expr/parse';
import { ALERT_LIMITS } from './schemas';

/**
 * Checks an alert condition against the alert's queries with the expression language's own parser:
 * it must parse, name only queries of `queries`, and be a truth value (a comparison, `and`/`or`/`not`
 * of comparisons, or a condition query). Answers the problem with its position
 * (`unknown query 'foo' at 14`), or null.
 */
export function conditionProblem(condition: string, queries: readonly Query[]): string | null {
  try {
    const parsed = parseExpression(condition, {
      names: queries.map((q) => q.name),
      maxLength: ALERT_LIMITS.conditionMaxLength,
    });
    if (!isTruthValue(parsed.ast, queries))
      return `must be a comparison such as 'a > 100' or 'a > rollingMedian(a, 28, DAY) * 1.5' (got a number-valued expression at ${parsed.ast.pos})`;
    return null;
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
}

function isTruthValue(node: ExprNode, queries: readonly Query[]): boolean {
  switch (node.type) {
    case 'binary':
      return ['>', '>=', '<', '<=', '==', '!=', 'and', 'or'].includes(node.op);
    case 'unary':
      return node.op === 'not';
    case 'ref':
      return queries.find((q) => q.name === node.name)?.type === 'condition';
    default:
      return false;
  }
}
