import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  type CryptoKey,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { parseTokenArgs } from '../../scripts/token';
import { api, session } from '../support/session';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

/** Runs `npm run token` as a user would (through tsx), against the test stack's state folder. */
async function npmRunToken(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/token.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
}

/** `npm run token` with these arguments against the test stack's state folder (`--state-dir` last). */
const stackToken = (args: string[]) => npmRunToken([...args, '--state-dir', session().stateDir]);

interface StoredKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

const stackKey = () =>
  JSON.parse(readFileSync(join(session().stateDir, 'idp-key.json'), 'utf8')) as StoredKey;

const ISSUER = 'urn:cost-management:local-idp';
const AUDIENCE = 'cost-management-local';

/** A token as the local IdP would mint it, with one thing changed by the caller. */
async function forge(
  opts: {
    issuer?: string;
    audience?: string;
    exp?: number | null;
    kid?: string;
    key?: CryptoKey | Uint8Array;
    alg?: string;
    claims?: Record<string, unknown>;
  } = {},
): Promise<string> {
  const stored = stackKey();
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ org_id: session().orgId, ...opts.claims })
    .setProtectedHeader({
      alg: opts.alg ?? 'RS256',
      kid: opts.kid ?? String(stored.privateJwk.kid),
      typ: 'JWT',
    })
    .setSubject(session().users.admin)
    .setIssuer(opts.issuer ?? ISSUER)
    .setAudience(opts.audience ?? AUDIENCE)
    .setIssuedAt(now - 10);
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? now + 600);
  return jwt.sign(opts.key ?? ((await importJWK(stored.privateJwk, 'RS256')) as CryptoKey));
}

describe('npm run token', () => {
  it('mints a token the running stack accepts, for the seeded admin', async () => {
    const { stdout, stderr } = await stackToken(['--user', session().users.admin]);
    const token = stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    expect(stderr).toContain(session().users.admin);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      sub: session().users.admin,
      org_id: session().orgId,
      iss: ISSUER,
      aud: AUDIENCE,
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);

    const list = await api('GET', '/reports', { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ items: expect.any(Array) });
  });

  it('acts as the member it names, with the org, role and lifetime asked for', async () => {
    const { stdout } = await stackToken([
      '--user',
      session().users.member,
      '--org',
      session().orgId,
      '--role',
      'member',
      '--ttl',
      '120',
    ]);
    const token = stdout.trim();
    const claims = decodeJwt(token);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(120);
    expect(claims.org_role).toBe('member');
    const created = await api<{ createdById: string; organizationId: string }>('POST', '/reports', {
      token,
      body: { name: `token-member-${Date.now()}` },
    });
    expect(created.status).toBe(201);
    expect(created.body.createdById).toBe(session().users.member);
    expect(created.body.organizationId).toBe(session().orgId);
  });

  it("puts the second organisation's admin in that organisation by default", async () => {
    const { stdout } = await stackToken(['--user', session().users.outsider]);
    const token = stdout.trim();
    expect(decodeJwt(token).org_id).toBe(session().otherOrgId);
    const res = await api('GET', '/reports', { token });
    expect(res.status).toBe(200);
  });

  it('describes an unseeded user by the role it was minted with, not "unless --role admin"', async () => {
    const user = `user_tokencli_${Date.now()}`;
    const asAdmin = await stackToken(['--user', user, '--role', 'admin']);
    expect(asAdmin.stderr).toContain(
      `${user} is not a seeded user; it acts as a first-time admin of ${session().orgId}`,
    );
    expect(asAdmin.stderr).not.toMatch(/member|unless/);
    // The note tells the truth: the token acts as an admin (an admin-only route answers 200).
    const adminList = await api('GET', '/iac/users', { token: asAdmin.stdout.trim() });
    expect(adminList.status).toBe(200);

    const asMember = await stackToken(['--user', user]);
    expect(asMember.stderr).toContain(`it acts as a first-time member of ${session().orgId}`);
    expect(asMember.stderr).not.toContain('first-time admin');
    const memberList = await api('GET', '/iac/users', { token: asMember.stdout.trim() });
    expect(memberList.status).toBe(403);
  });

  it('--help prints the usage on stdout and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const { stdout } = await npmRunToken([flag]);
      expect(stdout).toMatch(/^usage: npm run token -- --user user_/);
    }
  });

  it('refuses bad arguments with a usage message and no token', async () => {
    const bad = stackToken(['--user', 'bob']);
    await expect(bad).rejects.toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--user must look like user_'),
    });
    expect(() => parseTokenArgs([])).toThrow('--user is required');
    expect(() => parseTokenArgs(['--user', 'user_a', '--ttl', '0'])).toThrow('--ttl');
    expect(() => parseTokenArgs(['--user', 'user_a', '--ttl', '1.5'])).toThrow('--ttl');
    expect(() => parseTokenArgs(['--user', 'user_a', '--org', 'acme'])).toThrow('--org');
    expect(() => parseTokenArgs(['--user', 'user_a', '--bogus', 'x'])).toThrow('Unknown argument');
    expect(() => parseTokenArgs(['--user'])).toThrow('needs a value');
    expect(parseTokenArgs(['--user=user_a', '--ttl=60'], {})).toMatchObject({ user: 'user_a', ttl: 60 });
  });
});

