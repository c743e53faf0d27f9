/**
 * `npm run keys -- <command> [flags]`: API keys of the running local stack (or of any table the
 * environment points at), written straight to DynamoDB with the same repository code the service
 * uses, so the key format, hashing and mirrors are identical.
 *
 *   create --principal user_…|org_… [--name NAME] [--org org_…]   prints the key on stdout, alone
 *   list   [--principal ID] [--org org_…]                        keys as JSON lines, never the key
 *   revoke --id key_… [--org org_…]                                effective on the next request
 *
 * The DynamoDB endpoint is DYNAMODB_ENDPOINT, else `endpoints.dynamodb` of `<state-dir>/session.json`
 * (`--state-dir`, $LOCAL_STATE_DIR or .local); without either the AWS default chain is used with
 * TABLE_NAME, and with none of the three it says in one line that no stack is running (exit 1). The org defaults to the session's organisation, else org_demo, and must be registered (`npm run org`). A `user_` principal
 * must be a registered user (a key of an unknown user could never authenticate); an `org_`
 * principal must be the org itself and gets an organisation key.
 */
import { resolve } from 'node:path';
import { isConnectionRefused, printedHelp, UsageError } from './lib/cli';
import { noStackMessage, pointAtTable, readStackSession, type TableSession } from './lib/stack-table';

export { UsageError } from './lib/cli';

const ORG_ID = /^org_[A-Za-z0-9_-]{1,64}$/;
const PRINCIPAL_ID = /^(user|org)_[A-Za-z0-9_-]{1,64}$/;
const KEY_ID = /^key_[A-Za-z0-9_-]{1,64}$/;

const USAGE = [
  'usage: npm run keys -- create --principal user_…|org_… [--name NAME] [--org org_…] [--state-dir DIR]',
  '       npm run keys -- list [--principal ID] [--org org_…] [--state-dir DIR]',
  '       npm run keys -- revoke --id key_… [--org org_…] [--state-dir DIR]',
].join('\n');

/** A well-formed request that cannot be done (unknown key or user): exit 1, without the usage. */
export class KeysError extends Error {
  override name = 'KeysError';
}

export type KeysCommand =
  | { command: 'create'; principal: string; name: string; org?: string; stateDir: string }
  | { command: 'list'; principal?: string; org?: string; stateDir: string }
  | { command: 'revoke'; id: string; org?: string; stateDir: string };

const FLAGS: Record<KeysCommand['command'], string[]> = {
  create: ['--principal', '--name', '--org', '--state-dir'],
  list: ['--principal', '--org', '--state-dir'],
  revoke: ['--id', '--org', '--state-dir'],
};

export function parseKeysArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): KeysCommand {
  const [command, ...rest] = argv;
  if (command !== 'create' && command !== 'list' && command !== 'revoke') {
    throw new UsageError(command ? `Unknown command ${command}` : 'A command is required');
  }
  const values: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = String(rest[i]);
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (!FLAGS[command].includes(flag)) throw new UsageError(`Unknown argument ${a} for ${command}`);
    const value = inline ?? rest[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) {
      throw new UsageError(`${flag} needs a value`);
    }
    values[flag.slice(2)] = value;
  }
  if (values.org !== undefined && !ORG_ID.test(values.org))
    throw new UsageError('--org must look like org_…');
  if (values.principal !== undefined && !PRINCIPAL_ID.test(values.principal)) {
    throw new UsageError('--principal must look like user_… or org_…');
  }
  const stateDir = resolve(values['state-dir'] ?? env.LOCAL_STATE_DIR ?? '.local');
  const org = values.org ? { org: values.org } : {};
  if (command === 'create') {
    if (!values.principal) throw new UsageError('--principal is required');
    const name = values.name ?? 'cli';
    if (name.length > 100) throw new UsageError('--name is at most 100 characters');
    return { command, principal: values.principal, name, stateDir, ...org };
  }
  if (command === 'revoke') {
    if (!values.id || !KEY_ID.test(values.id)) throw new UsageError('--id key_… is required');
    return { command, id: values.id, stateDir, ...org };
  }
  return { command, stateDir, ...org, ...(values.principal ? { principal: values.principal } : {}) };
}

