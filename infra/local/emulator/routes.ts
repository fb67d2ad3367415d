import type { AnyOperation, HttpMethod } from '../../../lib/api/operation.js';
import { fieldKindOf } from './request-input.js';

/**
 * Finds the operation a request names, from the operations table's method and path templates.
 * Text ids may contain a slash (`private/15`, `mysql/8.0.30`), sent as is or percent-encoded.
 */

interface Route {
  op: AnyOperation;
  pattern: RegExp;
  names: string[];
  /** Literal segments rank before parameters: `/managed/credentials/sshkey` beats `{credentialId}`. */
  literalSegments: number;
}

export interface RouteMatch {
  op: AnyOperation;
  pathParams: Record<string, string>;
}

export type RouteResult =
  | { kind: 'found'; match: RouteMatch }
  | { kind: 'wrong-method' }
  | { kind: 'unknown' };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function routeOf(op: AnyOperation): Route {
  const names: string[] = [];
  let literalSegments = 0;
  const source = op.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) {
        if (segment) literalSegments++;
        return escapeRegExp(segment);
      }
      const name = param[1] ?? '';
      names.push(name);
      return fieldKindOf(op, name) === 'string' ? '(.+?)' : '([^/]+)';
    })
    .join('/');
  return { op, pattern: new RegExp(`^${source}/?$`), names, literalSegments };
}

export class Router {
  readonly #routes: Route[];

  constructor(operations: readonly AnyOperation[]) {
    this.#routes = operations.map(routeOf).sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** `path` is below the API base (`/volumes/12`). */
  match(method: string, path: string): RouteResult {
    let pathKnown = false;
    for (const route of this.#routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (route.op.method !== (method as HttpMethod)) continue;
      const pathParams: Record<string, string> = {};
      route.names.forEach((name, index) => {
        pathParams[name] = safeDecode(found[index + 1] ?? '');
      });
      return { kind: 'found', match: { op: route.op, pathParams } };
    }
    return pathKnown ? { kind: 'wrong-method' } : { kind: 'unknown' };
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
