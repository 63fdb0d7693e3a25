import { TRPC_CODES } from '../../helpers/rpc-edge-fixtures';
import type { RawResponse } from '../../helpers/raw-http';

/** Every answer a hostile call may get: never a 5xx, never 401 (the key is valid), never a bare status. */
const EXPECTED_STATUSES = new Set([200, 400, 403, 404, 405, 409, 413, 415, 422]);
const CODE_BY_NAME: Record<string, { status: number; number: number }> = TRPC_CODES;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function keysWithin(value: Record<string, unknown>, allowed: string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

/**
 * What is wrong with an answer of an action endpoint, or undefined when it is the documented
 * success envelope `{"result":{"data":{"json","meta"?}}}` or error envelope
 * `{"error":{"json":{message, code, data:{code, httpStatus, path?, issues?}}}}` with a matching status.
 */
export function envelopeProblem(res: RawResponse): string | undefined {
  if (!EXPECTED_STATUSES.has(res.status)) return `unexpected status ${res.status}`;
  const type = String(res.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `content-type ${JSON.stringify(type)}`;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return 'the body is not JSON';
  }
  return res.status === 200 ? successProblem(body) : errorProblem(body, res.status);
}

function successProblem(body: unknown): string | undefined {
  if (!isObject(body) || !keysWithin(body, ['result']) || !isObject(body.result) || !keysWithin(body.result, ['data'])) return 'not a success envelope';
  const data = body.result.data;
  if (!isObject(data) || !('json' in data) || !keysWithin(data, ['json', 'meta'])) return 'result.data is not {json, meta?}';
  return undefined;
}

function errorProblem(body: unknown, status: number): string | undefined {
  if (!isObject(body) || !keysWithin(body, ['error']) || !isObject(body.error) || !keysWithin(body.error, ['json', 'meta'])) return 'not an error envelope';
  const json = body.error.json;
  if (!isObject(json) || !keysWithin(json, ['message', 'code', 'data'])) return 'error.json is not {message, code, data}';
  if (typeof json.message !== 'string' || json.message.length === 0) return 'the message is not a non-empty string';
  if (/\n\s+at |\.(ts|js):\d+/.test(json.message)) return 'the message carries a stack trace';
  const data = json.data;
  if (!isObject(data) || !keysWithin(data, ['code', 'httpStatus', 'path', 'issues'])) return 'error.json.data has unknown fields';
  const code = typeof data.code === 'string' ? CODE_BY_NAME[data.code] : undefined;
  if (!code) return `unknown error code ${JSON.stringify(data.code)}`;
  if (code.status !== status || data.httpStatus !== status || json.code !== code.number) return `code ${String(data.code)} does not match status ${status}`;
  if ('path' in data && typeof data.path !== 'string') return 'data.path is not a string';
  if ('issues' in data && !validIssues(data.issues)) return 'data.issues is not a list of {path, message}';
  return undefined;
}

function validIssues(issues: unknown): boolean {
  return (
    Array.isArray(issues) &&
    issues.every((issue) => isObject(issue) && typeof issue.message === 'string' && Array.isArray(issue.path) && issue.path.every((p) => typeof p === 'string' || typeof p === 'number'))
  );
}
