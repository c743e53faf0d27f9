/**
 * `npm run token -- --user user_demo_admin [--org org_demo] [--role admin] [--ttl 3600]
 * [--email a@b.c] [--state-dir .local]`: mints a session JWT signed with the local identity
 * provider's key (the one whose JWKS `npm start` serves) and prints it on stdout, alone, so
 * `TOKEN=$(npm run -s token -- --user …)` works. What was minted is described on stderr.
 *
 * Without `--org`, the organisation is the user's own in the running stack's `session.json`
 * (the second organisation for its admin), else `org_demo`.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadOrCreateSigningKey, mintToken } from '../infra/local/idp';
import { roleFromClaim } from '../shared/auth/principal';
import { printedHelp, UsageError } from './lib/cli';

const USER_ID = /^user_[A-Za-z0-9_-]{1,64}$/;
const ORG_ID = /^org_[A-Za-z0-9_-]{1,64}$/;
const MAX_TTL_SECONDS = 30 * 24 * 3600;

const USAGE =
  'usage: npm run token -- --user user_… [--org org_…] [--role admin|member] [--ttl SECONDS] [--email ADDRESS] [--state-dir DIR]';

export interface TokenArgs {
  user: string;
  org?: string;
  role?: string;
  ttl: number;
  email?: string;
  stateDir: string;
}

export function parseTokenArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): TokenArgs {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = String(argv[i]);
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (!['--user', '--org', '--role', '--ttl', '--email', '--state-dir'].includes(flag)) {
      throw new UsageError(`Unknown argument ${a}`);
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) {
      throw new UsageError(`${flag} needs a value`);
    }
    values[flag.slice(2)] = value;
  }
  const user = values.user;
  if (!user) throw new UsageError('--user is required');
  if (!USER_ID.test(user)) throw new UsageError(`--user must look like user_… (got ${user})`);
  if (values.org !== undefined && !ORG_ID.test(values.org)) {
    throw new UsageError(`--org must look like org_… (got ${values.org})`);
  }
  const ttl = values.ttl === undefined ? 3600 : Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SECONDS) {
    throw new UsageError(`--ttl must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}`);
  }
  return {
    user,
    ttl,
    stateDir: resolve(values['state-dir'] ?? env.LOCAL_STATE_DIR ?? '.local'),
    ...(values.org ? { org: values.org } : {}),
    ...(values.role ? { role: values.role } : {}),
    ...(values.email ? { email: values.email } : {}),
  };
}

interface SessionUsers {
  orgId?: string;
  otherOrgId?: string;
  users?: Record<string, string>;
}

function readSession(stateDir: string): SessionUsers | undefined {
  const file = join(stateDir, 'session.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SessionUsers;
  } catch {
    return undefined;
  }
}

/** The seed's second organisation belongs to its `outsider` user; everyone else is in the first. */
function defaultOrg(user: string, session: SessionUsers | undefined): string {
  if (session?.users?.outsider === user && session.otherOrgId) return session.otherOrgId;
  return session?.orgId ?? 'org_demo';
}

/**
 * What a user the seed does not know acts as: its stored profile is absent, so the stack takes the
 * role from the token's claim (`roleFromClaim`): an admin with `--role admin`, else a member.
 */
export function unseededUserNote(user: string, org: string, role: string | undefined): string {
  return roleFromClaim(role) === 'admin'
    ? `note: ${user} is not a seeded user; it acts as a first-time admin of ${org} (role claim ${role})\n`
    : `note: ${user} is not a seeded user; it acts as a first-time member of ${org} (pass --role admin for an admin)\n`;
}

async function main(): Promise<void> {
  if (printedHelp(process.argv.slice(2), USAGE)) return;
  const args = parseTokenArgs(process.argv.slice(2));
  const session = readSession(args.stateDir);
  const org = args.org ?? defaultOrg(args.user, session);
  mkdirSync(args.stateDir, { recursive: true });
  const key = await loadOrCreateSigningKey(args.stateDir);
  const token = await mintToken(key, {
    userId: args.user,
    orgId: org,
    expiresInSeconds: args.ttl,
    ...(args.role ? { role: args.role } : {}),
    ...(args.email ? { email: args.email } : {}),
  });
  process.stdout.write(`${token}\n`);
  const expires = new Date(Date.now() + args.ttl * 1000).toISOString();
  process.stderr.write(
    `JWT for ${args.user} in ${org}${args.role ? ` (role claim ${args.role})` : ''}, expires ${expires}\n`,
  );
  if (!session) {
    process.stderr.write(
      `note: no session.json in ${args.stateDir}; the token is valid for a stack started with that state folder\n`,
    );
  } else if (!Object.values(session.users ?? {}).includes(args.user)) {
    process.stderr.write(unseededUserNote(args.user, org, args.role));
  }
}

if (require.main === module) {
  main().catch((error) => {
    const message =
      error instanceof UsageError ? `${error.message}\n${USAGE}` : String(error?.stack ?? error);
    process.stderr.write(`npm run token: ${message}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
}
