import { budgetsSentence } from '../../../shared/domain/budgets/digest';

it("the DIGEST's budget sentence", () => {
  expect(budgetsSentence({ month: '2026-11', over: 3, lines: 12 })).toBe(
    '3 of 12 budget lines are forecast over budget for 2026-11.',
  );
  expect(budgetsSentence({ month: '2026-11', over: 0, lines: 1 })).toBe(
    '0 of 1 budget line is forecast over budget for 2026-11.',
  );
});
