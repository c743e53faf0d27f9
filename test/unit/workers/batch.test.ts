import { processPartialResponse } from '../../../shared/workers/batch';
import { sqsEventOf } from '../../support/sqs';

describe('processPartialResponse', () => {
  it('hands every record to the handler in order and reports none when all succeed', async () => {
    const seen: [string, number][] = [];
    const res = await processPartialResponse(sqsEventOf(['a', 'b', 'c']), async (record, { index }) => {
      seen.push([record.body, index]);
    });
    expect(seen).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
    expect(res).toEqual({ batchItemFailures: [] });
  });

  it('reports exactly the records whose handler threw or rejected, by messageId, and goes on', async () => {
    const done: string[] = [];
    const event = sqsEventOf([
      { messageId: 'id-ok-1', body: 'ok' },
      { messageId: 'id-throw', body: 'throw' },
      { messageId: 'id-reject', body: 'reject' },
      { messageId: 'id-ok-2', body: 'ok' },
    ]);
    const res = await processPartialResponse(
      event,
      (record) => {
        if (record.body === 'throw') throw new Error('sync failure');
        if (record.body === 'reject') return Promise.reject(new Error('async failure'));
        done.push(record.messageId);
        return Promise.resolve();
      },
      { failureMessage: 'test record failed' },
    );
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'id-throw' }, { itemIdentifier: 'id-reject' }]);
    expect(done).toEqual(['id-ok-1', 'id-ok-2']);
  });

  it('names every record when all fail, without throwing', async () => {
    const event = sqsEventOf(['x', 'y']);
    const res = await processPartialResponse(event, async () => {
      throw new Error('down');
    });
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(event.Records.map((r) => r.messageId));
  });

  it('answers an empty response for an empty batch', async () => {
    expect(await processPartialResponse({ Records: [] }, async () => undefined)).toEqual({
      batchItemFailures: [],
    });
  });
});
