import * as v from 'valibot';
import { alertFields } from '../../../shared/domain/alerts/rules';
import { CreateAlertBody } from '../../../shared/domain/alerts/schemas';
import { BadRequestError } from '../../../shared/errors';
import { parseOrThrow } from '../../../shared/validation';
import { conditionBody, costQuery, periodChangeBody, thresholdBody } from './fixtures';

const policy = { allowedHosts: ['.logic.azure.com', '.api.powerplatform.com'] };

/** What the create route answers for a body: the fields, or the 400 message. */
function check(
  body: Record<string, unknown>,
): { ok: true; fields: ReturnType<typeof alertFields> } | { error: string } {
  try {
    const input = parseOrThrow(CreateAlertBody, body, 'plain', 'body');
    return { ok: true, fields: alertFields(input, policy) };
  } catch (error) {
    if (error instanceof BadRequestError) return { error: error.message };
    throw error;
  }
}

const errorOf = (body: Record<string, unknown>) => {
  const r = check(body);
  if (!('error' in r)) throw new Error(`expected a 400 for ${JSON.stringify(body)}`);
  return r.error;
};

describe('alert variants', () => {
  test('condition-based: dedup stored, thresholds empty, condition query added to the explorer request', () => {
    const r = check(conditionBody());
    if (!('ok' in r)) throw new Error(r.error);
    expect(r.fields.variant).toBe('CONDITION');
    expect(r.fields).toMatchObject({
      dedupKind: 'CALENDAR',
      dedupCalendarUnit: 'WEEK',
      dedupWindowDays: null,
      thresholds: [],
      queryName: 'ec2',
      evaluationPeriod: 'DAILY',
    });
    const q = r.fields.conditionAdvancedExplorerQuery.queries;
    expect(q.map((x) => x.name)).toEqual(['ec2', 'alert_condition']);
    expect(q[1]).toMatchObject({ type: 'condition', expression: conditionBody().condition });
  });

  test('ROLLING dedup defaults to a 7-day window and keeps a given one', () => {
    const a = check(conditionBody({ dedup: { kind: 'ROLLING' } }));
    const b = check(conditionBody({ dedup: { kind: 'ROLLING' }, dedupWindowDays: 3 }));
    expect('ok' in a && a.fields.dedupWindowDays).toBe(7);
    expect('ok' in b && b.fields.dedupWindowDays).toBe(3);
  });

  test('legacy thresholds and period change are told apart by metricMode', () => {
    const a = check(thresholdBody());
    const b = check(periodChangeBody());
    expect('ok' in a && a.fields.variant).toBe('THRESHOLD');
    expect('ok' in b && b.fields.variant).toBe('PERIOD_CHANGE');
    expect('ok' in b && b.fields.thresholds[0]).toEqual({
      value: 20,
      severityLevel: 'WARNING',
      metricMode: 'PERIOD_CHANGE',
      changeBasis: 'PERCENTAGE',
    });
    expect('ok' in a && a.fields.condition).toBeNull();
  });
});

