import { LoadRatesBody, LoadRatesResponse, RATE_FILE_MEDIA_TYPES } from '../domain/fx/admin';
import { route } from '../http/route';

/**
 * Platform administration of the euro reference rates (docs/currency.md): admins of a platform
 * organisation (`PLATFORM_ORG_IDS`) only; everyone else gets 403.
 */
export const loadFxRates = route({
  id: 'loadFxRates',
  method: 'POST',
  path: '/admin/fx-rates',
  entry: 'admin/load-fx-rates',
  auth: 'admin',
  tag: 'Admin',
  summary:
    "Load euro reference rates (the ECB's eurofxref CSV or gesmes XML, as text/csv or application/xml); " +
    'platform admins only. Answers the days, currencies and publication range loaded',
  body: LoadRatesBody,
  bodyContentTypes: ['application/json', ...RATE_FILE_MEDIA_TYPES],
  deferBodyValidation: true,
  response: LoadRatesResponse,
  timeoutSeconds: 29,
});

export const fxRoutes = [loadFxRates];
