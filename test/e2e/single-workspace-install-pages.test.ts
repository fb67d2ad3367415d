import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { INSTALL_PATH, OAUTH_REDIRECT_PATH } from '../../lib/slack/oauth.js';
import { type E2E, startE2E } from '../support/e2e.js';

/**
 * The deployed HTTP API routes `GET /slack/install` and `GET /slack/oauth_redirect` to the Slack
 * function in either mode (serverless.yml). A one-workspace bot has no install pages: a visit is
 * a page that is not there (404), not a failed Slack request. Regression: Bolt took the visit for
 * a Slack request it could not parse, and the function answered 400 and logged an ERROR.
 */

let e2e: E2E;
const written: string[] = [];

beforeAll(async () => {
  e2e = await startE2E();
  expect(e2e.stack.installUrl).toBeUndefined();
});
afterAll(async () => {
  await e2e?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  written.length = 0;
});

/** Everything the function logs while `visit` runs (Powertools and Bolt both write to stdout/stderr). */
async function logsOf<T>(visit: () => Promise<T>): Promise<{ result: T; logs: string }> {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk as string, ...rest);
    }) as typeof stream.write);
  }
  const result = await visit();
  vi.restoreAllMocks();
  return { result, logs: written.join('') };
}

describe('the install pages of a one-workspace bot', () => {
  it.each([
    [INSTALL_PATH, ''],
    [OAUTH_REDIRECT_PATH, '?code=abc&state=xyz'],
  ])('answers GET %s with 404, quietly', async (path, query) => {
    const url = new URL(`${path}${query}`, e2e.stack.botUrl).toString();
    const { result, logs } = await logsOf(async () => {
      const response = await request(url);
      return { status: response.statusCode, body: await response.body.text() };
    });
    expect(result.status).toBe(404);
    expect(result.body).toBe('Not found');
    expect(logs).not.toMatch(/ERROR/);
  });

  it('still answers a Slack request on the events path', async () => {
    const delivery = await e2e.stack.workspace.command('U0ALICE', 'C0OPS', 'help');
    expect(delivery.status).toBe(200);
  });
});
