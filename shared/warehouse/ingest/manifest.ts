import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * AWS CUR manifests. AWS writes a multi-part export as data files plus a manifest that lists them,
 * written after the parts:
 * - CUR 1.0 (legacy Cost and Usage Reports): `<prefix>/<report>/<yyyymmdd-yyyymmdd>/<report>-Manifest.json`
 *   (and one per assembly under `<assemblyId>/`), with `reportKeys`, the parts' object keys in the
 *   report's bucket, next to `assemblyId`, `bucket`, `billingPeriod` and `columns`;
 * - CUR 2.0 / Data Exports: `<prefix>/<export>/metadata/BILLING_PERIOD=<yyyy-mm>/<export>-Manifest.json`
 *   (`Manifest.json`), with `dataFiles`, the parts' full `s3://bucket/key` URIs, next to
 *   `exportArn`, `executionId`, `billingPeriod` and `columns`.
 * A manifest is recognised from its content, never from its name.
 */
export type ManifestKind = 'cur-1' | 'cur-2';

export interface CurManifest {
  kind: ManifestKind;
  /** Each part as the manifest writes it: an object key (CUR 1.0) or an `s3://` URI (CUR 2.0). */
  parts: string[];
}

export const MANIFEST_LABEL: Record<ManifestKind, string> = {
  'cur-1': 'AWS CUR 1.0 manifest (…-Manifest.json with reportKeys)',
  'cur-2': 'AWS CUR 2.0 / Data Exports manifest (Manifest.json with dataFiles)',
};

/** Manifests are small (a list of parts and of columns); anything larger is data. */
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;

/** The manifest a parsed JSON value is, if it is one. */
export function manifestOf(value: unknown): CurManifest | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const reportKeys = strings(v.reportKeys);
  if (reportKeys && ('assemblyId' in v || 'reportName' in v || 'bucket' in v))
    return { kind: 'cur-1', parts: reportKeys };
  const dataFiles = strings(v.dataFiles);
  if (dataFiles && ('exportArn' in v || 'executionId' in v || 'billingPeriod' in v))
    return { kind: 'cur-2', parts: dataFiles };
  return undefined;
}

/** The manifest a JSON text is, if it is one. */
export function parseManifest(text: string): CurManifest | undefined {
  const trimmed = text.replace(/^\ufeff/, '').trimStart();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    return manifestOf(JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}

/** The manifest a file on disk is, if it is one (read only when it starts with `{` and is small). */
export function readManifestFile(path: string): CurManifest | undefined {
  const size = statSync(path).size;
  if (size > MAX_MANIFEST_BYTES || size < 2) return undefined;
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size);
    readSync(fd, buf, 0, size, 0);
    return parseManifest(buf.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/** A part reference as the object key it names (`s3://bucket/key` → `key`) and its bucket, if written. */
export function partObject(ref: string): { bucket?: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(ref);
  return m ? { bucket: m[1] as string, key: m[2] as string } : { key: ref.replace(/^\/+/, '') };
}

/** The file name of a part reference (what `npm run ingest -- manifest.json` looks for beside it). */
export function partFileName(ref: string): string {
  return basename(partObject(ref).key);
}

/**
 * True for an object key in the layout AWS writes the data files of a manifest-scheme export to:
 * CUR 2.0 `…/data/BILLING_PERIOD=…/…`, CUR 1.0 `…/<yyyymmdd-yyyymmdd>/…` (a part of an assembly
 * or of an overwritten report). Such a part waits for its manifest: the worker ingests it when the
 * manifest lands, together with the other parts the manifest lists.
 */
export function isManifestSchemePart(key: string): boolean {
  return /\/data\/BILLING_PERIOD=[^/]+\//.test(key) || /\/\d{8}-\d{8}\/(?:[^/]+\/)?[^/]+$/.test(key);
}

/** The sentence a manifest given where billing data is expected is refused with. */
export function manifestGivenAsData(kind: ManifestKind): string {
  return (
    `The file is an ${MANIFEST_LABEL[kind]}, not billing data: it lists the export's parts. ` +
    'Upload the manifest with its parts (npm run ingest -- <manifest>, the parts beside it), and it ingests them as one upload.'
  );
}
