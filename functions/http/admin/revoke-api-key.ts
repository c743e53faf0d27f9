import { revokeKey } from '../../../shared/domain/apikeys/service';
import { httpRoute } from '../../../shared/http/handler';
import { revokeApiKey as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, params }) => revokeKey(principal, params.id));
