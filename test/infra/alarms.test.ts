import { queues, schedules, workers } from '../../shared/queues';
import { routes } from '../../shared/routes';
import { type BuiltStack, buildStack, resourcesOf } from './support';

// The alarms of the synthesized stack, driven by the manifests: every queue's DLQ (and the schedule
// failure queue) has a not-empty alarm, every work queue an oldest-message alarm, every function one
// errors + throttles alarm in its own template, the API a 5xx-rate alarm; all act on one topic.

let prod: BuiltStack;
let withEmail: BuiltStack;

beforeAll(() => {
  prod = buildStack('prod');
  withEmail = buildStack('prod', { context: { alarmEmail: 'oncall@acme.test' } });
});

type Alarm = { Properties: Record<string, unknown> };
const alarmsOf = (built: BuiltStack) =>
  Object.values(resourcesOf(built.template, 'AWS::CloudWatch::Alarm')) as Alarm[];
const text = (value: unknown) => JSON.stringify(value) ?? '';

/** The logical id of a queue resource in the flattened template, found by its construct path. */
function logicalId(built: BuiltStack, construct: import('constructs').IConstruct): string {
  return built.idOf(construct.node.defaultChild as import('aws-cdk-lib').CfnElement);
}

/** The alarms on `metric` whose dimensions `match`: exactly one for `queue`. */
function oneAlarmOf(queue: string, alarms: Alarm[], metric: string, match: (dimensions: unknown) => boolean) {
  const matching = alarms.filter((a) => a.Properties.MetricName === metric && match(a.Properties.Dimensions));
  expect({ queue, alarms: matching.length }).toEqual({ queue, alarms: 1 });
  return matching;
}

test('every queue’s DLQ has an alarm that fires on one visible message', () => {
  const alarms = alarmsOf(prod);
  for (const q of queues) {
    const dlqId = logicalId(prod, prod.stack.workQueues.dlq(q.name));
    const matching = oneAlarmOf(q.name, alarms, 'ApproximateNumberOfMessagesVisible', (dimensions) =>
      text(dimensions).includes(dlqId),
    );
    expect(matching[0]!.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  }
  expect(alarms.some((a) => text(a.Properties.AlarmDescription).includes('schedule failure queue'))).toBe(
    schedules.length > 0,
  );
});

test('every work queue has an oldest-message alarm', () => {
  const alarms = alarmsOf(prod);
  for (const q of queues) {
    const queueId = logicalId(prod, prod.stack.workQueues.queue(q.name));
    oneAlarmOf(q.name, alarms, 'ApproximateAgeOfOldestMessage', (dimensions) =>
      (dimensions as { Value: unknown }[]).some((d) => text(d.Value).includes(`"${queueId}"`)),
    );
  }
});

test('every function has one errors + throttles alarm, in the template that holds the function', () => {
  const expected = routes.length + workers.length + schedules.length;
  const fnAlarms = alarmsOf(prod).filter((a) => text(a.Properties.Metrics).includes('errors + throttles'));
  expect(fnAlarms).toHaveLength(expected);
  // The parent holds none of them: they grow the nested stacks, not the root.
  const parent = prod.templates[0]!.json.Resources ?? {};
  expect(
    Object.values(parent).filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && text(r.Properties).includes('errors + throttles'),
    ),
  ).toEqual([]);
});

test('the API has a 5xx-rate alarm; every alarm notifies the one topic, which has an e-mail subscription only when configured', () => {
  expect(
    alarmsOf(prod).filter((a) => text(a.Properties.Metrics).includes('100 * errors / requests')),
  ).toHaveLength(1);
  const topics = Object.keys(resourcesOf(prod.template, 'AWS::SNS::Topic'));
  expect(topics).toHaveLength(1);
  for (const a of alarmsOf(prod)) expect(text(a.Properties.AlarmActions)).toMatch(/Topic/);
  expect(Object.keys(resourcesOf(prod.template, 'AWS::SNS::Subscription'))).toHaveLength(0);
  withEmail.template.hasResourceProperties('AWS::SNS::Subscription', {
    Protocol: 'email',
    Endpoint: 'oncall@acme.test',
  });
});
