/**
 * The Data pages' data shaping (pure, no DOM): `GET /billing/uploads` and `/billing/uploads/{id}`
 * (docs/focus-conformance.md) → the uploads list's rows and an upload's conformance report: the
 * score per keyword, then the failing requirements (MUST first) with their violating row count and
 * sample rows.
 */
import type { ConformanceReport } from '../../shared/model/uploads';

export type { ConformanceReport };

type Requirement = ConformanceReport['requirements'][number];

/** What the pages read of an upload (the route answers more: replaced sources, restores, …). */
export interface Upload {
  id: string;
  status: 'processing' | 'succeeded' | 'rejected';
  format: string;
  file?: string;
  objectKey: string;
  startedAt?: string;
  finishedAt?: string;
  rows?: number;
  months?: string[];
  warnings?: string[];
  error?: string;
  /** The list has the score only; an upload's page has every requirement. */
  conformance?: Omit<ConformanceReport, 'requirements'> & { requirements?: Requirement[] };
}

const FORMATS: Record<string, string> = {
  focus: 'FOCUS',
  'contract-commitment': 'FOCUS contract commitments',
  'aws-cur-1': 'AWS CUR 1.0',
  'aws-cur-2': 'AWS CUR 2.0',
  azure: 'Azure cost export',
  gcp: 'Google Cloud billing export',
  oci: 'OCI cost report',
  unknown: 'Not recognised',
};
export const formatWords = (f: string) => FORMATS[f] ?? f;

const time = (iso: string | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '–');
const count = (n: number) => n.toLocaleString('en-US');

export interface UploadRow {
  id: string;
  file: string;
  format: string;
  status: string;
  rows: string;
  time: string;
  /** "MUST 40/42 · SHOULD 9/10", or '–' without a report. */
  conformance: string;
}

export function scoreWords(c: Upload['conformance']): string {
  if (!c) return '–';
  return `MUST ${c.score.MUST.met}/${c.score.MUST.applicable} · SHOULD ${c.score.SHOULD.met}/${c.score.SHOULD.applicable}`;
}

export function uploadRow(u: Upload): UploadRow {
  return {
    id: u.id,
    file: u.file ?? u.objectKey.split('/').pop() ?? u.objectKey,
    format: formatWords(u.format),
    status: u.status === 'succeeded' ? 'Ingested' : u.status === 'rejected' ? 'Refused' : 'Processing',
    rows: u.rows === undefined ? '–' : count(u.rows),
    time: time(u.finishedAt ?? u.startedAt),
    conformance: scoreWords(u.conformance),
  };
}

export interface FailingRequirement {
  id: string;
  keyword: string;
  statement: string;
  violations: string;
  /** The sample rows' columns (union, in order met) and one line per sample. */
  columns: string[];
  samples: { line: number; values: string[] }[];
}

/** The failing requirements, MUST before SHOULD, then most violations first. */
export function failing(report: Upload['conformance']): FailingRequirement[] {
  const reqs = (report?.requirements ?? []).filter((r) => r.status === 'fail');
  const rank = (k: string) => (k.startsWith('MUST') ? 0 : 1);
  reqs.sort(
    (a, b) => rank(a.keyword) - rank(b.keyword) || b.violations - a.violations || a.id.localeCompare(b.id),
  );
  return reqs.map((r) => {
    const columns: string[] = [];
    for (const s of r.samples ?? [])
      for (const k of Object.keys(s.values)) if (!columns.includes(k)) columns.push(k);
    return {
      id: r.id,
      keyword: r.keyword,
      statement: r.statement,
      violations: `${count(r.violations)} row${r.violations === 1 ? '' : 's'}`,
      columns,
      samples: (r.samples ?? []).map((s) => ({
        line: s.line,
        values: columns.map((c) => s.values[c] ?? 'null'),
      })),
    };
  });
}

/** Requirements by status: how many passed, failed, did not apply. */
export function statusCounts(report: Upload['conformance']): {
  pass: number;
  fail: number;
  notApplicable: number;
} {
  const reqs = report?.requirements ?? [];
  return {
    pass: reqs.filter((r) => r.status === 'pass').length,
    fail: reqs.filter((r) => r.status === 'fail').length,
    notApplicable: reqs.filter((r) => r.status === 'not_applicable').length,
  };
}
