import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from './client';
import { queryPartition } from './items';
import { keys } from './keys';

/**
 * The claims of an expiring-commitments alert (docs/commitments.md, "Expiring-commitment alerts"):
 * one item per commitment and window, in the alert's partition, written once.
 */

/** The claims an alert holds, as `window#commitmentId`. */
export async function listCommitmentExpiryClaims(orgId: string, alertId: string): Promise<Set<string>> {
  const { pk } = keys.commitmentExpiryClaim(orgId, alertId, 0, '');
  const sks = await queryPartition(pk, (item) => String(item.sk), {
    skPrefix: keys.commitmentExpiryClaimPrefix,
    attributes: ['sk'],
  });
  return new Set(sks.map((sk) => sk.slice(keys.commitmentExpiryClaimPrefix.length)));
}

/** Claims one commitment in one window: true when this call wrote it, false when it was claimed. */
export async function claimCommitmentExpiry(
  orgId: string,
  alertId: string,
  claim: { window: number; commitmentId: string; notificationId: string },
  now: Date,
): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.commitmentExpiryClaim(orgId, alertId, claim.window, claim.commitmentId),
          entity: 'commitmentExpiryClaim',
          schemaVersion: 1,
          notificationId: claim.notificationId,
          createdAt: now.toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
