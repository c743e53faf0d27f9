import { readOrganization } from '../../../shared/domain/admin/organization';
import { httpRoute } from '../../../shared/http/handler';
import { getOrganizationSettings as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal }) => readOrganization(principal));
