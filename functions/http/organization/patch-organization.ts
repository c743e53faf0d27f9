import { changeOrganization } from '../../../shared/domain/admin/organization';
import { httpRoute } from '../../../shared/http/handler';
import { patchOrganizationSettings as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, body }) => changeOrganization(principal, body));
