/**
 * `npm run org -- <command> [flags]`: the organisations of the running local stack or of a
 * deployed table, written with the same repository code the service uses (the same conditional
 * write as an org admin's first sign-in, so the two never race).
 *
 *   create org_… [--name NAME] [--timezone AREA/CITY]   registers it; an existing one is left as it is
 *   list                                                  every organisation, as JSON lines
 *   show org_…                                            one organisation as JSON (exit 1 if unknown)
 *   update org_… [--name] [--timezone] [--reporting-currency]   changes its settings (PATCH /organization)
 *
 * Where: `--table NAME` (with `--region`, else $AWS_REGION / $AWS_DEFAULT_REGION) is a deployed
 * table, reached with the AWS default credential chain (AWS_PROFILE, …): the stack's `TableName`
 * output. Without it: DYNAMODB_ENDPOINT if set, else the local stack of `<state-dir>/session.json`
 * (`--state-dir`, $LOCAL_STATE_DIR or .local), else TABLE_NAME with the AWS default chain; with
 * none of these it says in one line that no stack is running (exit 1).
 */
import { resolve } from 'node:path';
import * as v from 'valibot';
import {
  ORGANIZATION_NAME_MAX as MAX_NAME,
  PatchOrganizationBody,
  type PatchOrganizationInput,
} from '../shared/domain/admin/schemas';
import { DASHBOARD_CURRENCIES } from '../shared/enums';
import { isTimeZone } from '../shared/validation';
import { isConnectionRefused, printedHelp, UsageError } from './lib/cli';
import { noStackMessage, pointAtTable, readStackSession, type TableSession } from './lib/stack-table';

export { UsageError } from './lib/cli';

const ORG_ID = /^org_[A-Za-z0-9_-]{1,64}$/;

const USAGE = [
  'usage: npm run org -- create org_… [--name NAME] [--timezone AREA/CITY] [WHERE]',
  '       npm run org -- list [WHERE]',
  '       npm run org -- show org_… [WHERE]',
  '       npm run org -- update org_… [--name NAME] [--timezone AREA/CITY] [--reporting-currency CUR] [WHERE]',
  '  Registers, lists, shows and updates organisations. An organisation is also registered by the first',
  '  request with a session JWT of one of its admins (role claim admin); uploads and API keys need one.',
  '  create      idempotent: an organisation that exists is shown and left unchanged (exit 0)',
  '  --name      display name (default: the id)        --timezone  IANA zone for reports (default: UTC)',
  '  update      changes the settings given (at least one), keeps the others; exit 1 if it does not exist',
  `  --reporting-currency  the currency of figures asked without one: ${DASHBOARD_CURRENCIES.join(', ')} (default USD);`,
  '              a change queues a refresh that recomputes the dimension candidates and values in it',
  '  WHERE: the local stack by default (--state-dir DIR, default $LOCAL_STATE_DIR or .local), or a',
  '  deployed table: --table NAME [--region REGION] with AWS credentials (AWS_PROFILE, …); the table',
  "  name is the stack's TableName output.",
  '  e.g. npm run org -- create org_acme --name "Acme Corp" --timezone Europe/Paris',
].join('\n');

/** A well-formed request that cannot be done (an unknown organisation): exit 1, without the usage. */
export class OrgError extends Error {
  override name = 'OrgError';
}

interface Where {
  stateDir: string;
  table?: string;
  region?: string;
}

export type OrgCommand =
  | ({ command: 'create'; org: string; name: string; timezone: string } & Where)
  | ({ command: 'list' } & Where)
  | ({ command: 'show'; org: string } & Where)
  | ({ command: 'update'; org: string; settings: PatchOrganizationInput } & Where);

const WHERE_FLAGS = ['--state-dir', '--table', '--region'];
const FLAGS: Record<OrgCommand['command'], string[]> = {
  create: ['--name', '--timezone', ...WHERE_FLAGS],
  list: WHERE_FLAGS,
  show: WHERE_FLAGS,
  update: ['--name', '--timezone', '--reporting-currency', ...WHERE_FLAGS],
};

export function parseOrgArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): OrgCommand {
  const [command, ...rest] = argv;
  if (command !== 'create' && command !== 'list' && command !== 'show' && command !== 'update') {
    throw new UsageError(command ? `Unknown command ${command}` : 'A command is required');
  }
  const values: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = String(rest[i]);
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const [flag, inline] = eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (!FLAGS[command].includes(flag)) throw new UsageError(`Unknown argument ${a} for ${command}`);
    const value = inline ?? rest[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) {
      throw new UsageError(`${flag} needs a value`);
    }
    values[flag.slice(2)] = value;
  }
  const where: Where = {
    stateDir: resolve(values['state-dir'] ?? env.LOCAL_STATE_DIR ?? '.local'),
    ...(values.table ? { table: values.table } : {}),
    ...(values.region ? { region: values.region } : {}),
  };
  if (values.region && !values.table) throw new UsageError('--region goes with --table');
  if (command === 'list') {
    if (positional.length) throw new UsageError(`Unexpected argument ${positional[0]} for list`);
    return { command, ...where };
  }
  if (positional.length !== 1) throw new UsageError(`${command} takes one organisation id (org_…)`);
  const org = positional[0] as string;
  if (!ORG_ID.test(org)) {
    throw new UsageError(`the organisation id must look like org_… (letters, digits, _ and -), got ${org}`);
  }
  if (command === 'show') return { command, org, ...where };
  if (command === 'update') {
    const body = {
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.timezone !== undefined ? { timezone: values.timezone } : {}),
      ...(values['reporting-currency'] !== undefined
        ? { reportingCurrency: values['reporting-currency'].toUpperCase() }
        : {}),
    };
    // The route's own validation, so the command and PATCH /organization accept the same values.
    const parsed = v.safeParse(PatchOrganizationBody, body);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      const key = v.getDotPath(issue);
      const flag = key === 'reportingCurrency' ? '--reporting-currency' : key ? `--${key}` : 'update';
      throw new UsageError(`${flag}: ${issue.message}`);
    }
    return { command, org, settings: parsed.output, ...where };
  }
  const name = values.name ?? org;
  if (name.trim() === '' || name.length > MAX_NAME) {
    throw new UsageError(`--name must be 1 to ${MAX_NAME} characters`);
  }
  const timezone = values.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) throw new UsageError(`--timezone ${timezone} is not an IANA time zone`);
  return { command, org, name: name.trim(), timezone, ...where };
}

