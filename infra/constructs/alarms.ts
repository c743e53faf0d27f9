import { Duration, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  type AlarmProps,
  ComparisonOperator,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Share of the API's answers that may be 5xx over five minutes before the alarm fires (percent). */
export const API_5XX_PERCENT = 5;
/** Fewer requests than this in five minutes never fire the 5xx-rate alarm (one error in three is noise). */
export const API_5XX_MIN_REQUESTS = 20;

export interface ServiceAlarmsProps {
  stage: string;
  /** Subscribed to the topic when given (deploy context `alarmEmail`). */
  email?: string;
}

/**
 * The service's CloudWatch alarms, all acting on one SNS topic (with an optional e-mail
 * subscription). The topic and the queue and API alarms live in the parent stack; a function's
 * alarm is created beside the function (`functionAlarm`), in its nested stack, so the parent's
 * resource count does not grow with the routes.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', {
      displayName: `Cost management ${props.stage} alarms`,
      enforceSSL: true,
    });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and alarm ' +
        'messages carry only metric names and thresholds, no tenant data.',
    });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    this.action = new SnsAction(this.topic);
  }

  /** A dead-letter queue (or failure queue) holds a message: something failed for good. */
  queueNotEmpty(scope: Construct, id: string, queue: IQueue, what: string): Alarm {
    return this.alarm(scope, id, {
      alarmDescription: `${what} is not empty: a message failed every attempt (inspect it, fix the cause, redrive)`,
      metric: queue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
    });
  }

  /** The oldest message of a work queue has waited longer than `seconds`: its worker is behind or failing. */
  oldestMessage(scope: Construct, id: string, queue: IQueue, what: string, seconds: number): Alarm {
    return this.alarm(scope, id, {
      alarmDescription: `The oldest message of ${what} has waited more than ${seconds} s`,
      metric: queue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: seconds,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
    });
  }

  /**
   * A function failed (an unhandled error: a route answers its own 4xx/5xx without one) or was
   * throttled, in five minutes. One alarm per function on errors + throttles, so a route costs its
   * nested stack one resource, not two.
   */
  functionAlarm(scope: Construct, id: string, fn: IFunction, what: string): Alarm {
    const period = Duration.minutes(5);
    return this.alarm(scope, id, {
      alarmDescription: `${what}: errors or throttles`,
      metric: new MathExpression({
        expression: 'errors + throttles',
        usingMetrics: {
          errors: fn.metricErrors({ period, statistic: 'Sum' }),
          throttles: fn.metricThrottles({ period, statistic: 'Sum' }),
        },
        period,
        label: 'errors + throttles',
      }),
    });
  }

  /** More than `API_5XX_PERCENT` % of the API's answers were 5xx in five minutes (with enough traffic). */
  api5xxRate(scope: Construct, id: string, api: HttpApi): Alarm {
    const period = Duration.minutes(5);
    return this.alarm(scope, id, {
      alarmDescription: `More than ${API_5XX_PERCENT} % of HTTP API answers were 5xx in five minutes`,
      metric: new MathExpression({
        expression: `IF(requests >= ${API_5XX_MIN_REQUESTS}, 100 * errors / requests, 0)`,
        usingMetrics: {
          errors: api.metricServerError({ period, statistic: 'Sum' }),
          requests: api.metricCount({ period, statistic: 'Sum' }),
        },
        period,
        label: '5xx %',
      }),
      threshold: API_5XX_PERCENT,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }

  /**
   * An alarm that notifies the topic: by default when the metric is at least 1 in one period,
   * missing data counting as fine.
   */
  private alarm(
    scope: Construct,
    id: string,
    props: Omit<AlarmProps, 'threshold' | 'evaluationPeriods'> &
      Partial<Pick<AlarmProps, 'threshold' | 'evaluationPeriods'>>,
  ): Alarm {
    const alarm = new Alarm(scope, id, {
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      ...props,
    });
    alarm.addAlarmAction(this.action);
    return alarm;
  }
}
