import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** API Gateway's events (HTTP API, payload 2.0) as fetch requests, and fetch responses back. */

export type AgentsResult = APIGatewayProxyStructuredResultV2;
export type AgentRoute = (event: APIGatewayProxyEventV2) => Promise<AgentsResult>;

/** The event as a fetch `Request` at the bot's public URL (what the SDK serves). */
export function requestOf(event: APIGatewayProxyEventV2, base: string): Request {
  const method = event.requestContext.http.method;
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  if (event.cookies?.length) headers.set('cookie', event.cookies.join('; '));
  const body =
    method === 'GET' || method === 'HEAD' || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(`${base}${event.rawPath}${query}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

/** A fetch `Response` as the Lambda's result (buffered: HTTP APIs do not stream). */
export async function resultOf(response: Response): Promise<AgentsResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  return {
    statusCode: response.status,
    headers,
    ...(cookies.length ? { cookies } : {}),
    body: await response.text(),
  };
}
