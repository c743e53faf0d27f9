import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** Sortable, prefixed identifiers (`rep_01J…`). The prefix makes a leaked id self-describing. */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}
