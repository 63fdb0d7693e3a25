/** Labels already rewritten: there are as few as there are routes and procedures (unknown names are one label). */
const seen = new Map<string, string>();

/**
 * What the request log names a request by: the procedure, or the REST route's pattern with its
 * parameters written as OpenAPI writes them (`GET /api/v1/leads/{id}`), never the path itself,
 * which may carry an integrator's external id or an email.
 */
export function loggedProcedureOf(metricRoute: string): string {
  let label = seen.get(metricRoute);
  if (label === undefined) {
    label = metricRoute.replace(/:(\w+)/g, '{$1}');
    seen.set(metricRoute, label);
  }
  return label;
}
