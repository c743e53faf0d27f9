import { BlockList, isIP } from 'node:net';

/**
 * Where outbound webhook calls (Teams Workflows) may go. Pure functions, used twice: when an alert
 * is saved (the URL's shape and host) and at connect time (every address the host resolves to, see
 * `./guarded-fetch.ts`), so a name that resolves to an internal address is refused even when it was
 * allowed when saved (DNS rebinding).
 */

// Two lists: node's BlockList also matches IPv4 addresses against IPv6 rules (as IPv4-mapped), so
// one list holding `::ffff:0:0/96` would refuse every IPv4 address.
const blocked4 = new BlockList();
const blocked6 = new BlockList();
// IPv4: "this network", private, carrier-grade NAT, loopback, link-local (the instance metadata
// service 169.254.169.254 included), IETF protocol assignments, documentation, benchmarking,
// multicast and reserved (broadcast included).
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked4.addSubnet(net, prefix, 'ipv4');
}
// IPv6: unspecified, loopback, IPv4-mapped (a way around every IPv4 rule), NAT64, discard-only,
// Teredo, documentation, 6to4 (embeds an IPv4 address), unique-local (fd00:ec2::254, the EC2
// metadata service over IPv6, is one), link-local and multicast.
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked6.addSubnet(net, prefix, 'ipv6');
}

/** True for an address no webhook may reach: loopback, private, link-local, metadata, mapped… */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  if (family === 6 && /^::ffff:/i.test(bare)) return true; // mapped, in any notation
  return family === 4 ? blocked4.check(bare, 'ipv4') : blocked6.check(bare, 'ipv6');
}

/**
 * A host matches an allow-list entry `.example.com` when it is a subdomain of example.com, and an
 * entry `example.com` when it is exactly that name. Case and a trailing dot do not matter.
 */
export function isAllowedHost(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) => {
    const e = entry.toLowerCase().trim().replace(/\.$/, '');
    if (!e) return false;
    return e.startsWith('.') ? h.endsWith(e) && h.length > e.length : h === e;
  });
}

export interface WebhookPolicy {
  allowedHosts: readonly string[];
  /**
   * One exact origin (`http://127.0.0.1:4567`) exempt from every rule: the local capture server.
   * Set only by the local stack (`TEAMS_LOCAL_CAPTURE_ORIGIN`); the configuration refuses it in AWS.
   */
  localCaptureOrigin?: string | undefined;
  /** What the URL is for, in error messages (default: a Teams Workflows webhook). */
  service?: string;
}

/** The problem with a webhook URL, or null when it may be saved and called. */
export function webhookUrlProblem(raw: string, policy: WebhookPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be an https URL of a ${policy.service ?? 'Teams Workflows'} webhook`;
  }
  if (policy.localCaptureOrigin && url.origin === policy.localCaptureOrigin) return null;
  if (url.protocol !== 'https:') return 'must be an https URL (http is refused)';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.port && url.port !== '443') return 'must use the default https port';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    return isBlockedAddress(host)
      ? 'must not point to a loopback, private, link-local or metadata address'
      : 'must name a host, not an IP address';
  }
  if (host === 'localhost' || host.endsWith('.localhost'))
    return 'must not point to a loopback, private, link-local or metadata address';
  if (!isAllowedHost(host, policy.allowedHosts))
    return `host ${host} is not an allowed ${policy.service ?? 'Teams Workflows'} host (allowed: ${policy.allowedHosts.join(', ') || 'none'})`;
  return null;
}
