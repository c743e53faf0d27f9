import { loadEnrichmentTargets } from '../../../shared/domain/billing/enrichment-source';
import { publishDimensions } from '../../../shared/domain/dimensions/publish';
import { httpRoute } from '../../../shared/http/handler';
import { publishDimensions as def } from '../../../shared/routes/dimensions';

export const handler = httpRoute(def, async ({ principal, body }) =>
  publishDimensions(principal, body, { loadEnrichments: loadEnrichmentTargets, now: () => new Date() }),
);
