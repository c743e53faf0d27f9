import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ScheduledEvent } from 'aws-lambda';
import { log } from '../../shared/log';
import { type ScheduleDef, schedules } from '../../shared/queues';
import { lambdaContext } from './lambda-context';

type ScheduleHandler = (event: ScheduledEvent, context: unknown) => Promise<unknown>;

/** The EventBridge event a schedule delivers; handlers take "now" from its `time`. */
export function scheduledEvent(
  name: string,
  now: Date,
  detail: Record<string, unknown> = {},
): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: now.toISOString(),
    region: 'us-east-1',
    resources: [`arn:aws:events:local:000000000000:rule/${name}`],
    detail,
  };
}

const loaded = new Map<string, Promise<ScheduleHandler>>();

function load(def: ScheduleDef): Promise<ScheduleHandler> {
  let h = loaded.get(def.name);
  if (!h) {
    h = import(join(__dirname, '..', '..', 'functions', `${def.entry}.ts`)).then(
      (m: { handler: ScheduleHandler }) => m.handler,
    );
    loaded.set(def.name, h);
  }
  return h;
}

export function findSchedule(name: string): ScheduleDef | undefined {
  return schedules.find((s) => s.name === name);
}

/** Runs one scheduled handler with the given clock (and event `detail`), as EventBridge would at that time. */
export async function tick(
  name: string,
  now = new Date(),
  detail: Record<string, unknown> = {},
): Promise<unknown> {
  const def = findSchedule(name);
  if (!def) throw new Error(`Unknown schedule ${name}`);
  const handler = await load(def);
  return handler(scheduledEvent(name, now, detail), lambdaContext(name, def.timeoutSeconds));
}

/** Fires every schedule on its local interval until stopped. */
export function startTicker(): () => void {
  const timers = schedules
    .filter((def) => def.localIntervalSeconds > 0)
    .map((def) =>
      setInterval(() => {
        tick(def.name).catch((error) => log.error('scheduled run failed', { schedule: def.name, error }));
      }, def.localIntervalSeconds * 1000),
    );
  return () => {
    for (const t of timers) clearInterval(t);
  };
}
