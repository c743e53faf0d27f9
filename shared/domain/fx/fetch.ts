import { isIP } from 'node:net';
import { BadRequestError } from '../../errors';
import { log } from '../../log';
import { isBlockedAddress } from '../../net/address-policy';
import { guardedGet } from '../../net/guarded-fetch';
import { type LoadSummary, loadRates, MAX_RATE_FILE_BYTES } from './service';

/** Kept apart from ./service.ts so the query routes, which read rates, bundle no HTTP client. */
/**
 * Fetches a rate file from `url` (https only, public addresses only, no redirects, 20 s, at most
 * `MAX_RATE_FILE_BYTES`) and loads it.
 */
export async function fetchAndLoadRates(url: string): Promise<LoadSummary> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadRequestError(`FX rates URL ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'https:') throw new BadRequestError('The FX rates URL must be https');
  // An IP literal never reaches the guarded agent's DNS lookup: check it here.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && isBlockedAddress(host))
    throw new BadRequestError(`The FX rates URL may not point at ${host} (a private or local address)`);
  const res = await guardedGet(parsed.href, {
    accept: 'application/xml, text/xml, text/csv;q=0.9, */*;q=0.1',
    maxBytes: MAX_RATE_FILE_BYTES,
  });
  if (res.status !== 200) throw new Error(`FX rates URL answered ${res.status}`);
  const summary = await loadRates(res.text);
  log.info('fx: rates loaded', {
    url: parsed.origin + parsed.pathname,
    ...summary,
    currencies: summary.currencies.length,
  });
  return summary;
}
