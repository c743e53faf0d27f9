import { createHash } from 'node:crypto';
import { remember } from '../../bounded-map';
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

/**
 * What the store holds for a request: its forecasts and the groups they are of. The store's key
 * does not name the groups where the data has a version (the same request on the same data ranks
 * the same groups), so it can be read beside the request's own statement; the groups read back
 * are compared with the answer's before the forecasts are used.
 */
export interface KeptAnswer {
  groups: SeriesOut['group'][];
  series: Answer;
}

/** Answers this process computed, by the store's key (at most `KEPT_HERE` of them). */
const keptHere = new Map<string, KeptAnswer>();
const KEPT_HERE = 64;

/** Empties the answers kept in this process. */
export function clearKeptHere(): void {
  keptHere.clear();
}

/** Keeps an answer in this process under the store's key. */
export function keepHere(hash: string, kept: KeptAnswer): void {
  remember(keptHere, hash, kept, KEPT_HERE);
}

/**
 * The answer kept under `hash`, in this process (one it computed) or else in the store, as objects
 * of the caller's own; undefined when there is none, it is not of the stored shape, or the store
 * failed.
 */
export async function keptAnswer(
  store: ForecastAnswerStore | undefined,
  orgId: string,
  hash: string,
): Promise<KeptAnswer | undefined> {
  const here = keptHere.get(hash);
  if (here) return structuredClone(here);
  if (!store) return undefined;
  try {
    const found = (await store.get(orgId, hash)) as Partial<KeptAnswer> | undefined;
    if (
      !Array.isArray(found?.groups) ||
      !Array.isArray(found.series) ||
      found.groups.length !== found.series.length
    )
      return undefined;
    // Not kept here as well: that would cost a copy of every answer read (the caller's objects
    // must not be the cache's), and the next read is again beside the request's own statement.
    return found as KeptAnswer;
  } catch (error) {
    log.warn('forecast answer not read from the store: computed', { orgId, error });
    return undefined;
  }
}

/** The kept series when they are of these groups (same values, same order). */
export function answerFor(
  kept: KeptAnswer | undefined,
  groups: readonly SeriesOut['group'][],
): Answer | undefined {
  return kept && JSON.stringify(kept.groups) === JSON.stringify(groups) ? kept.series : undefined;
}

export async function keepAnswer(
  store: ForecastAnswerStore,
  orgId: string,
  hash: string,
  answer: KeptAnswer,
  view: KeptView,
) {
  try {
    await store.put(orgId, hash, answer, view);
  } catch (error) {
    log.warn('forecast answer not kept in the store', { orgId, error });
  }
}
