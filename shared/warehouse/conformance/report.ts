import type { ConformanceReport } from '../../model/uploads';

/**
 * The conformance report's summary line. The report's types are the upload record's
 * (shared/model/uploads.ts); the requirements are in ./requirements.ts, docs/focus-conformance.md.
 */
/** The one-line summary `npm run ingest` prints and logs carry. */
export function conformanceSummary(report: ConformanceReport): string {
  const failed = report.requirements.filter((r) => r.status === 'fail');
  const must = failed.filter((r) => r.keyword.startsWith('MUST')).map((r) => r.id);
  const { MUST, SHOULD } = report.score;
  return (
    `FOCUS ${report.focusVersion} conformance: MUST ${MUST.met}/${MUST.applicable} met, SHOULD ${SHOULD.met}/${SHOULD.applicable} met` +
    (must.length
      ? ` (failed MUST: ${must.slice(0, 5).join(', ')}${must.length > 5 ? `, +${must.length - 5} more` : ''})`
      : '')
  );
}
