import * as v from 'valibot';
import type { Principal } from '../../auth/principal';
import { getOrganizationTimezone } from '../../db/organizations-repo';
import { upgradeWidget } from '../../db/reports-legacy';
import { ValidationError } from '../../errors';
import { PreviewWidgetBody } from '../../model/report-schemas';
import { toFieldIssues } from '../../validation';
import type { WidgetData } from './render/widget-data';
import { renderWidget } from './render/widgets';
import { validZone } from './time-zone';

// Apart from `service.ts` (the reports' CRUD and schedules): a preview renders one widget and
// loads neither the schedule arithmetic (luxon) nor the report repository.

/** `POST /reports/preview-widget`: one widget's data for a context, as a delivery would render it now. */
export async function previewWidget(principal: Principal, rawBody: unknown): Promise<WidgetData> {
  const upgraded =
    rawBody && typeof rawBody === 'object' && !Array.isArray(rawBody)
      ? {
          ...(rawBody as Record<string, unknown>),
          widget: upgradeWidget((rawBody as Record<string, unknown>).widget),
        }
      : rawBody;
  const result = v.safeParse(PreviewWidgetBody, upgraded, { abortPipeEarly: true });
  if (!result.success) {
    const issues = toFieldIssues(result.issues);
    throw new ValidationError(`${issues[0]?.path}: ${issues[0]?.message}`, issues);
  }
  const timeZone = validZone(await getOrganizationTimezone(principal.orgId));
  return renderWidget(
    { orgId: principal.orgId, context: result.output.context, now: new Date(), timeZone, viewer: principal },
    result.output.widget,
  );
}
