import {
  getRefreshStatus,
  isRefreshDone,
  listPublishedLabels,
  listVirtualDimensions,
  markRefreshDone,
  updateRefreshStatus,
  writeCache,
} from '../../db/dimensions-repo';
import { getOrganizationReportingCurrency } from '../../db/organizations-repo';
import { log } from '../../log';
import type { ConversionOut } from '../../model/conversion';
import type { VirtualDimension } from '../../model/dimensions';
import type { EnrichmentFeature, VdimFeature } from '../../model/view-features';
import type { WarehousePort } from '../../warehouse/port';
import { MissingRateError } from '../../warehouse/sql/conversion';
import type { CurrencyConversion } from '../../warehouse/warehouse-query';
import { buildCandidates, CANDIDATE_TOP_VALUES, WINDOW_MONTHS } from '../dimensions/candidates';
import { buildDimensionList, DIMENSION_TOP_VALUES, dimensionNames } from '../dimensions/dimension-list';
import { planConversion } from '../queries/conversion';
import type { RefreshRequest } from './refresh-request';

/**
 * The warehouse refresh of one organisation:
 * - `full` rebuilds the enriched table (published labels, then enrichments by priority) and
 *   everything `light` does;
 * - `light` replaces the virtual-dimension view and recomputes the dimension and candidate caches.
 * Both record the status (`running`, then `succeeded` or `failed`) and time.
 *
 * Idempotent under redelivery: a request already done is skipped, and so is one a later
 * successful refresh already covers (it started after the request was made, in a mode at least
 * as thorough). Rebuilding is itself repeatable: the same inputs give the same caches.
 */
export interface RefreshDeps {
  warehouse: WarehousePort;
  loadEnrichments(orgId: string): Promise<EnrichmentFeature[]>;
  now(): Date;
}

export type RefreshOutcome = 'refreshed' | 'duplicate' | 'superseded';

/** The live definitions of the virtual dimensions (pending drafts are not live until published). */
export function liveVdims(vdims: readonly VirtualDimension[]): VdimFeature[] {
  return vdims
    .filter((v) => v.published)
    .map((v) => ({
      id: v.id,
      name: v.published!.name,
      rules: v.published!.rules,
      defaultValue: v.published!.defaultValue,
    }));
}

/**
 * The currency of the window's money figures and how to get there: the organisation's reporting
 * currency; billing currencies of the window's rows other than it are converted at each charge
 * day's rate (the engine's factors). A charge can lie a month either side of its billing month, so
 * the factors cover the window widened by a month each way.
 */
async function windowCurrency(
  warehouse: WarehousePort,
  orgId: string,
  months: readonly string[],
): Promise<{ currency: string; conversion?: CurrencyConversion; out?: ConversionOut }> {
  const currency = await getOrganizationReportingCurrency(orgId);
  const first = months[0];
  const last = months.at(-1);
  if (!first || !last) return { currency };
  const info = await warehouse.billingInfo(orgId, first);
  const sources = info.currencies.filter((c) => c !== currency);
  if (!sources.length) return { currency };
  const { conversion, out } = await planConversion(
    sources,
    currency,
    monthStart(first, -1),
    monthStart(last, 2),
    info.lastChargeDay,
  );
  return { currency, conversion, out };
}

/** The first day (`YYYY-MM-DD`) of the month `shift` months after `month` (`YYYY-MM`). */
function monthStart(month: string, shift: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + shift, 1)).toISOString().slice(0, 10);
}

export async function runRefresh(req: RefreshRequest, deps: RefreshDeps): Promise<RefreshOutcome> {
  const { orgId } = req;
  if (await isRefreshDone(orgId, req.requestId)) return 'duplicate';
  const status = await getRefreshStatus(orgId);
  if (
    status?.lastSucceededStartedAt &&
    status.lastSucceededStartedAt >= req.requestedAt &&
    (status.lastSucceededMode === 'full' || req.mode === 'light')
  ) {
    await markRefreshDone(orgId, req.requestId, 'superseded', deps.now());
    return 'superseded';
  }
  const startedAt = deps.now().toISOString();
  await updateRefreshStatus(orgId, {
    state: 'running',
    requestId: req.requestId,
    mode: req.mode,
    reason: req.reason,
    requestedAt: req.requestedAt,
    startedAt,
    finishedAt: undefined,
  });
  try {
    const [labels, vdimRecords, enrichments] = await Promise.all([
      listPublishedLabels(orgId),
      listVirtualDimensions(orgId),
      deps.loadEnrichments(orgId),
    ]);
    const vdims = liveVdims(vdimRecords);
    const catalog = await deps.warehouse.refreshFeatures(orgId, { labels, vdims, enrichments }, req.mode);
    const months = (await deps.warehouse.billingMonths(orgId)).slice(0, WINDOW_MONTHS).reverse();
    const money = await windowCurrency(deps.warehouse, orgId, months);
    const aggregates = await deps.warehouse.candidateAggregates(
      orgId,
      months,
      CANDIDATE_TOP_VALUES,
      money.conversion,
    );
    const values = await deps.warehouse.dimensionValues(
      orgId,
      months,
      dimensionNames(catalog),
      DIMENSION_TOP_VALUES,
      money.conversion,
    );
    const dimensions = buildDimensionList({
      catalog,
      values,
      labels,
      vdims: vdimRecords.filter((v) => v.published).map((v) => v.published!),
      enrichments,
    });
    const candidates = buildCandidates(aggregates);
    const finishedAt = deps.now().toISOString();
    await writeCache(orgId, 'dimensions', req.requestId, finishedAt, dimensions);
    await writeCache(orgId, 'candidates', req.requestId, finishedAt, candidates);
    await updateRefreshStatus(orgId, {
      state: 'succeeded',
      finishedAt,
      mode: catalog.mode,
      lastSucceededAt: finishedAt,
      lastSucceededStartedAt: startedAt,
      lastSucceededMode: catalog.mode,
      lastError: undefined,
      warnings: [...catalog.warnings, ...values.skipped.map((d) => `dimension ${d} has no values: unknown`)],
      months,
      currency: money.currency,
      conversion: money.out,
      currencyError: undefined,
    });
    await markRefreshDone(orgId, req.requestId, 'refreshed', deps.now());
    return 'refreshed';
  } catch (error) {
    log.error('warehouse refresh failed', { orgId, requestId: req.requestId, error });
    await updateRefreshStatus(orgId, {
      state: 'failed',
      finishedAt: deps.now().toISOString(),
      lastError: (error as Error)?.message?.slice(0, 500) ?? 'refresh failed',
      ...(error instanceof MissingRateError ? { currencyError: error.message } : {}),
    }).catch(() => undefined);
    throw error;
  }
}
