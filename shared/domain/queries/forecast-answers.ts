import { createHash } from 'node:crypto';
import { log } from '../../log';
import type { ExplorerRequest } from '../../model/query-model';
import type { WhereClause } from '../../model/where-clause';
import type { SeriesOut } from './model';
import type { PeriodDefaults } from './period';

/**
 * Where a request's forecasts are kept for other processes (a DynamoDB item in AWS and locally:
 * `adapters/forecast-answers.ts`): keyed by a hash of the request and the data's identity (the
 * organisation's refresh and the ungrouped total's days), so another Lambda container asked the
 * same on the same data answers what this one computed, without the groups' history read or the
 * model. Best effort: a store that fails is logged and the forecast is computed.
 */
export interface ForecastAnswerStore {
  get(orgId: string, hash: string): Promise<unknown>;
  /** Keeps an answer, and the view it answered (to be asked again after a refresh). */
  put(orgId: string, hash: string, answer: unknown, view?: KeptView): Promise<void>;
  /** The views whose forecasts were kept lately, most recent first, each once (at most `limit`). */
  recentViews?(orgId: string, limit: number): Promise<KeptView[]>;
}

/**
 * What an explorer request runs with besides the organisation, the time and its stores (the part
 * of `ExplorerContext` that changes its figures): kept with a view to run it again.
 */
export interface ViewContext {
  /** A where clause ANDed into every cost query whose `extendDashboardConditions` is true. */
  conditions?: WhereClause | null;
  /** The dashboard's period, where the request's period has neither a preset nor dates. */
  defaults?: PeriodDefaults;
  /** The organisation's IANA timezone (UTC when unset). */
  timeZone?: string;
  /**
   * Scopes the request runs in besides its own `scopeId` (a dashboard's): their filters restrict
   * every cost and usage query (see `scopesWhere`).
   */
  scopeIds?: readonly (string | null | undefined)[];
  /**
   * The currency cost figures are asked in (the request's, the dashboard's, the alert's or the
   * report's); a cost query's own `currency` wins. Unset: each row's billing currency, split by
   * currency when the organisation has several (docs/currency.md).
   */
  currency?: string | null;
}

/** What an explorer request ran with, besides the organisation and the time: enough to run it again. */
export interface KeptView {
  request: ExplorerRequest;
  ctx: ViewContext;
}

/** The view of a run, as kept beside its forecasts. */
export function viewOf(request: ExplorerRequest, ctx: ViewContext): KeptView {
  const { conditions, defaults, timeZone, scopeIds, currency } = ctx;
  return { request, ctx: { conditions, defaults, timeZone, scopeIds, currency } };
}

export type Answer = Pick<SeriesOut, 'forecast' | 'forecastAccuracy'>[];

/** The store's key of a request's forecasts on a history: SHA-256 of both identities. */
export function answerHash(historyKey: string, asked: string): string {
  return createHash('sha256').update(historyKey).update('\u0000').update(asked).digest('hex');
}

/** A kept answer for `series` series, or undefined (none, not of that shape, or the store failed). */
export async function storedAnswer(
  store: ForecastAnswerStore,
  orgId: string,
  hash: string,
  series: number,
): Promise<Answer | undefined> {
  try {
    const found = await store.get(orgId, hash);
    return Array.isArray(found) && found.length === series ? (found as Answer) : undefined;
  } catch (error) {
    log.warn('forecast answer not read from the store: computed', { orgId, error });
    return undefined;
  }
}

export async function keepAnswer(
  store: ForecastAnswerStore,
  orgId: string,
  hash: string,
  answer: Answer,
  view: KeptView,
) {
  try {
    await store.put(orgId, hash, answer, view);
  } catch (error) {
    log.warn('forecast answer not kept in the store', { orgId, error });
  }
}
