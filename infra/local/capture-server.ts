import { createServer, type IncomingMessage, type Server } from 'node:http';
import { OUTBOX_CSP, OUTBOX_PATH, type OutboxKind, renderOutbox } from './capture-view';
import { fileIdOfContentPath, fileType } from './capture-view-slack';
import type { CapturedCall, CapturedFile } from './captured';
import type { Emulator } from './emulators';
import { freePort } from './ports';

/**
 * Stands in for the Slack Web API, Teams incoming webhooks and the identity provider's
 * invitation API. It answers the way they do and records every call, readable at GET /messages
 * (filter with ?kind=slack|teams|idp) and cleared with DELETE /messages. GET /outbox (?kind=slack|teams;
 * GET / leads there) shows the Slack and Teams messages as a page (./capture-view.ts).
 *
 * Slack (`/slack/api/<method>`): every method wants a bot token (`Authorization: Bearer xoxb-…`,
 * else `{ok:false, error:'not_authed'|'invalid_auth'}`). `chat.postMessage` needs a channel. The
 * external upload flow is implemented: `files.getUploadURLExternal` (filename, length) answers an
 * `upload_url` on this server and a file id, a POST of the bytes to it must carry exactly `length`
 * bytes, and `files.completeUploadExternal` (files `[{id, title}]`, `channel_id`) shares uploaded
 * files in the channel. The files, with their bytes (base64) and channels, are at
 * GET /slack/files (?channel=C…), a file's bytes at GET /slack/files/<id>/content. A channel can be made to fail: PUT /slack/failures/<channel>
 * `{error, times?, method?}` answers `{ok:false, error}` to the next `times` calls for it (every
 * call when omitted; only calls of `method` when given); DELETE /slack/failures/<channel> ends that.
 */

