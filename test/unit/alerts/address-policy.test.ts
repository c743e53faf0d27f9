import { createServer, get as httpGet } from 'node:http';
import { isAllowedHost, isBlockedAddress, webhookUrlProblem } from '../../../shared/net/address-policy';
import { guardedLookup, postWebhook } from '../../../shared/net/guarded-fetch';

/** GET http://localhost:<port>/ on a fresh connection, resolving the name with `lookup` when given. */
function getLocalhost(port: number, lookup?: typeof guardedLookup): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpGet(
      { host: 'localhost', port, path: '/', agent: false, ...(lookup ? { lookup: lookup as never } : {}) },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
        });
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
  });
}

describe('blocked addresses', () => {
  test.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['169.254.0.1', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00:ec2::254', true],
    ['fc00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', true],
    ['[::1]', true],
    ['not-an-ip', true],
    ['8.8.8.8', false],
    ['13.107.42.14', false],
    ['172.32.0.1', false],
    ['2606:4700:4700::1111', false],
    ['2a01:111:f100::1', false],
  ])('%s → blocked %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });
});

describe('allowed hosts', () => {
  const list = ['.logic.azure.com', 'hooks.example.com'];
  test.each([
    ['prod-12.westeurope.logic.azure.com', true],
    ['PROD-12.WestEurope.Logic.Azure.com.', true],
    ['logic.azure.com', false],
    ['logic.azure.com.evil.test', false],
    ['evillogic.azure.com', false],
    ['hooks.example.com', true],
    ['a.hooks.example.com', false],
  ])('%s → %s', (host, allowed) => {
    expect(isAllowedHost(host, list)).toBe(allowed);
  });
});

describe('webhook URL policy', () => {
  const policy = { allowedHosts: ['.logic.azure.com'], localCaptureOrigin: 'http://127.0.0.1:4567' };
  test.each([
    ['https://prod-1.westus.logic.azure.com:443/workflows/x/triggers/manual/paths/invoke?sig=1', null],
    ['http://prod-1.westus.logic.azure.com/w', /https/],
    ['https://user:pw@prod-1.westus.logic.azure.com/w', /user name/],
    ['https://prod-1.westus.logic.azure.com:8443/w', /port/],
    ['https://10.0.0.5/w', /loopback, private/],
    ['https://[fd00:ec2::254]/latest', /loopback, private/],
    ['https://8.8.8.8/w', /not an IP address/],
    ['https://example.com/w', /not an allowed/],
    ['ftp://prod-1.westus.logic.azure.com/w', /https/],
    ['not a url', /https URL/],
    ['http://127.0.0.1:4567/teams/x', null],
    ['http://127.0.0.1:4568/teams/x', /https/],
  ])('%s', (url, problem) => {
    const result = webhookUrlProblem(url, policy);
    if (problem === null) expect(result).toBeNull();
    else expect(result).toMatch(problem);
  });
});

describe('connect-time address check', () => {
  test('a host name resolving to 127.0.0.1 is refused at connect time; the server sees nothing', async () => {
    let hits = 0;
    const server = createServer((_, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      // Without the guard the server is reachable, so the refusal below is the guard's doing.
      expect(await getLocalhost(port)).toBe('ok');
      expect(hits).toBe(1);
      // The request options guardedPost uses for every connection that is not the local capture.
      const refused = await getLocalhost(port, guardedLookup).then(
        () => null,
        (error: Error & { code?: string }) => error,
      );
      expect(refused?.code).toBe('EWEBHOOKREFUSED');
      expect(refused?.message).toMatch(/resolves to (127\.0\.0\.1|::1)/);
      expect(hits).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('postWebhook refuses before connecting when the policy refuses the URL', async () => {
    await expect(
      postWebhook('https://127.0.0.1/x', {}, { allowedHosts: ['.logic.azure.com'] }),
    ).rejects.toThrow(/loopback/);
  });

  test('a redirect is not followed', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      await expect(
        postWebhook(`${origin}/teams/x`, {}, { allowedHosts: [], localCaptureOrigin: origin }),
      ).rejects.toThrow(/redirect/);
      expect(hits).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
