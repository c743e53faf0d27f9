import type { BillingFormat } from './native';

/**
 * A billing upload that will never ingest as it is, for a reason its uploader can act on: an
 * unknown organisation, a file that is not one of the accepted formats, an empty or binary file.
 * Throw it from anywhere in an upload's ingestion (`processUpload` in
 * shared/domain/billing/ingestion.ts): the worker records the upload as rejected with this
 * message, which `npm run ingest` prints as it is, and does not retry. The message is one plain
 * sentence (or two), never an engine's multi-line text or a temporary path. Any other error is
 * treated as transient: the message is retried, then goes to the dead-letter queue.
 */
export class IngestRejected extends Error {
  override name = 'IngestRejected';
  constructor(
    message: string,
    readonly detail: {
      /** A stable reason code, e.g. `UNKNOWN_ORGANIZATION`, `UNSUPPORTED_FORMAT`, `EMPTY_FILE`. */
      code?: string;
      /** The data row (1-based) and column at fault, when there is one. */
      row?: number;
      column?: string;
      /** A later delivery of the same object may succeed (e.g. once the organisation is registered). */
      retryable?: boolean;
      /** The format the file was detected as, when it got that far (a malformed row of a CUR file). */
      format?: BillingFormat;
    } = {},
  ) {
    super(message);
  }
}

/** The reason code of an upload for an organisation that is not registered. */
export const UNKNOWN_ORGANIZATION = 'UNKNOWN_ORGANIZATION';
