import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, db, isTransactionCanceled, tableName } from './client';
import { getItem, type Item } from './items';
import { type ItemKey, stripKeys } from './keys';
import {
  conditionHeld,
  ifConditionFails,
  insertIfAbsent,
  insertNew,
  notFound,
  replaceVersioned,
  versionConflict,
} from './writes';

/**
 * One kind of item of the single table, declared once (in the spirit of ElectroDB, our own code):
 * its `entity` name and `schemaVersion`, its table key, its index attributes and how a record maps
 * to and from the stored attributes. The item it writes is `{ ...key, ...indexes, entity,
 * schemaVersion, ...attributes }`, exactly as the repositories wrote it by hand before, so stored
 * data reads as it did. A repository keeps only its access patterns (queries, updates, transactions).
 *
 * Adopting it for a new record type (a new repository):
 *   const budgets = defineEntity({ name: 'budget', schemaVersion: 1,
 *     key: (b: Budget) => keys.budget(b.organizationId, b.id),
 *     indexes: (b) => keys.budgetsIndex(…) });
 *   await budgets.insert(b); await budgets.replace(b, expected); budgets.read(item);
 */
/** `W` is the record written, `R` the one read back (the same unless `read` says otherwise). */
export interface EntityDef<W, R = W> {
  /** The `entity` attribute of every item of this kind. */
  name: string;
  /** The `schemaVersion` attribute; leave it out for the kinds whose items never carried one. */
  schemaVersion?: number;
  /**
   * The table key (`keys.…`) of a record; absent for a kind written only through `SET` updates
   * (the update names its key), which borrows the envelope alone.
   */
  key?: (record: W) => ItemKey;
  /** GSI attributes (`keys.…Index`) of a record, when it is indexed. */
  indexes?: (record: W) => Record<string, string>;
  /** The attributes stored for a record; the record itself unless given. */
  attributes?: (record: W) => object;
  /** The record of a stored item; the item without its keys and envelope unless given. */
  read?: (item: Item) => R;
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface Entity<W, R = W> {
  readonly name: string;
  /** `{ entity, schemaVersion }` as every item of this kind carries it. */
  readonly envelope: Readonly<Item>;
  /**
   * The envelope as an UpdateExpression part (`entity = :entity, schemaVersion = :sv`) with its
   * values, for upserts that write the item through `SET`.
   */
  readonly envelopeSet: { expression: string; values: Item };
  /** The stored item of a record. */
  item(record: W): Item;
  /** An item of this kind that is not written from a record: its key (and indexes), the envelope, then `attributes`. */
  stamp(key: ItemKey & Record<string, unknown>, attributes: object): Item;
  /** The record of a stored item. */
  read(item: Item): R;
  /** The record at `key`, strongly consistent. */
  get(key: ItemKey): Promise<R | undefined>;
  /** Writes a new record; a second write of the same key fails. */
  insert(record: W): Promise<void>;
  /** Writes a record unless its key is taken; answers whether it wrote. */
  insertIfAbsent(record: W): Promise<boolean>;
  /** Replaces a record while its stored `version` is still `expectedVersion` (409 `VERSION_CONFLICT`). */
  replace(record: W, expectedVersion: number): Promise<void>;
  /** Writes a record, overwriting whatever the key holds. */
  put(record: W): Promise<void>;
  /** Writes a record if `condition` holds; answers whether it did. */
  putIf(record: W, condition: Condition): Promise<boolean>;
  /** Deletes the item at `key`; a missing one is a 404 `NOT_FOUND`. */
  remove(key: ItemKey): Promise<void>;
  /** A transaction's put of a record, conditional on the key being free unless `condition` says otherwise. */
  transactPut(record: W, condition?: Condition | null): TransactItem;
}

/** A condition expression with its names and values. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Item;
}

export function defineEntity<W, R = W>(def: EntityDef<W, R>): Entity<W, R> {
  const envelope: Item =
    def.schemaVersion === undefined
      ? { entity: def.name }
      : { entity: def.name, schemaVersion: def.schemaVersion };
  const stamp = (key: ItemKey & Record<string, unknown>, attributes: object): Item => ({
    ...key,
    ...envelope,
    ...attributes,
  });
  const item = (record: W): Item => {
    if (!def.key) throw new Error(`${def.name} items are written by update only`);
    return stamp(
      { ...def.key(record), ...def.indexes?.(record) },
      def.attributes ? def.attributes(record) : (record as object),
    );
  };
  const read = def.read ?? ((stored: Item) => stripKeys(stored) as unknown as R);
  return {
    name: def.name,
    envelope,
    envelopeSet: {
      expression:
        def.schemaVersion === undefined ? 'entity = :entity' : 'entity = :entity, schemaVersion = :sv',
      values:
        def.schemaVersion === undefined
          ? { ':entity': def.name }
          : { ':entity': def.name, ':sv': def.schemaVersion },
    },
    item,
    stamp,
    read,
    get: (key) => getItem(key, read, { consistent: true }),
    insert: (record) => insertNew(item(record)),
    insertIfAbsent: (record) => insertIfAbsent(item(record)),
    replace: (record, expectedVersion) => replaceVersioned(item(record), expectedVersion),
    put: async (record) => {
      await db().send(new PutCommand({ TableName: tableName(), Item: item(record) }));
    },
    putIf: (record, condition) =>
      conditionHeld(
        db().send(
          new PutCommand({ TableName: tableName(), Item: item(record), ...conditionInput(condition) }),
        ),
      ),
    remove: async (key) => {
      await ifConditionFails(
        db().send(
          new DeleteCommand({
            TableName: tableName(),
            Key: key,
            ConditionExpression: 'attribute_exists(pk)',
          }),
        ),
        notFound,
      );
    },
    transactPut: (record, condition = { expression: 'attribute_not_exists(pk)' }) => ({
      Put: {
        TableName: tableName(),
        Item: item(record),
        ...(condition ? conditionInput(condition) : {}),
      },
    }),
  };
}

/** The `ConditionExpression` and its names and values, as a command's input spells them. */
export function conditionInput(condition: Condition) {
  return {
    ConditionExpression: condition.expression,
    ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
    ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
  };
}

/**
 * Runs a transaction and, when DynamoDB cancels it, answers `onCanceled(codes)` instead (the
 * cancellation reason of each item in order, e.g. `['ConditionalCheckFailed', 'None']`): a value,
 * or an error it throws. Other errors pass. With `idempotent`, the SDK's own retries reuse one
 * client token, so a retried transaction that did commit is no false conflict.
 */
export async function transact<F = never>(
  items: TransactItem[],
  onCanceled: (codes: string[], error: unknown) => F = rethrow,
  opts: { idempotent?: boolean } = {},
): Promise<true | F> {
  return ifCanceled(
    db()
      .send(
        new TransactWriteCommand({
          TransactItems: items,
          ...(opts.idempotent ? { ClientRequestToken: randomUUID() } : {}),
        }),
      )
      .then(() => true as const),
    onCanceled,
  );
}

/** Runs a transaction's send and, when DynamoDB cancels it, answers `onCanceled(codes, error)` instead. */
export async function ifCanceled<T, F>(
  write: Promise<T>,
  onCanceled: (codes: string[], error: unknown) => F,
): Promise<T | F> {
  try {
    return await write;
  } catch (error) {
    if (isTransactionCanceled(error)) return onCanceled(cancellationCodes(error), error);
    throw error;
  }
}

function rethrow(_codes: string[], error: unknown): never {
  throw error;
}

/** `onCanceled` of a transaction whose first item's condition failed: `onFailed()`; any other cancellation is rethrown. */
export function firstConditionFailed<F>(onFailed: () => F) {
  return (codes: string[], error: unknown): F => {
    if (codes[0] === 'ConditionalCheckFailed') return onFailed();
    throw error;
  };
}

/**
 * `onCanceled` of a versioned save: a failed condition or a concurrent transaction on the same
 * items is a 409 `VERSION_CONFLICT`; any other cancellation is rethrown.
 */
export function conflictOnCancel(codes: string[], error: unknown): never {
  if (codes.some((c) => c === 'ConditionalCheckFailed' || c === 'TransactionConflict')) versionConflict();
  throw error;
}

/**
 * An UpdateCommand's `SET` of every attribute of `fields` (each through a placeholder, so no name
 * meets a reserved word), with its names and values.
 */
export function setAll(fields: Record<string, unknown>) {
  const names = Object.keys(fields);
  return {
    UpdateExpression: `SET ${names.map((_, i) => `#a${i} = :v${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#a${i}`, n])),
    ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:v${i}`, fields[n]])),
  };
}
