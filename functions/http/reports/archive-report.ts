import { archiveReport } from '../../../shared/domain/reports/service';
import { httpRoute } from '../../../shared/http/handler';
import { archiveReport as def } from '../../../shared/routes/reports';

export const handler = httpRoute(def, async ({ principal, params }) => archiveReport(principal, params.id));
