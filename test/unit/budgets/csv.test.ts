import { budgetCsv, parseBudgetCsv } from '../../../shared/domain/budgets/csv';
import type { BudgetLine } from '../../../shared/model/budgets';

describe('CSV export against CSV injection', () => {
  const lines: BudgetLine[] = [
    { value: '=HYPERLINK("http://evil.test","x")', owner: '@evil', amounts: { '2026-01': 1 } },
    { value: '+1+2', owner: '-2+3', amounts: { '2026-01': 2 } },
    { value: '\tcmd', owner: null, amounts: { '2026-02': 3 } },
    { value: 'AmazonEC2', owner: 'ops@example.com', amounts: { '2026-01': 4.5 } },
  ];

  it('writes a formula-leading text cell with a leading quote, and leaves others as they are', () => {
    const csv = budgetCsv({ startMonth: '2026-01', lines });
    const rows = csv.split('\r\n');
    expect(rows[0]).toBe('value,owner,2026-01,2026-02');
    expect(rows[1]).toBe(`"'=HYPERLINK(""http://evil.test"",""x"")",'@evil,1,`);
    expect(rows[2]).toBe("'+1+2,'-2+3,2,");
    expect(rows[3]).toBe("'\tcmd,,,3");
    expect(rows[4]).toBe('AmazonEC2,ops@example.com,4.5,');
    // No cell of the file starts with a formula character.
    for (const row of rows.slice(1))
      for (const cell of row.split(',')) expect(/^"?[=+\-@\t\r]/.test(cell)).toBe(false);
  });

  it('imports an export back unchanged', () => {
    const back = parseBudgetCsv(budgetCsv({ startMonth: '2026-01', lines }));
    expect(back).toEqual(lines);
  });
});
