import * as v from 'valibot';
import type { Principal } from '../../auth/principal';
import {
  getBudget,
  insertBudget,
  listBudgets,
  listBudgetVersions,
  replaceBudgetRecord,
  saveBudgetVersion,
} from '../../db/budgets-repo';
import type { Page } from '../../db/page';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, ShapedError } from '../../errors';
import { newId } from '../../ids';
import { log } from '../../log';
import { type Budget, type BudgetFields, type BudgetVersion, budgetFieldsOf } from '../../model/budgets';
import { toFieldIssues, validationFailure } from '../../validation';
import { changeVersioned, retryLostRace } from '../common/lost-race';
import { expectedVersion } from '../dashboards/rules';
import { assertScopesAssignable } from '../dashboards/service';
import { budgetCsv, parseBudgetCsv } from './csv';
import { bodyIssue, canEdit } from './rules';
import { BudgetBody, type BudgetBodyInput, ImportBudgetBody } from './schemas';

const now = () => new Date().toISOString();
const ARCHIVED = () => new ShapedError(409, { error: 'BUDGET_ARCHIVED' });

/** The body's fields in the record's order; 400 naming the path of the first cross-field issue. */
function fieldsOf(body: BudgetBodyInput): BudgetFields {
  const fields: BudgetFields = {
    name: body.name,
    description: body.description,
    currency: body.currency,
    metricId: body.metricId,
    scopeId: body.scopeId,
    whereClause: body.whereClause,
    groupBy: body.groupBy,
    startMonth: body.startMonth,
    lines: body.lines.map((l) => ({ value: l.value, owner: l.owner, amounts: sortedAmounts(l.amounts) })),
  };
  const issue = bodyIssue(fields);
  if (issue) throw validationFailure('plain', 'body', [issue]);
  return fields;
}

function sortedAmounts(amounts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(amounts).sort(([a], [b]) => a.localeCompare(b)));
}

/** A member may only aim a budget at a scope the dashboards' scope rule lets them assign. */
async function assertScope(principal: Principal, scopeId: string | null): Promise<void> {
  await assertScopesAssignable(principal, scopeId ? [{ scopeId, path: 'scopeId' }] : []);
}

function versionOf(b: Budget): BudgetVersion {
  return {
    budgetId: b.id,
    ...budgetFieldsOf(b),
    versionId: b.versionId,
    versionNumber: b.versionNumber,
    createdById: b.updatedById,
    createdAt: b.updatedAt,
  };
}

/** Any member of the organisation reads any of its budgets; another organisation's is a 404. */
export async function loadBudget(principal: Principal, budgetId: string): Promise<Budget> {
  const b = await getBudget(principal.orgId, budgetId);
  if (!b) throw new NotFoundError('NOT_FOUND');
  return b;
}

async function loadEditable(principal: Principal, budgetId: string): Promise<Budget> {
  const b = await loadBudget(principal, budgetId);
  if (!canEdit(principal, b)) throw new ForbiddenError('FORBIDDEN');
  return b;
}

/** POST /budgets: the budget and its version 1, in one transaction. */
export async function createBudget(principal: Principal, body: BudgetBodyInput): Promise<Budget> {
  const fields = fieldsOf(body);
  await assertScope(principal, fields.scopeId);
  const at = now();
  const budget: Budget = {
    id: newId('bud'),
    organizationId: principal.orgId,
    ...fields,
    versionId: newId('bver'),
    versionNumber: 1,
    createdById: principal.principalId,
    createdAt: at,
    updatedById: principal.principalId,
    updatedAt: at,
    archivedAt: null,
  };
  await insertBudget(budget, versionOf(budget));
  log.info('budget created', { orgId: principal.orgId, budgetId: budget.id, lines: fields.lines.length });
  return budget;
}

/**
 * PUT /budgets/{id}: a new version replacing every field. With `If-Match: "<versionNumber>"` a
 * stale version is a 409 VERSION_CONFLICT; without one the last writer wins (lost races retried).
 */
export async function updateBudget(
  principal: Principal,
  budgetId: string,
  body: BudgetBodyInput,
  ifMatch: string | undefined,
): Promise<Budget> {
  const expected = expectedVersion(undefined, ifMatch);
  const fields = fieldsOf(body);
  return changeVersioned({
    expected,
    read: async () => {
      const current = await loadEditable(principal, budgetId);
      if (current.archivedAt) throw ARCHIVED();
      return current;
    },
    version: (current) => current.versionNumber,
    change: async (current, attempt) => {
      if (attempt === 0) await assertScope(principal, fields.scopeId);
      const next: Budget = {
        ...current,
        ...fields,
        versionId: newId('bver'),
        versionNumber: current.versionNumber + 1,
        updatedById: principal.principalId,
        updatedAt: now(),
      };
      return next;
    },
    replace: async (next, current) => {
      await saveBudgetVersion(next, versionOf(next), current.versionNumber);
      log.info('budget version saved', {
        orgId: principal.orgId,
        budgetId,
        versionNumber: next.versionNumber,
      });
      return next;
    },
    unchanged: (current) => current,
  });
}