interface LocalSession extends TableSession {
  orgId?: string;
}

async function main(): Promise<void> {
  if (printedHelp(process.argv.slice(2), USAGE)) return;
  const args = parseKeysArgs(process.argv.slice(2));
  const session = readStackSession<LocalSession>(args.stateDir);
  if (!session && !process.env.DYNAMODB_ENDPOINT && !process.env.TABLE_NAME) {
    throw new KeysError(noStackMessage(args.stateDir));
  }
  // Point the shared DynamoDB client at the stack before anything reads the configuration.
  pointAtTable(session);
  const org = args.org ?? session?.orgId ?? 'org_demo';

  const keysRepo = await import('../shared/db/api-keys-repo');
  const { createApiKey } = await import('../shared/domain/apikeys/mint');
  const { getUser } = await import('../shared/db/users-repo');
  const { organizationExists } = await import('../shared/db/organizations-repo');

  if (args.command === 'create') {
    // A key belongs to an organisation that exists (docs/onboarding.md).
    if (!(await organizationExists(org))) {
      throw new KeysError(
        `${org} is not a registered organisation: an org admin's first sign-in registers it, or npm run org -- create ${org}`,
      );
    }
    const kind = args.principal.startsWith('org_') ? 'org' : 'user';
    if (kind === 'org' && args.principal !== org) {
      throw new UsageError(`an organisation key belongs to the org itself: use --principal ${org}`);
    }
    if (kind === 'user' && !(await getUser(org, args.principal))) {
      throw new KeysError(`${args.principal} is not a registered user of ${org} (PUT /iac/users/{id} first)`);
    }
    const created = await createApiKey(org, args.principal, kind, args.name, 'cli');
    process.stdout.write(`${created.key}\n`);
    process.stderr.write(
      `${kind} key ${created.id} (${created.prefix}…) for ${args.principal} in ${org}; it is shown once\n`,
    );
    return;
  }
  if (args.command === 'list') {
    const items = args.principal
      ? await keysRepo.listPrincipalKeys(org, args.principal)
      : (await keysRepo.listOrgKeys(org, 100)).items;
    for (const k of items) process.stdout.write(`${JSON.stringify(keysRepo.publicView(k))}\n`);
    process.stderr.write(`${items.length} key(s) in ${org}\n`);
    return;
  }
  const key = await keysRepo.findOrgKey(org, args.id);
  if (!key) throw new KeysError(`no key ${args.id} in ${org}`);
  if (key.revokedAt) {
    process.stderr.write(`${args.id} was already revoked at ${key.revokedAt}\n`);
    return;
  }
  await keysRepo.revokeApiKey(org, key, new Date().toISOString());
  process.stderr.write(`revoked ${args.id} (${key.prefix}…) of ${key.principalId}\n`);
}

if (require.main === module) {
  main().catch((error) => {
    if (isConnectionRefused(error)) {
      process.stderr.write(
        `npm run keys: cannot reach DynamoDB at ${process.env.DYNAMODB_ENDPOINT ?? 'its endpoint'}: ` +
          'is the stack running (npm start)? It reads the endpoint from .local/session.json.\n',
      );
      process.exit(1);
    }
    if ((error as Error | null)?.name === 'CredentialsProviderError') {
      process.stderr.write(
        `npm run keys: no AWS credentials for table ${process.env.TABLE_NAME ?? '(default)'}: ` +
          'configure them (AWS_PROFILE, …), or start the local stack with npm start.\n',
      );
      process.exit(1);
    }
    const message =
      error instanceof UsageError
        ? `${error.message}\n${USAGE}`
        : error instanceof KeysError
          ? error.message
          : String(error?.stack ?? error);
    process.stderr.write(`npm run keys: ${message}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
}
