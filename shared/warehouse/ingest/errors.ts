/**
 * A billing file the service will not ingest, with a one-sentence reason meant for the person who
 * uploaded it (the worker records the message as the upload's rejection reason).
 */
export class IngestRejected extends Error {
  override readonly name = 'IngestRejected';
}
