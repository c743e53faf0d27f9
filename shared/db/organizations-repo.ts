import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { keys } from './keys';
import { insertIfAbsent } from './writes';

/** Organisations: one META item each, written by the identity seed (or, later, sign-up). */
export interface Organization {
  id: string;
  name: string;
  timezone: string;
  createdAt: string;
}

/** Writes an organisation unless it exists (the local seed); answers whether it wrote. */
export async function ensureOrganization(org: Organization): Promise<boolean> {
  return insertIfAbsent({ ...keys.organization(org.id), entity: 'organization', schemaVersion: 1, ...org });
}

/** Whether the organisation exists (its META item was written). */
export async function organizationExists(orgId: string): Promise<boolean> {
  const res = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.organization(orgId), ProjectionExpression: 'pk' }),
  );
  return Boolean(res.Item);
}

/** The organisation's timezone (IANA name) from its record, or undefined when it has none. */
export async function getOrganizationTimezone(orgId: string): Promise<string | undefined> {
  const res = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      ProjectionExpression: '#tz',
      ExpressionAttributeNames: { '#tz': 'timezone' },
    }),
  );
  const tz = res.Item?.timezone;
  return typeof tz === 'string' && tz ? tz : undefined;
}
