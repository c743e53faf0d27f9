/** What the capture server (`capture-server.ts`) records, and what its outbox page (`capture-view.ts`) shows. */
export interface CapturedCall {
  id: number;
  kind: 'slack' | 'teams' | 'idp' | 'other';
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  receivedAt: string;
  /** Slack: what the method answered (`{ok:false, error}` for a refused call). */
  answer?: unknown;
}

/** A file of Slack's external upload flow. */
export interface CapturedFile {
  id: string;
  filename: string;
  length: number;
  title: string | null;
  /** The uploaded bytes, base64; null until the upload URL received them. */
  content: string | null;
  /** Channels it was shared in by files.completeUploadExternal. */
  channels: string[];
  initialComment: string | null;
}
