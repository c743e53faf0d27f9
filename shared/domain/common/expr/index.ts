/** The expression language of formula and condition queries and alert conditions (docs/expressions.md). */
export { ExpressionError } from './errors';
export {
  asCondition,
  type Bucket,
  type EvaluationInput,
  evaluateExpression,
  type GroupedSeries,
  type GroupKey,
  groupId,
} from './evaluate';
export {
  EXPRESSION_LIMITS,
  type Expression,
  type ExprNode,
  type Lookback,
  type ParseOptions,
  parseExpression,
} from './parse';