/** A request's bytes (at most 20 MiB). */
function readBody(req: IncomingMessage): Promise<Buffer> {
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
    req.on('end', () => resolve(Buffer.concat(chunks)));
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

const SLACK_TOKEN = /^Bearer xox[abpe]-[A-Za-z0-9-]+$/;

export async function startCaptureServer(
  opts: { port?: number } = {},
): Promise<Emulator & { calls: CapturedCall[]; files: CapturedFile[] }> {
  const port = opts.port ?? (await freePort());
  const calls: CapturedCall[] = [];
  const files: CapturedFile[] = [];
  /** Channel → the error to answer and how many more times (Infinity: until deleted). */
  const failures = new Map<string, { error: string; times: number; method: string | null }>();
  let nextId = 1;
  /** `{ok:false, error}` when the channel is set to fail (and counts the failure down). */
  const channelFailure = (channel: string | undefined, method: string): string | undefined => {
    const f = channel ? failures.get(channel) : undefined;
    if (!f || f.times <= 0 || (f.method !== null && f.method !== method)) return undefined;
    f.times--;
    return f.error;
  };
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
      if (url.pathname === '/' && req.method === 'GET') {
        res.writeHead(302, { location: OUTBOX_PATH });
        return res.end();
      }
      // A browser showing the outbox asks for an icon: none, and not a call to record.
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204);
        return res.end();
      }
      if (url.pathname === OUTBOX_PATH && req.method === 'GET') {
        const kind = url.searchParams.get('kind');
        const page = renderOutbox(calls, files, {
          kind: kind === 'slack' || kind === 'teams' ? (kind as OutboxKind) : undefined,
        });
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': OUTBOX_CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-store',
        });
        return res.end(page);
      }
      if (url.pathname === '/messages' && req.method === 'DELETE') {
        calls.length = 0;
        return send(200, { cleared: true });
      }
      const failurePath = url.pathname.match(/^\/slack\/failures\/([^/]+)$/);
      if (failurePath) {
        const channel = decodeURIComponent(failurePath[1]!);
        if (req.method === 'DELETE') {
          failures.delete(channel);
          return send(200, { ok: true });
        }
        const b = parse((await readBody(req)).toString('utf8'), 'application/json') as {
          error?: unknown;
          times?: unknown;
          method?: unknown;
        } | null;
        const times = typeof b?.times === 'number' && b.times >= 0 ? b.times : Number.POSITIVE_INFINITY;
        failures.set(channel, {
          error: typeof b?.error === 'string' ? b.error : 'channel_not_found',
          times,
          method: typeof b?.method === 'string' ? b.method : null,
        });
        return send(200, { ok: true });
      }
      if (url.pathname === '/slack/files' && req.method === 'GET') {
        const channel = url.searchParams.get('channel');
        return send(200, channel ? files.filter((f) => f.channels.includes(channel)) : files);
      }
      const contentOf = fileIdOfContentPath(url.pathname);
      if (contentOf !== undefined && req.method === 'GET') {
        const file = files.find((f) => f.id === contentOf);
        if (!file?.content) return send(404, { ok: false, error: 'file_not_found' });
        const type = fileType(file.content);
        // What was uploaded, as what its bytes are: an image shown, anything else downloaded, and
        // never run as a page (sandboxed, not sniffed).
        res.writeHead(200, {
          'content-type': type.mime,
          'content-disposition': `${type.image ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
          'content-security-policy': "default-src 'none'; sandbox",
          'x-content-type-options': 'nosniff',
        });
        return res.end(Buffer.from(file.content, 'base64'));
      }
      const bytes = await readBody(req);
      const upload = url.pathname.match(/^\/slack\/upload\/([^/]+)$/);
      const raw = upload ? '' : bytes.toString('utf8');
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
        body: upload ? { bytes: bytes.length } : parse(raw, req.headers['content-type']),
        receivedAt: new Date().toISOString(),
      };
      calls.push(call);
      if (upload) {
        // The upload URL: no token (it is the credential), the exact number of bytes announced.
        const file = files.find((f) => f.id === upload[1]);
        if (!file || req.method !== 'POST' || file.content !== null) return send(404, { ok: false });
        if (bytes.length !== file.length) {
          res.writeHead(400, { 'content-type': 'text/plain' });
          return res.end(`length mismatch: expected ${file.length}, got ${bytes.length}`);
        }
        file.content = bytes.toString('base64');
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`OK - ${bytes.length}`);
      }
      if (kind === 'slack') {
        call.answer = slackMethod(url.pathname.split('/').pop() ?? '', call);
        return send(200, call.answer);
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
  /** Slack answers 200 with `{ok:false, error}` for API-level failures, and so does this. */
  function slackMethod(method: string, call: CapturedCall): Record<string, unknown> {
    const auth = call.headers.authorization;
    if (!auth) return { ok: false, error: 'not_authed' };
    if (typeof auth !== 'string' || !SLACK_TOKEN.test(auth)) return { ok: false, error: 'invalid_auth' };
    const body = (call.body && typeof call.body === 'object' ? call.body : {}) as Record<string, unknown>;
    if (method === 'files.getUploadURLExternal') {
      const length = Number(body.length);
      if (typeof body.filename !== 'string' || !body.filename || !Number.isInteger(length) || length <= 0)
        return { ok: false, error: 'invalid_arguments' };
      const id = `F${String(call.id).padStart(8, '0')}`;
      files.push({
        id,
        filename: body.filename,
        length,
        title: null,
        content: null,
        channels: [],
        initialComment: null,
      });
      return { ok: true, upload_url: `http://127.0.0.1:${port}/slack/upload/${id}`, file_id: id };
    }
    if (method === 'files.completeUploadExternal') {
      let list: unknown = body.files;
      if (typeof list === 'string') {
        try {
          list = JSON.parse(list);
        } catch {
          return { ok: false, error: 'invalid_arguments' };
        }
      }
      if (!Array.isArray(list) || list.length === 0) return { ok: false, error: 'invalid_arguments' };
      const channel = typeof body.channel_id === 'string' ? body.channel_id : undefined;
      const failed = channelFailure(channel, method);
      if (failed) return { ok: false, error: failed };
      const done: CapturedFile[] = [];
      for (const item of list as { id?: unknown; title?: unknown }[]) {
        const file = files.find((f) => f.id === item?.id);
        if (!file || file.content === null) return { ok: false, error: 'file_not_found' };
        done.push(file);
      }
      list.forEach((item: { title?: unknown }, i: number) => {
        const file = done[i]!;
        if (typeof item.title === 'string') file.title = item.title;
        if (channel && !file.channels.includes(channel)) file.channels.push(channel);
        if (typeof body.initial_comment === 'string') file.initialComment = body.initial_comment;
      });
      return { ok: true, files: done.map((f) => ({ id: f.id, name: f.filename, title: f.title })) };
    }
    const channel = typeof body.channel === 'string' ? body.channel : undefined;
    if (method === 'chat.postMessage') {
      if (!channel) return { ok: false, error: 'channel_not_found' };
      const failed = channelFailure(channel, method);
      if (failed) return { ok: false, error: failed };
    }
    return { ok: true, channel, ts: `${Date.now() / 1000}` };
  }

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    name: 'capture',
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    files,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
