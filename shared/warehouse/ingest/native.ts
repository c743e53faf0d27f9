import { AWS_CUR_1, AWS_CUR_2 } from './native/aws-cur';
import { AZURE } from './native/azure';
import type { Header, NativeFormat, NativeFormatId } from './native/convert';
import { GCP } from './native/gcp';
import { OCI } from './native/oci';

/**
 * The provider-native billing formats an upload may be, one converter per file under ./native/
 * (the shared parts in ./native/convert.ts), and how a header is recognised as one of them.
 * Order matters: a header is the first format whose signature it has.
 */
/**
 * The format an upload was detected as: FOCUS, the provider-native format converted to FOCUS, or
 * FOCUS 1.3's Contract Commitment dataset (./contract-commitments.ts).
 */
export type BillingFormat = 'focus' | 'contract-commitment' | NativeFormatId;

export const NATIVE_FORMATS: readonly NativeFormat[] = [AWS_CUR_1, AWS_CUR_2, OCI, AZURE, GCP];

/** The native format a header belongs to, if any: the first whose signature columns it all has. */
export function nativeFormatOf(h: Header): NativeFormat | undefined {
  return NATIVE_FORMATS.find((f) => f.signature.every((names) => h.has(...names)));
}

/**
 * The native format a header that is none of them resembles most, with the signature columns it
 * lacks (each named by its first spelling): a header that has all but one or two of a format's
 * signature columns, and at least half of them. Undefined when none comes that close.
 */
export function resemblance(h: Header): { format: NativeFormat; missing: string[] } | undefined {
  let best: { format: NativeFormat; missing: string[]; present: number } | undefined;
  for (const format of NATIVE_FORMATS) {
    const missing = format.signature.filter((names) => !h.has(...names)).map((names) => names[0] as string);
    const present = format.signature.length - missing.length;
    if (!missing.length || missing.length > 2 || present * 2 < format.signature.length) continue;
    if (!best || present > best.present) best = { format, missing, present };
  }
  return best && { format: best.format, missing: best.missing };
}

/** The sentence that names what can be uploaded, for files that are none of it. */
export const ACCEPTED_FORMATS =
  'accepted are FOCUS 1.0 or later (CSV, gzipped CSV or Parquet), the AWS Cost and Usage Report (CUR 1.0 or CUR 2.0 / Data Exports), Azure EA or MCA cost exports (actual or amortised), the Google Cloud BigQuery billing export (CSV or JSON lines) and OCI cost reports';
