import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, decodeCursor, encodeCursor, tableName } from './client';
import { defineEntity, firstConditionFailed, setAll, transact } from './entity';
import type { Item } from './items';
import { keys } from './keys';
import { type OutboxEntry, outboxPut } from './outbox-repo';
import { scanPage } from './page';
import { conditionHeld } from './writes';

/**
 * Organisations: one META item each (`ORG#<id>` / `META`). One is registered by the first verified
 * session JWT of an org admin (a route's credential step, `registerOrganization`), by `npm run org -- create`,
 * or by the local identity seed. An upload or an API key needs a registered organisation.
 */
export interface Organization {
  id: string;
  name: string;
  timezone: string;
  createdAt: string;
  /** Who registered it: `jwt` (first admin sign-in), `cli` (`npm run org`) or `seed`. */
  registeredVia?: OrganizationSource;
  /** The admin (`user_…`) whose first sign-in registered it, or the operator's note. */
  registeredBy?: string;
  /**
   * The currency of figures that have no requested currency (dimension candidates and values,
   * digests without one): one of the dashboard currencies. Absent means `DEFAULT_REPORTING_CURRENCY`.
   */
  reportingCurrency?: string;
  /** When its settings were last changed (`PATCH /organization`, `npm run org -- update`). */
  updatedAt?: string;
}

/** The reporting currency of an organisation that has not chosen one. */
export const DEFAULT_REPORTING_CURRENCY = 'USD';

export type OrganizationSource = 'jwt' | 'cli' | 'seed';

/** Registered through `SET` (see `registerOrganization`) or, by the local seed, put whole. */
const organizations = defineEntity<Organization>({
  name: 'organization',
  schemaVersion: 1,
  key: (org) => keys.organization(org.id),
  read: organizationOf,
});

/**
 * The only attributes `registerOrganization` writes besides the key: a read-only route's IAM grant
 * names exactly these (infra/stack.ts), so it can register an organisation and nothing else.
 */
export const ORGANIZATION_ATTRIBUTES = [
  'entity',
  'schemaVersion',
  'id',
  'name',
  'timezone',
  'createdAt',
  'registeredVia',
  'registeredBy',
] as const;

/** Writes an organisation unless it exists (the local seed); answers whether it wrote. */
export async function ensureOrganization(org: Organization): Promise<boolean> {
  return organizations.insertIfAbsent(org);
}

/**
 * Registers an organisation unless it exists, with one conditional write (`attribute_not_exists`):
 * concurrent first requests all succeed, exactly one writes, and an existing record (its name,
 * timezone, creation date) is never changed. Answers whether this call created it. An UpdateItem
 * rather than a PutItem so that a fine-grained IAM grant can name the attributes it may write.
 */
export async function registerOrganization(org: Organization): Promise<boolean> {
  const item: Record<string, unknown> = { ...organizations.envelope, ...org };
  const written = ORGANIZATION_ATTRIBUTES.filter((a) => item[a] !== undefined);
  return conditionHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(org.id),
        ConditionExpression: 'attribute_not_exists(pk)',
        ...setAll(Object.fromEntries(written.map((a) => [a, item[a]]))),
      }),
    ),
  );
}

/** Whether the organisation exists (its META item was written). */
export async function organizationExists(orgId: string): Promise<boolean> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.organization(orgId), ProjectionExpression: 'pk' }),
  );
  return Boolean(res.Item);
}

function organizationOf(item: Item): Organization {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const via = str(item.registeredVia);
  const by = str(item.registeredBy);
  return {
    id: String(item.id ?? String(item.pk).replace(/^ORG#/, '')),
    name: str(item.name) ?? '',
    timezone: str(item.timezone) ?? 'UTC',
    createdAt: str(item.createdAt) ?? '',
    ...(via === 'jwt' || via === 'cli' || via === 'seed' ? { registeredVia: via } : {}),
    ...(by ? { registeredBy: by } : {}),
    ...(str(item.reportingCurrency) ? { reportingCurrency: str(item.reportingCurrency) } : {}),
    ...(str(item.updatedAt) ? { updatedAt: str(item.updatedAt) } : {}),
  };
}

/** The organisation's record, read strongly consistent (an operator reads right after a create). */
export async function getOrganization(orgId: string): Promise<Organization | undefined> {
  return organizations.get(keys.organization(orgId));
}

/**
 * One page of registered organisations, for the operator command (`npm run org -- list`). A Scan
 * filtered to META items: organisations have no index of their own, and listing them is an
 * operator's occasional read, never a request path.
 */
export async function listOrganizations(
  cursor?: string,
): Promise<{ items: Organization[]; cursor: string | null }> {
  const filter = {
    expression: 'sk = :meta AND entity = :org',
    values: { ':meta': 'META', ':org': organizations.name },
  };
  const page = await scanPage(filter, decodeCursor(cursor), organizationOf);
  return { items: page.items, cursor: encodeCursor(page.next) };
}

/** One attribute of the organisation's record (eventually consistent), if it is a non-empty string. */
async function settingOf(
  orgId: string,
  attribute: 'timezone' | 'reportingCurrency',
): Promise<string | undefined> {
  const res = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      ProjectionExpression: '#a',
      ExpressionAttributeNames: { '#a': attribute },
    }),
  );
  const value = res.Item?.[attribute];
  return typeof value === 'string' && value ? value : undefined;
}

/** The organisation's timezone (IANA name) from its record, or undefined when it has none. */
export function getOrganizationTimezone(orgId: string): Promise<string | undefined> {
  return settingOf(orgId, 'timezone');
}

/**
 * The organisation's reporting currency (the currency of figures that have no requested currency),
 * `DEFAULT_REPORTING_CURRENCY` when it has not chosen one or is not registered.
 */
export async function getOrganizationReportingCurrency(orgId: string): Promise<string> {
  return (await settingOf(orgId, 'reportingCurrency')) ?? DEFAULT_REPORTING_CURRENCY;
}

/** The settings an admin may change on a registered organisation. */
export type OrganizationSettings = Partial<Pick<Organization, 'name' | 'timezone' | 'reportingCurrency'>>;

/**
 * Changes the given settings of a registered organisation (the others are kept), with the outbox
 * entry `also` (a warehouse refresh) in the same transaction when given. Conditional on the
 * record's existence: answers the organisation as stored after the write, or undefined when it is
 * not registered (nothing written).
 */
export async function updateOrganization(
  orgId: string,
  settings: OrganizationSettings,
  updatedAt: string,
  also?: OutboxEntry,
): Promise<Organization | undefined> {
  const fields = Object.entries({ ...settings, updatedAt }).filter(([, v]) => v !== undefined);
  const update = {
    TableName: tableName(),
    Key: keys.organization(orgId),
    ConditionExpression: 'attribute_exists(pk)',
    ...setAll(Object.fromEntries(fields)),
  };
  const written = also
    ? await transact(
        [{ Update: update }, outboxPut(also)],
        firstConditionFailed(() => false),
      )
    : await conditionHeld(db().send(new UpdateCommand(update)));
  return written ? getOrganization(orgId) : undefined;
}
