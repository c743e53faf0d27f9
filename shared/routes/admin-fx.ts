import { LoadRatesBody, LoadRatesResponse, RATE_FILE_MEDIA_TYPES } from '../domain/fx/admin';
import { type Area, declare } from './declare';

/**
 * Platform administration of the euro reference rates (docs/currency.md): admins of a platform
 * organisation (`PLATFORM_ORG_IDS`) only; everyone else gets 403.
 */
const AREA: Area = { tag: 'Admin', folder: 'admin' };

export const loadFxRates = declare(AREA, 'POST /admin/fx-rates', 'loadFxRates', {
  auth: 'admin',
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
