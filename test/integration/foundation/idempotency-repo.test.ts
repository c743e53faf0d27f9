import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  getIdempotencyRecord,
  IDEMPOTENCY_RETENTION_SECONDS,
  releaseIdempotencyKey,
} from '../../../shared/db/idempotency-repo';

/** The claim rules of `Idempotency-Key` records on DynamoDB Local (shared/db/idempotency-repo.ts). */

const run = Math.random().toString(36).slice(2, 8);
let seq = 0;
const claimOf = (requestHash = 'h1') => ({
  orgId: `org_idem${run}`,
  principalId: 'usr_1',
  key: `k-${run}-${++seq}`,
  requestHash,
});
const response = { statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"r1"}' };

describe('idempotency records', () => {
  test('one claim wins; the loser sees it pending, then done with the stored answer', async () => {
    const claim = claimOf();
    const now = Date.now();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => claimIdempotencyKey(claim, now, 30_000)),
    );
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    const lost = await claimIdempotencyKey(claim, now, 30_000);
    expect(lost).toEqual({
      claimed: false,
      existing: { state: 'pending', requestHash: 'h1', leaseUntil: now + 30_000 },
    });
    await completeIdempotencyKey(claim, response);
    const again = await claimIdempotencyKey(claim, now + 60_000, 30_000);
    expect(again).toMatchObject({ claimed: false, existing: { state: 'done', response } });
  });

  test('a lapsed lease is taken over by the same request only', async () => {
    const claim = claimOf('same');
    const now = Date.now();
    expect((await claimIdempotencyKey(claim, now, 1_000)).claimed).toBe(true);
    const other = await claimIdempotencyKey({ ...claim, requestHash: 'other' }, now + 5_000, 1_000);
    expect(other).toMatchObject({ claimed: false, existing: { requestHash: 'same' } });
    expect((await claimIdempotencyKey(claim, now + 5_000, 1_000)).claimed).toBe(true);
  });

  test('a released claim can be claimed again; a done record is not released', async () => {
    const claim = claimOf();
    const now = Date.now();
    expect((await claimIdempotencyKey(claim, now, 30_000)).claimed).toBe(true);
    await releaseIdempotencyKey(claim);
    expect(await getIdempotencyRecord(claim, now)).toBeUndefined();
    expect((await claimIdempotencyKey(claim, now, 30_000)).claimed).toBe(true);
    await completeIdempotencyKey(claim, response);
    await releaseIdempotencyKey(claim);
    expect(await getIdempotencyRecord(claim, now)).toMatchObject({ state: 'done', response });
  });

  test('a record past its TTL counts as gone, even for another request', async () => {
    const claim = claimOf('first');
    const now = Date.now();
    expect((await claimIdempotencyKey(claim, now, 30_000)).claimed).toBe(true);
    await completeIdempotencyKey(claim, response);
    const later = now + (IDEMPOTENCY_RETENTION_SECONDS + 10) * 1000;
    expect(await getIdempotencyRecord(claim, later)).toBeUndefined();
    expect((await claimIdempotencyKey({ ...claim, requestHash: 'second' }, later, 30_000)).claimed).toBe(
      true,
    );
  });

  test('keys are per principal', async () => {
    const claim = claimOf();
    const now = Date.now();
    expect((await claimIdempotencyKey(claim, now, 30_000)).claimed).toBe(true);
    expect((await claimIdempotencyKey({ ...claim, principalId: 'usr_2' }, now, 30_000)).claimed).toBe(true);
  });
});
