import type { AuthContext } from '../../../shared/auth/principal';
import { whoAmI } from '../../../shared/domain/admin/me';
import { httpRoute } from '../../../shared/http/handler';
import { routeState } from '../../../shared/http/middlewares';
import { getMe as def } from '../../../shared/routes/admin';

export const handler = httpRoute(def, async ({ principal, event }) => {
  // How the caller signed in: what the credential check proved (a session, or which API key).
  const { credential, keyId } = routeState(event).auth as AuthContext;
  return whoAmI(principal, { credential, ...(keyId ? { keyId } : {}) });
});
