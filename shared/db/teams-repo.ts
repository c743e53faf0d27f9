import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { keys, stripKeys } from './keys';

export interface Team {
  id: string;
  organizationId: string;
  name: string;
  createdAt: string;
}

export async function getTeam(orgId: string, teamId: string): Promise<Team | undefined> {
  const res = await db().send(new GetCommand({ TableName: tableName(), Key: keys.team(orgId, teamId) }));
  return res.Item ? (stripKeys(res.Item) as unknown as Team) : undefined;
}
