import type { IncomingHttpHeaders } from 'node:http';
import type { DemoSeed } from './seed';

/**
 * Extension points of the local runtime for areas that need more than tables and queues (for
 * example the warehouse seeding its DuckDB file, or an ingestion folder watcher). Each hook
 * may start things after the demo seed and may answer extra `/_local/*` routes.
 */
export interface LocalHook {
  name: string;
  start?(ctx: { stateDir: string; seed: DemoSeed; stoppers: (() => Promise<void> | void)[] }): Promise<void>;
  /**
   * Once the server answers requests and the workers poll, before the session file is written
   * (so a client waiting for it finds what this made): e.g. content made through the HTTP API.
   */
  ready?(ctx: { stateDir: string; seed: DemoSeed; baseUrl: string }): Promise<void>;
  handle?(
    method: string,
    path: string,
    body: unknown,
    query?: URLSearchParams,
    headers?: IncomingHttpHeaders,
  ): Promise<{ status: number; body: unknown; headers?: Record<string, string> } | undefined>;
}