/** DELETE /budgets/{id}: archives (no new version); archiving an archived budget answers it unchanged. */
export async function archiveBudget(principal: Principal, budgetId: string, ifMatch: string | undefined) {
  const expected = expectedVersion(undefined, ifMatch);
  for (let attempt = 0; ; attempt++) {
    const current = await loadEditable(principal, budgetId);
    if (current.archivedAt) return current;
    if (expected !== undefined && expected !== current.versionNumber)
      throw new ConflictError('VERSION_CONFLICT');
    const at = now();
    const archived: Budget = {
      ...current,
      archivedAt: at,
      updatedById: principal.principalId,
      updatedAt: at,
    };
    try {
      await replaceBudgetRecord(archived, current.versionNumber);
      log.info('budget archived', { orgId: principal.orgId, budgetId });
      return archived;
    } catch (error) {
      if (await retryLostRace(error, expected, attempt)) continue;
      throw error;
    }
  }
}

/** GET /budgets: active budgets newest first (`archived=true`: the archived ones). */
export function listOrgBudgets(
  principal: Principal,
  opts: { limit: number; cursor?: string | undefined; archived: boolean },
): Promise<Page<Budget>> {
  return listBudgets(principal.orgId, opts.archived, opts);
}

/** GET /budgets/{id}/versions: the saved versions, newest first, each as it was saved. */
export async function listVersions(
  principal: Principal,
  budgetId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<BudgetVersion>> {
  await loadBudget(principal, budgetId);
  return listBudgetVersions(principal.orgId, budgetId, page);
}

/** A body path of the grid said as the CSV's row (`lines.2.amounts.2026-03` → `row 4 (2026-03)`). */
function asRow(path: string): string {
  const m = /^lines\.(\d+)(?:\.(\w+))?(?:\.(.+))?$/.exec(path);
  if (!m) return path;
  const row = `row ${Number(m[1]) + 2}`;
  if (m[2] === 'amounts') return m[3] ? `${row} (${m[3]})` : row;
  return m[2] ? `${row} (${m[2]})` : row;
}

/** GET /budgets/{id}/export.csv: the current version's lines × months grid. */
export async function exportBudgetCsv(
  principal: Principal,
  budgetId: string,
): Promise<{ name: string; csv: string }> {
  const budget = await loadBudget(principal, budgetId);
  return { name: budget.name, csv: budgetCsv(budget) };
}

/**
 * POST /budgets/{id}/import: the grid (text/csv, or JSON `{csv}`) replaces the lines and saves a
 * new version like a PUT (`If-Match` as there); every other field stays. Bad cells are a 400 naming
 * each by row and column; nothing is saved then.
 */
export async function importBudgetCsv(
  principal: Principal,
  budgetId: string,
  raw: unknown,
  ifMatch: string | undefined,
): Promise<Budget> {
  const current = await loadEditable(principal, budgetId);
  const parsed = v.safeParse(ImportBudgetBody, raw);
  const text = typeof raw === 'string' ? raw : parsed.success ? parsed.output.csv : undefined;
  if (text === undefined)
    throw new BadRequestError('Send the grid as text/csv, or as JSON {"csv": "<text>"}');
  const lines = parseBudgetCsv(text);
  const candidate = v.safeParse(BudgetBody, {
    name: current.name,
    description: current.description,
    currency: current.currency,
    metricId: current.metricId,
    scopeId: current.scopeId,
    whereClause: current.whereClause,
    groupBy: current.groupBy,
    startMonth: current.startMonth,
    lines,
  });
  if (!candidate.success) {
    const issues = toFieldIssues(candidate.issues).map((i) => `${asRow(i.path)}: ${i.message}`);
    throw new BadRequestError(`Invalid CSV: ${issues.slice(0, 20).join('; ')}`);
  }
  const issue = bodyIssue(candidate.output);
  if (issue) throw new BadRequestError(`Invalid CSV: ${asRow(issue.path)}: ${issue.message}`);
  return updateBudget(principal, budgetId, candidate.output, ifMatch);
}
