/**
 * A scope: a named slice of the organisation's cost (its `filters`, the same free-form filter object
 * as a dashboard's `conditions`) that dashboards, alerts and widgets can be assigned to. Who may use
 * it is given by `teamIds`: an empty list opens it to every member; otherwise members of one of
 * those teams (and admins) may assign it.
 */
export interface Scope {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  teamIds: string[];
  filters: Record<string, unknown> | null;
  createdById: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}