/** Points the shared DynamoDB client at the chosen table; answers a description of it. */
export function target(args: Where, env: NodeJS.ProcessEnv = process.env): string {
  if (args.table) {
    env.TABLE_NAME = args.table;
    const region = args.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    if (region) env.AWS_REGION = region;
    delete env.DYNAMODB_ENDPOINT;
    return `table ${args.table} (${env.AWS_REGION ?? 'us-east-1'})`;
  }
  const session = env.DYNAMODB_ENDPOINT
    ? undefined
    : readStackSession<
        TableSession & {
          endpoints?: { sqs?: string };
          queues?: Record<string, { url?: string }>;
        }
      >(args.stateDir);
  if (!env.DYNAMODB_ENDPOINT && !session?.endpoints?.dynamodb && !env.TABLE_NAME) {
    throw new OrgError(
      noStackMessage(args.stateDir, 'or give --table NAME (a deployed table, with AWS credentials)'),
    );
  }
  pointAtTable(session, env);
  // The refresh a new reporting currency queues goes to the local stack's queue (in AWS, or
  // without a session, it stays in the outbox for the outbox sweep).
  if (session?.endpoints?.sqs && session.queues?.['warehouse-refresh']?.url) {
    env.SQS_ENDPOINT ??= session.endpoints.sqs;
    env.QUEUE_URL_WAREHOUSE_REFRESH ??= session.queues['warehouse-refresh'].url;
  }
  if (env.DYNAMODB_ENDPOINT) {
    return `the local stack (${env.DYNAMODB_ENDPOINT}, table ${env.TABLE_NAME ?? 'cost-management'})`;
  }
  return `table ${env.TABLE_NAME} (${env.AWS_REGION ?? 'us-east-1'})`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (printedHelp(argv, USAGE)) return;
  const args = parseOrgArgs(argv);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const where = target(args);
  const repo = await import('../shared/db/organizations-repo');

  if (args.command === 'create') {
    const created = await repo.registerOrganization({
      id: args.org,
      name: args.name,
      timezone: args.timezone,
      createdAt: new Date().toISOString(),
      registeredVia: 'cli',
    });
    const org = await repo.getOrganization(args.org);
    process.stdout.write(`${JSON.stringify(org)}\n`);
    process.stderr.write(
      created
        ? `registered ${args.org} in ${where}\n`
        : `${args.org} already exists in ${where} (registered ${org?.createdAt ?? '?'}); nothing changed\n`,
    );
    return;
  }
  if (args.command === 'update') {
    const { changeOrganizationSettings } = await import('../shared/domain/admin/organization');
    const changed = await changeOrganizationSettings(args.org, args.settings);
    if (!changed) throw new OrgError(`no organisation ${args.org} in ${where}`);
    process.stdout.write(`${JSON.stringify(changed.organization)}\n`);
    process.stderr.write(
      `updated ${args.org} in ${where}${
        changed.refresh === 'sent'
          ? '; a refresh recomputes the dimension figures in the new reporting currency'
          : changed.refresh === 'queued'
            ? '; the refresh for the new reporting currency is in the outbox (the outbox sweep sends it)'
            : ''
      }\n`,
    );
    return;
  }
  if (args.command === 'show') {
    const org = await repo.getOrganization(args.org);
    if (!org) throw new OrgError(`no organisation ${args.org} in ${where}`);
    process.stdout.write(`${JSON.stringify(org)}\n`);
    return;
  }
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await repo.listOrganizations(cursor);
    for (const org of page.items) process.stdout.write(`${JSON.stringify(org)}\n`);
    count += page.items.length;
    cursor = page.cursor ?? undefined;
  } while (cursor);
  process.stderr.write(`${count} organisation(s) in ${where}\n`);
}

if (require.main === module) {
  main().catch((error) => {
    const name = (error as Error | null)?.name;
    let message: string;
    if (isConnectionRefused(error)) {
      message =
        `cannot reach DynamoDB at ${process.env.DYNAMODB_ENDPOINT ?? 'its endpoint'}: is the stack running ` +
        '(npm start)? It reads the endpoint from .local/session.json.';
    } else if (name === 'CredentialsProviderError') {
      message = `no AWS credentials for table ${process.env.TABLE_NAME}: configure them (AWS_PROFILE, …).`;
    } else if (name === 'ResourceNotFoundException') {
      message = `table ${process.env.TABLE_NAME} not found in ${process.env.AWS_REGION ?? 'us-east-1'}: give the stack's TableName output and its --region.`;
    } else if (error instanceof UsageError) {
      message = `${error.message}\n${USAGE}`;
    } else if (error instanceof OrgError) {
      message = error.message;
    } else {
      message = String(error?.stack ?? error);
    }
    process.stderr.write(`npm run org: ${message}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
}
