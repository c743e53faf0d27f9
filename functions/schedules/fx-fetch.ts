import { config } from '../../shared/config';
import { fetchAndLoadRates } from '../../shared/domain/fx/fetch';
import type { LoadSummary } from '../../shared/domain/fx/service';
import { withInvocationLogContext } from '../../shared/log';

/**
 * Business days at 17:00 UTC: loads the euro reference rates from `FX_RATES_URL` (default the ECB's
 * daily XML; https only, public addresses only, no redirects). A failure throws, so the
 * asynchronous invocation is retried and then kept in the schedule's DLQ.
 */
async function run(): Promise<LoadSummary> {
  return fetchAndLoadRates(config().fxRatesUrl);
}

/** Every line logged during an invocation carries its Lambda request id. */
export const handler = withInvocationLogContext(run);
