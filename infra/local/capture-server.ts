import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Emulator } from './emulators';
import { freePort } from './ports';

/**
 * Stands in for the Slack Web API, Teams incoming webhooks and the identity provider's
 * invitation API. It answers the way they do and records every call, readable at GET /messages
 * (filter with ?kind=slack|teams|idp) and cleared with DELETE /messages.
 */
export interface CapturedCall {
  id: number;
  kind: 'slack' | 'teams' | 'idp' | 'other';
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  receivedAt: string;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > 20 * 1024 * 1024) {
        reject(new Error('too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parse(raw: string, contentType: string | undefined): unknown {
  if (!raw) return null;
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  if (contentType?.includes('x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  return raw;
}

export async function startCaptureServer(
  opts: { port?: number } = {},
): Promise<Emulator & { calls: CapturedCall[] }> {
  const port = opts.port ?? (await freePort());
  const calls: CapturedCall[] = [];
  let nextId = 1;
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      if (url.pathname === '/messages' && req.method === 'GET') {
        const kind = url.searchParams.get('kind');
        return send(200, kind ? calls.filter((c) => c.kind === kind) : calls);
      }
      if (url.pathname === '/messages' && req.method === 'DELETE') {
        calls.length = 0;
        return send(200, { cleared: true });
      }
      const raw = await readBody(req);
      const kind: CapturedCall['kind'] = url.pathname.startsWith('/slack/')
        ? 'slack'
        : url.pathname.startsWith('/teams/')
          ? 'teams'
          : url.pathname.startsWith('/idp/')
            ? 'idp'
            : 'other';
      const call: CapturedCall = {
        id: nextId++,
        kind,
        method: req.method ?? 'GET',
        path: url.pathname + url.search,
        headers: req.headers,
        body: parse(raw, req.headers['content-type']),
        receivedAt: new Date().toISOString(),
      };
      calls.push(call);
      if (kind === 'slack') {
        // Slack answers 200 with {ok:false, error} for API-level failures; the capture accepts all.
        const method = url.pathname.split('/').pop();
        if (method === 'files.getUploadURLExternal') {
          return send(200, {
            ok: true,
            upload_url: `http://127.0.0.1:${port}/slack/upload/${call.id}`,
            file_id: `F${call.id}`,
          });
        }
        return send(200, {
          ok: true,
          channel: (call.body as { channel?: string })?.channel,
          ts: `${Date.now() / 1000}`,
        });
      }
      if (kind === 'teams') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('1');
      }
      if (kind === 'idp') return send(201, { id: `inv_${call.id}`, status: 'pending' });
      return send(200, { ok: true });
    } catch {
      send(400, { ok: false, error: 'bad_request' });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    name: 'capture',
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
