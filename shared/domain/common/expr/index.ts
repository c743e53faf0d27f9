/** The expression language of formula and condition queries and alert conditions (docs/expressions.md). */

export type { Bucket } from './dates';
export { ExpressionError } from './errors';
export { asCondition, evaluateExpression } from './evaluate';
export { forecasterFor, loadPeriodForecaster } from './forecaster';
export {
  type EvaluationInput,
  type GroupedSeries,
  type GroupKey,
  groupId,
  type PeriodForecaster,
} from './grouped-series';
export {
  EXPRESSION_LIMITS,
  type Expression,
  type ExprNode,
  type Lookback,
  type ParseOptions,
  parseExpression,
} from './parse';
