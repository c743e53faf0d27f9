import { log, resetLogConfig, withInvocationLogContext, withLogContext } from '../../../shared/log';

/** Captures the JSON lines written to stdout and stderr while `fn` runs. */
async function captured(fn: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('log', () => {
  const saved = process.env.LOG_LEVEL;
  beforeEach(() => {
    process.env.LOG_LEVEL = 'info';
    resetLogConfig();
  });
  afterAll(() => {
    process.env.LOG_LEVEL = saved;
    resetLogConfig();
  });

  it('reads LOG_LEVEL once, at the first line', async () => {
    const lines = await captured(async () => {
      log.debug('hidden');
      log.info('shown');
      process.env.LOG_LEVEL = 'silent';
      log.warn('still shown: the level was read at the first line');
      resetLogConfig();
      log.error('hidden after a reset');
    });
    expect(lines.map((l) => l.message)).toEqual([
      'shown',
      'still shown: the level was read at the first line',
    ]);
  });

  it('keeps each of two interleaved invocations on its own ids', async () => {
    const handler = withInvocationLogContext(async (event: { n: number }, _ctx: unknown) => {
      log.info('start', { n: event.n });
      await tick();
      log.error('end', { n: event.n, error: new Error('boom') });
      return event.n;
    });
    const lines = await captured(async () => {
      const results = await Promise.all([
        handler({ n: 1, requestContext: { requestId: 'api-1' } } as { n: number }, { awsRequestId: 'aws-1' }),
        handler({ n: 2 }, { awsRequestId: 'aws-2' }),
      ]);
      expect(results).toEqual([1, 2]);
      log.info('outside any invocation');
    });
    const byN = (n: number) => lines.filter((l) => l.n === n);
    expect(byN(1)).toHaveLength(2);
    for (const line of byN(1)) expect(line).toMatchObject({ awsRequestId: 'aws-1', apiRequestId: 'api-1' });
    expect(byN(2)).toHaveLength(2);
    for (const line of byN(2)) {
      expect(line.awsRequestId).toBe('aws-2');
      expect(line).not.toHaveProperty('apiRequestId');
    }
    expect(byN(2)[1]?.error).toMatchObject({ name: 'Error', message: 'boom' });
    const outside = lines.find((l) => l.message === 'outside any invocation');
    expect(outside).not.toHaveProperty('awsRequestId');
  });

  it('nests contexts, and the fields of a line win over the context', async () => {
    const lines = await captured(async () => {
      await withLogContext({ awsRequestId: 'aws-9' }, async () => {
        await withLogContext({ messageId: 'm-1' }, async () => {
          await tick();
          log.info('inner', { requestId: 'rfr_1' });
          log.info('own field', { messageId: 'm-override' });
        });
      });
    });
    expect(lines[0]).toMatchObject({ awsRequestId: 'aws-9', messageId: 'm-1', requestId: 'rfr_1' });
    expect(lines[1]).toMatchObject({ awsRequestId: 'aws-9', messageId: 'm-override' });
  });
});
