import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { buildOpenApi, type OpenApiDocument, type OperationObject } from '../../infra/openapi';
import { routes } from '../../shared/routes';

/**
 * The contract check of every e2e answer: `api()` (./session.ts) hands each response here, and an
 * answer whose status the OpenAPI document does not declare for that operation, or a failure whose
 * body (success or failure) does not match the schema declared for that status, throws, failing
 * the test that received it. So the e2e suites together prove the document (generated from the
 * route manifest) declares what the API answers (docs/security.md).
 * Paths the document does not know (`/_local/*`, `/openapi.json`, the JWKS) are not checked.
 */

const DOCUMENT_ID = 'openapi.json';

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  op: OperationObject;
}

let compiled:
  | { operations: Operation[]; ajv: Ajv2020; validators: Map<string, ValidateFunction> }
  | undefined;

function contract() {
  if (compiled) return compiled;
  // Component references become absolute, so any sub-schema can be compiled on its own.
  const doc = JSON.parse(
    JSON.stringify(buildOpenApi(routes)).replaceAll(
      '"#/components/schemas/',
      `"${DOCUMENT_ID}#/components/schemas/`,
    ),
  ) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema({ $id: DOCUMENT_ID, components: doc.components });
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(item)) {
      if (op) operations.push({ method: method.toUpperCase(), template, pattern, op });
    }
  }
  // A literal segment wins over a parameter (`/reports/preview-widget` over `/reports/{id}`).
  const params = (o: Operation) => o.template.split('{').length;
  operations.sort((a, b) => params(a) - params(b));
  compiled = { operations, ajv, validators: new Map() };
  return compiled;
}

/** The document's operation for a request, or undefined for a path it does not describe. */
export function operationFor(method: string, path: string): Operation | undefined {
  const pathname = path.split('?')[0] ?? path;
  return contract().operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(pathname));
}

/** Throws when an answer breaks the document; returns quietly otherwise. */
export function checkContract(method: string, path: string, status: number, body: unknown): void {
  const found = operationFor(method, path);
  if (!found) return;
  const where = `${method.toUpperCase()} ${found.template} (${path})`;
  const response = found.op.responses[String(status)];
  if (!response) {
    throw new Error(
      `OpenAPI contract: ${where} answered ${status}, which the document does not declare ` +
        `(declared: ${Object.keys(found.op.responses).join(', ')}); body ${JSON.stringify(body)?.slice(0, 300)}. ` +
        'Declare it with the route’s `statuses` (shared/http/route.ts) or fix the route.',
    );
  }
  const schema = response.content?.['application/json']?.schema;
  if (!schema || status === 204 || body === null || body === '') return;
  const { ajv, validators } = contract();
  const key = `${found.op.operationId} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(
      `OpenAPI contract: ${where} answered ${status} with a body the document does not describe: ` +
        `${ajv.errorsText(validate.errors)}; body ${JSON.stringify(body)?.slice(0, 300)}`,
    );
  }
}
