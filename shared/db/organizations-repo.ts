import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { keys } from './keys';

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