describe('tokens the stack must refuse', () => {
  const expectRefused = async (token: string) => {
    const res = await api('GET', '/reports', { token });
    expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { error: 'Unauthorized' } });
  };

  it('accepts the forged baseline, so each refusal below is caused by its one change', async () => {
    const res = await api('GET', '/reports', { token: await forge() });
    expect(res.status).toBe(200);
  });

  it('refuses another issuer', async () => {
    await expectRefused(await forge({ issuer: 'https://evil.example.com/' }));
  });

  it('refuses another audience', async () => {
    await expectRefused(await forge({ audience: 'some-other-app' }));
  });

  it('refuses an expired token', async () => {
    await expectRefused(await forge({ exp: Math.floor(Date.now() / 1000) - 120 }));
  });

  it('refuses a token without exp', async () => {
    const token = await forge({ exp: null });
    expect(decodeJwt(token).exp).toBeUndefined();
    await expectRefused(token);
  });

  it('refuses alg none', async () => {
    const token = new UnsecuredJWT({ org_id: session().orgId })
      .setSubject(session().users.admin)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .encode();
    expect(token.endsWith('.')).toBe(true);
    await expectRefused(token);
    // The same with the stack's kid in the header.
    const [, payload] = token.split('.');
    const header = Buffer.from(
      JSON.stringify({ alg: 'none', kid: stackKey().publicJwk.kid, typ: 'JWT' }),
    ).toString('base64url');
    await expectRefused(`${header}.${payload}.`);
  });

  it('refuses HS256, even keyed with the public key (algorithm confusion)', async () => {
    const publicKeyBytes = new TextEncoder().encode(JSON.stringify(stackKey().publicJwk));
    await expectRefused(await forge({ alg: 'HS256', key: publicKeyBytes }));
    await expectRefused(
      await forge({ alg: 'HS256', key: new TextEncoder().encode(String(stackKey().publicJwk.n)) }),
    );
  });

  it('refuses an unknown kid, and a foreign key that claims the known kid', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    await expectRefused(await forge({ kid: 'not-a-local-key', key: privateKey }));
    await expectRefused(await forge({ key: privateKey }));
    expect((await exportJWK(privateKey)).n).not.toBe(stackKey().publicJwk.n);
  });

  it('refuses a tampered signature or payload', async () => {
    const token = await forge();
    const [h, p, sig] = token.split('.') as [string, string, string];
    const flipped = `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`;
    await expectRefused(`${h}.${p}.${flipped}`);
    const claims = { ...decodeJwt(token), org_id: session().otherOrgId };
    await expectRefused(`${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`);
  });

  it('refuses a valid signature over claims without an organisation or a user subject', async () => {
    await expectRefused(await forge({ claims: { org_id: undefined } }));
    await expectRefused(await forge({ claims: { org_id: 'acme' } }));
    const noUser = await forge();
    expect(decodeJwt(noUser).sub).toBe(session().users.admin);
    const stored = stackKey();
    const orgSubject = await new SignJWT({ org_id: session().orgId })
      .setProtectedHeader({ alg: 'RS256', kid: String(stored.privateJwk.kid) })
      .setSubject(session().orgId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(await importJWK(stored.privateJwk, 'RS256'));
    await expectRefused(orgSubject);
  });
});
