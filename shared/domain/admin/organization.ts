import type { Principal } from '../../auth/principal';
import {
  DEFAULT_REPORTING_CURRENCY,
  getOrganization,
  type Organization,
  updateOrganization,
} from '../../db/organizations-repo';
import { ConflictError } from '../../errors';
import { deliver } from '../billing/outbox';
import { refreshOutboxEntry } from '../billing/refresh-request';
import type { PatchOrganizationInput } from './schemas';

/**
 * The caller's organisation and its settings (`GET /organization`, `PATCH /organization`): name,
 * IANA time zone, reporting currency. The organisation is the credential's, never a parameter.
 */
export interface OrganizationView {
  id: string;
  name: string;
  timezone: string;
  reportingCurrency: string;
  createdAt: string;
  updatedAt: string | null;
  registeredVia: string | null;
}

/** An organisation that was never registered (no admin signed in, no `npm run org -- create`). */
const NOT_REGISTERED = 'ORGANIZATION_NOT_REGISTERED';

function view(org: Organization): OrganizationView {
  return {
    id: org.id,
    name: org.name,
    timezone: org.timezone,
    reportingCurrency: org.reportingCurrency ?? DEFAULT_REPORTING_CURRENCY,
    createdAt: org.createdAt,
    updatedAt: org.updatedAt ?? null,
    registeredVia: org.registeredVia ?? null,
  };
}

export async function readOrganization(principal: Principal): Promise<OrganizationView> {
  const org = await getOrganization(principal.orgId);
  if (!org) throw new ConflictError(NOT_REGISTERED);
  return view(org);
}

/**
 * Changes the given settings, keeping the others. A change of the reporting currency asks for a
 * light warehouse refresh in the same transaction (outbox), so the dimension candidates and
 * values are recomputed in the new currency; it is then sent (a failed send stays in the outbox
 * for the sweep).
 */
export async function changeOrganization(
  principal: Principal,
  input: PatchOrganizationInput,
  now = new Date(),
): Promise<OrganizationView> {
  const changed = await changeOrganizationSettings(principal.orgId, input, now);
  if (!changed) throw new ConflictError(NOT_REGISTERED);
  return view(changed.organization);
}

/**
 * The change itself, for the route and `npm run org -- update` (already validated input):
 * undefined when the organisation is not registered; else the stored organisation and whether a
 * refresh was queued and sent (an unsent one stays in the outbox for the sweep).
 */
export async function changeOrganizationSettings(
  orgId: string,
  input: PatchOrganizationInput,
  now = new Date(),
): Promise<{ organization: Organization; refresh: 'none' | 'sent' | 'queued' } | undefined> {
  const current = await getOrganization(orgId);
  if (!current) return undefined;
  const currencyChanged =
    input.reportingCurrency !== undefined &&
    input.reportingCurrency !== (current.reportingCurrency ?? DEFAULT_REPORTING_CURRENCY);
  const refresh = currencyChanged ? refreshOutboxEntry(orgId, 'light', 'reporting-currency', now) : undefined;
  const organization = await updateOrganization(orgId, input, now.toISOString(), refresh);
  if (!organization) return undefined;
  if (!refresh) return { organization, refresh: 'none' };
  return { organization, refresh: (await deliver(refresh)) ? 'sent' : 'queued' };
}
