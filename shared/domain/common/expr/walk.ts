import type { ExprNode } from './parse';

/** The window-function calls (`rollingMedian(a, 28, DAY)`, `timeShift(…)`…) of an expression, outermost first. */
export function windowNodes(node: ExprNode, out: Extract<ExprNode, { type: 'window' }>[] = []) {
  if (node.type === 'window') out.push(node);
  if (node.type === 'window' || node.type === 'unary' || node.type === 'forecast') windowNodes(node.arg, out);
  if (node.type === 'binary') {
    windowNodes(node.left, out);
    windowNodes(node.right, out);
  }
  if (node.type === 'call') for (const a of node.args) windowNodes(a, out);
  return out;
}