describe('alert validation: every 400 names the problem', () => {
  test.each([
    ['empty name', conditionBody({ name: '  ' }), /name: must not be empty/],
    ['KRW currency', conditionBody({ currency: 'KRW' }), /currency: .*KRW is not allowed/],
    ['no queries', conditionBody({ queries: [] }), /queries: must hold at least one query/],
    ['bad query name', conditionBody({ queries: [costQuery('1bad')] }), /queries\.0\.name: must match/],
    [
      'duplicate query names',
      conditionBody({ queries: [costQuery('a'), costQuery('a')], condition: 'a > 1' }),
      /already used/,
    ],
    [
      'bad e-mail',
      conditionBody({ emails: ['not-an-address'] }),
      /emails\.0: must be a valid e-mail address/,
    ],
    [
      'CR/LF in an e-mail',
      conditionBody({ emails: ['a@example.com\r\nBcc: x@evil.test'] }),
      /emails\.0: .*control characters/,
    ],
    [
      'EMAIL without emails',
      conditionBody({ emails: [] }),
      /emails: at least one e-mail address is required/,
    ],
    ['SLACK without channel', thresholdBody({ slackChannelId: undefined }), /slackChannelId is required/],
    ['TEAMS without URL', periodChangeBody({ teamsChannelId: undefined }), /teamsChannelId .* is required/],
    [
      'TEAMS over http',
      periodChangeBody({ teamsChannelId: 'http://x.logic.azure.com/w' }),
      /teamsChannelId must be an https URL/,
    ],
    [
      'TEAMS to loopback',
      periodChangeBody({ teamsChannelId: 'https://127.0.0.1/teams/x' }),
      /teamsChannelId must not point to a loopback/,
    ],
    [
      'TEAMS to IPv6 loopback',
      periodChangeBody({ teamsChannelId: 'https://[::1]/x' }),
      /must not point to a loopback/,
    ],
    [
      'TEAMS to metadata',
      periodChangeBody({ teamsChannelId: 'https://169.254.169.254/latest' }),
      /must not point to a loopback/,
    ],
    [
      'TEAMS to localhost',
      periodChangeBody({ teamsChannelId: 'https://localhost/x' }),
      /must not point to a loopback/,
    ],
    [
      'TEAMS to another host',
      periodChangeBody({ teamsChannelId: 'https://evil.example.com/x' }),
      /host evil\.example\.com is not an allowed/,
    ],
    [
      'TEAMS look-alike host',
      periodChangeBody({ teamsChannelId: 'https://logic.azure.com.evil.test/x' }),
      /is not an allowed/,
    ],
    ['condition does not parse', conditionBody({ condition: 'ec2 > ' }), /condition: .* at 6/],
    [
      'condition names another query',
      conditionBody({ condition: 'ec2 > 1 and foo < 2' }),
      /condition: unknown query 'foo' at 12/,
    ],
    [
      'condition is not a comparison',
      conditionBody({ condition: 'ec2 * 2' }),
      /condition: must be a comparison/,
    ],
    ['condition without dedup', conditionBody({ dedup: undefined }), /dedup is required/],
    [
      'CALENDAR without unit',
      conditionBody({ dedup: { kind: 'CALENDAR' } }),
      /dedup\.calendarUnit .* is required/,
    ],
    [
      'condition and thresholds',
      conditionBody({ thresholds: thresholdBody().thresholds }),
      /either condition .* or thresholds/,
    ],
    [
      'neither condition nor thresholds',
      thresholdBody({ thresholds: [] }),
      /condition or thresholds is required/,
    ],
    [
      'thresholds without thresholdType',
      thresholdBody({ thresholdType: undefined }),
      /thresholdType .* is required/,
    ],
    [
      'thresholds without evaluationPeriod',
      thresholdBody({ evaluationPeriod: undefined }),
      /evaluationPeriod .* is required/,
    ],
    [
      'mixed metric modes',
      thresholdBody({
        thresholds: [
          ...(thresholdBody().thresholds as unknown[]),
          ...(periodChangeBody().thresholds as unknown[]),
        ],
      }),
      /same metricMode/,
    ],
    ['unknown queryName', thresholdBody({ queryName: 'nope' }), /queryName: 'nope' is not the name/],
    ['unknown field', conditionBody({ owner: 'me' }), /owner: is not an accepted field/],
    [
      'bad severity',
      thresholdBody({ thresholds: [{ value: 1, severityLevel: 'LOUD' }] }),
      /severityLevel: must be one of/,
    ],
  ])('%s', (_, body, message) => {
    expect(errorOf(body)).toMatch(message);
  });

  test('a valid body of each variant passes', () => {
    for (const body of [conditionBody(), thresholdBody(), periodChangeBody()])
      expect(check(body)).toHaveProperty('ok', true);
    expect(v.safeParse(CreateAlertBody, conditionBody()).success).toBe(true);
  });
});
