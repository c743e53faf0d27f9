/**
 * The paging of a list route whose records can be archived, as the domain's list functions take it:
 * the page size, the cursor when one is given, and `includeArchived=true` as a boolean.
 */
export function archivablePage<L>(query: { limit: L; cursor?: string; includeArchived?: 'true' | 'false' }): {
  limit: L;
  includeArchived: boolean;
  cursor?: string;
} {
  return {
    limit: query.limit,
    includeArchived: query.includeArchived === 'true',
    ...(query.cursor ? { cursor: query.cursor } : {}),
  };
}
