import * as v from 'valibot';
import { isAdmin, type Principal } from '../../auth/principal';
import { config } from '../../config';
import { BadRequestError, ForbiddenError } from '../../errors';
import { type LoadSummary, loadRates } from './service';

/**
 * `POST /admin/fx-rates`: the euro reference rates are global (every organisation converts with
 * them), so only admins of a platform organisation (`PLATFORM_ORG_IDS`) may load them; any other
 * caller gets 403 `{error:'FORBIDDEN'}`. The body is an ECB file as text (CSV or XML).
 */
export const RATE_FILE_MEDIA_TYPES = ['text/csv', 'application/xml', 'text/xml'] as const;

/** As JSON: `{file: "<the CSV or XML text>"}`; as text/csv or XML: the file itself. */
export const LoadRatesBody = v.strictObject({
  file: v.pipe(v.string(), v.description('An ECB euro reference-rate file: the CSV or XML text')),
});

export const LoadRatesResponse = v.object({
  source: v.string(),
  days: v.number(),
  from: v.string(),
  to: v.string(),
  currencies: v.array(v.string()),
});

export function isPlatformAdmin(principal: Principal): boolean {
  return isAdmin(principal) && config().platformOrgIds.includes(principal.orgId);
}

export async function loadRatesAs(principal: Principal, body: unknown): Promise<LoadSummary> {
  if (!isPlatformAdmin(principal)) throw new ForbiddenError();
  const file = v.safeParse(LoadRatesBody, body);
  if (typeof body !== 'string' && !file.success)
    throw new BadRequestError(
      `Send the rate file as ${RATE_FILE_MEDIA_TYPES.join(', ')}, or as JSON {"file": "<text>"} (the ECB CSV or XML)`,
    );
  return loadRates(typeof body === 'string' ? body : (file.output as { file: string }).file);
}
