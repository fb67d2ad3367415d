import type { AnyOperation } from '../../../lib/api/operation.js';
import type { PublishedOperation } from './published-contract.js';

/**
 * Finds the operation a request names, from the published contract's methods and path templates
 * (not the bot's table: a path the bot gets wrong is a 404 here, as it would be at the provider).
 * Text ids may contain a slash (`private/15`, `mysql/8.0.30`), sent as is or percent-encoded.
 */

interface Route {
  published: PublishedOperation;
  /** The bot's row for the same operation: its id names the operation in faults and logs. */
  op: AnyOperation;
  pattern: RegExp;
  names: string[];
  /** Literal segments rank before parameters: `/managed/credentials/sshkey` beats `{credentialId}`. */
  literalSegments: number;
}

export interface RouteMatch {
  published: PublishedOperation;
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

function routeOf(published: PublishedOperation, op: AnyOperation): Route {
  const names: string[] = [];
  let literalSegments = 0;
  const source = published.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) {
        if (segment) literalSegments++;
        return escapeRegExp(segment);
      }
      const name = param[1] ?? '';
      names.push(name);
      return published.parameters.get(name)?.type === 'string' ? '(.+?)' : '([^/]+)';
    })
    .join('/');
  return { published, op, pattern: new RegExp(`^${source}/?$`), names, literalSegments };
}

export class Router {
  readonly #routes: Route[];

  /** `served` pairs each served operation of the contract with the bot's row of the same name. */
  constructor(served: readonly { published: PublishedOperation; op: AnyOperation }[]) {
    this.#routes = served
      .map(({ published, op }) => routeOf(published, op))
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** `path` is below the API base (`/volumes/12`). */
  match(method: string, path: string): RouteResult {
    let pathKnown = false;
    for (const route of this.#routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (route.published.method !== method) continue;
      const pathParams: Record<string, string> = {};
      route.names.forEach((name, index) => {
        pathParams[name] = safeDecode(found[index + 1] ?? '');
      });
      return { kind: 'found', match: { published: route.published, op: route.op, pathParams } };
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
