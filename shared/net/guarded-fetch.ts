import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isLoopbackHttpUrl } from '../config';
import { isBlockedAddress, type WebhookPolicy, webhookUrlProblem } from './address-policy';

/**
 * POSTs for webhooks users configure (Teams Workflows) and upload URLs a provider hands out: the URL
 * must pass the policy (https, an allowed host), redirects are never followed, and every address the
 * host resolves to is checked at connect time by the request's `lookup`, so a name that resolves to
 * loopback, private, link-local, metadata or IPv4-mapped addresses is refused even if it resolved
 * elsewhere when the alert was saved. Node's own `http`/`https` request (no connection reuse, so
 * every connection goes through the lookup): no HTTP client package is bundled.
 */
export class WebhookRefusedError extends Error {
  override name = 'WebhookRefusedError';
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for `net.connect` that answers only public addresses and fails if any is not. */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string } | undefined,
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { all: true, family: Number(options?.family ?? 0) || 0 }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const refused = list.find((a) => isBlockedAddress(a.address));
    if (list.length === 0 || refused) {
      const e = new WebhookRefusedError(
        `refused to connect to ${hostname}: it resolves to ${refused?.address ?? 'nothing'}, a loopback, private, link-local or metadata address`,
      ) as NodeJS.ErrnoException;
      e.code = 'EWEBHOOKREFUSED';
      return callback(e, []);
    }
    if (options?.all) return callback(null, list);
    const first = list[0]!;
    return callback(null, first.address, first.family);
  });
}

/** Bytes of a response body kept (webhooks answer a few bytes; the rest is read and dropped). */
const MAX_RESPONSE_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 20_000;

/**
 * One request with Node's http/https; `guarded` connections resolve through `guardedLookup`. The
 * body is kept up to `maxBytes` (the rest is read and dropped) and `truncated` says so.
 */
function send(
  method: 'GET' | 'POST',
  url: URL,
  opts: {
    payload?: { contentType: string; body: string | Uint8Array };
    accept?: string;
    guarded: boolean;
    maxBytes?: number;
    headers?: Record<string, string>;
    timeoutMs?: number;
  },
): Promise<WebhookResponse & { truncated: boolean }> {
  const raw = opts.payload?.body;
  const body =
    raw === undefined
      ? undefined
      : typeof raw === 'string'
        ? Buffer.from(raw, 'utf8')
        : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const maxBytes = opts.maxBytes ?? MAX_RESPONSE_BYTES;
  const headers: Record<string, string> = { ...opts.headers };
  const timeoutMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
  if (opts.payload && body) {
    headers['content-type'] = opts.payload.contentType;
    headers['content-length'] = String(body.length);
  }
  if (opts.accept) headers.accept = opts.accept;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers,
        agent: false,
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
        ...(opts.guarded ? { lookup: guardedLookup as never } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        res.on('data', (c: Buffer) => {
          if (kept >= maxBytes) {
            truncated = true;
            return;
          }
          chunks.push(c);
          kept += c.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'),
            truncated: truncated || kept > maxBytes,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url.host} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** An answer that redirects, or is over `maxBytes`, is refused; otherwise its status and text. */
function refuseRedirectOrOversize(
  parsed: URL,
  res: WebhookResponse & { truncated: boolean },
  maxBytes: number,
): WebhookResponse {
  if (res.status >= 300 && res.status < 400)
    throw new WebhookRefusedError(
      `${parsed.host} answered a redirect (${res.status}); redirects are not followed`,
    );
  if (res.truncated) throw new WebhookRefusedError(`the answer of ${parsed.host} is over ${maxBytes} bytes`);
  return { status: res.status, text: res.text };
}

/**
 * GETs a public https URL an operator configured (the FX rates URL): public addresses only, checked
 * at connect time; redirects are not followed; a body over `maxBytes` is refused.
 */
export async function guardedGet(
  url: string,
  opts: { accept?: string; maxBytes: number },
): Promise<WebhookResponse> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') throw new WebhookRefusedError('only https URLs are fetched');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && isBlockedAddress(host)) throw new WebhookRefusedError(`refused address ${host}`);
  const res = await send('GET', parsed, {
    guarded: true,
    maxBytes: opts.maxBytes,
    ...(opts.accept ? { accept: opts.accept } : {}),
  });
  return refuseRedirectOrOversize(parsed, res, opts.maxBytes);
}

/**
 * POSTs a form to an endpoint an operator configured (the identity provider's token introspection,
 * shared/auth/idp-api-keys.ts), with the headers given (its client authentication): https only,
 * public addresses only (checked at connect time, as for webhooks), no redirects followed, an answer
 * over `maxBytes` refused, and `timeoutMs` for the whole call. `loopback` (the local stand-in
 * provider; the configuration refuses it in AWS) lets an http URL on a loopback address through
 * without the address filter, as the local capture origin is for webhooks.
 */
export async function guardedPostForm(
  url: string,
  form: Record<string, string>,
  opts: { headers?: Record<string, string>; timeoutMs: number; maxBytes: number; loopback?: boolean },
): Promise<WebhookResponse> {
  const parsed = new URL(url);
  const local = opts.loopback === true && isLoopbackHttpUrl(url);
  if (!local && parsed.protocol !== 'https:') throw new WebhookRefusedError('only https URLs are called');
  if (parsed.username || parsed.password)
    throw new WebhookRefusedError('a URL with credentials is not called');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!local && isIP(host) !== 0 && isBlockedAddress(host))
    throw new WebhookRefusedError(`refused address ${host}`);
  const res = await send('POST', parsed, {
    payload: { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(form).toString() },
    accept: 'application/json',
    guarded: !local,
    maxBytes: opts.maxBytes,
    timeoutMs: opts.timeoutMs,
    ...(opts.headers ? { headers: opts.headers } : {}),
  });
  return refuseRedirectOrOversize(parsed, res, opts.maxBytes);
}

export interface WebhookResponse {
  status: number;
  text: string;
}

/**
 * POSTs JSON to a configured webhook. The exact local capture origin (policy) is called without the
 * address filter — it is loopback by nature — and only ever set by the local stack.
 */
export function postWebhook(url: string, body: unknown, policy: WebhookPolicy): Promise<WebhookResponse> {
  return guardedPost(url, { contentType: 'application/json', body: JSON.stringify(body) }, policy);
}

/**
 * POSTs a body to a URL that passes the policy: https on an allowed host, resolving only to public
 * addresses (checked at connect time), no redirects followed. The policy's local capture origin is
 * exempt. Used for webhooks and for the upload URLs a provider hands out (Slack's external upload).
 */
export async function guardedPost(
  url: string,
  payload: { contentType: string; body: string | Uint8Array },
  policy: WebhookPolicy,
): Promise<WebhookResponse> {
  const problem = webhookUrlProblem(url, policy);
  if (problem) throw new WebhookRefusedError(`webhook URL ${problem}`);
  const parsed = new URL(url);
  const local = Boolean(policy.localCaptureOrigin) && parsed.origin === policy.localCaptureOrigin;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  // An IP literal never reaches `lookup`; the policy refuses literals, this re-checks defensively.
  if (!local && isIP(host) !== 0 && isBlockedAddress(host))
    throw new WebhookRefusedError(`refused address ${host}`);
  const res = await send('POST', parsed, { payload, guarded: !local });
  if (res.status >= 300 && res.status < 400)
    throw new WebhookRefusedError(`webhook answered a redirect (${res.status}); redirects are not followed`);
  return res;
}
