import { parseFxArgs } from '../../../scripts/fx';
import { fetchAndLoadRates } from '../../../shared/domain/fx/fetch';
import { BadRequestError } from '../../../shared/errors';
import { guardedGet, WebhookRefusedError } from '../../../shared/net/guarded-fetch';

describe('npm run fx arguments', () => {
  it('parses load, fetch and status with a state folder', () => {
    expect(parseFxArgs(['load', 'rates.csv'], {})).toMatchObject({ command: 'load', file: 'rates.csv' });
    expect(parseFxArgs(['fetch'], {})).toEqual({
      command: 'fetch',
      stateDir: expect.stringMatching(/\.local$/),
    });
    expect(parseFxArgs(['fetch', 'https://x.example/r.xml', '--state-dir', '/tmp/s'], {})).toEqual({
      command: 'fetch',
      url: 'https://x.example/r.xml',
      stateDir: '/tmp/s',
    });
    expect(parseFxArgs(['status'], { LOCAL_STATE_DIR: '/tmp/t' })).toEqual({
      command: 'status',
      stateDir: '/tmp/t',
    });
  });

  it.each([[[]], [['load']], [['nope']], [['load', 'a', 'b']], [['status', '--bogus']]])(
    'refuses %j',
    (argv) => {
      expect(() => parseFxArgs(argv, {})).toThrow();
    },
  );
});

describe('fetching rates', () => {
  it.each([
    ['http://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml', 'https'],
    ['not a url', 'not a URL'],
    ['https://127.0.0.1/rates.xml', 'private or local'],
    ['https://[::1]/rates.xml', 'private or local'],
    ['https://169.254.169.254/latest', 'private or local'],
  ])('refuses %s before any request', async (url, message) => {
    const attempt = fetchAndLoadRates(url);
    await expect(attempt).rejects.toBeInstanceOf(BadRequestError);
    await expect(fetchAndLoadRates(url)).rejects.toThrow(message);
  });
});

describe('the guarded GET the daily fetch uses', () => {
  it('refuses a host name that resolves to loopback at connect time, and plain http', async () => {
    await expect(guardedGet('https://localhost:9/rates.xml', { maxBytes: 1024 })).rejects.toThrow(
      /resolves to (127\.0\.0\.1|::1)/,
    );
    await expect(guardedGet('http://example.com/rates.xml', { maxBytes: 1024 })).rejects.toBeInstanceOf(
      WebhookRefusedError,
    );
  });
});
