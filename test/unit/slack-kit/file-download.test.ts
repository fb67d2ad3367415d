import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../../infra/local/slack/server.js';
import { BOT_SCOPES } from '../../../lib/slack-kit/app-scopes.js';
import { downloadSlackFile, type SlackFile } from '../../../lib/slack-kit/file-download.js';

/** A file given to the app, read from the Slack stand-in as the bot reads it. */

let standIn: SlackStandIn;
const BYTES = Buffer.from('settings: 1\n'.repeat(100), 'utf8');

beforeAll(async () => {
  standIn = await startSlackStandIn();
});

afterAll(async () => {
  await standIn.close();
});

function storedFile(id: string, bytes = BYTES): SlackFile {
  standIn.store.putFile({ id, name: 'settings.yaml', declaredLength: bytes.length, bytes, channels: [] });
  return {
    id,
    name: 'settings.yaml',
    size: bytes.length,
    url_private: `${standIn.url}/files/${id}/settings.yaml`,
  };
}

const options = (overrides: Partial<Parameters<typeof downloadSlackFile>[1]> = {}) => ({
  botToken: standIn.botToken,
  slackApiUrl: standIn.apiUrl,
  maxBytes: 4096,
  timeoutMs: 2_000,
  ...overrides,
});

const gets = () => standIn.store.callsTo('url_private').length;

describe('downloadSlackFile', () => {
  it('reads the bytes with the bot token', async () => {
    const download = await downloadSlackFile(storedFile('F0DOWNLOAD01'), options());
    expect(download).toEqual({ kind: 'downloaded', bytes: BYTES });
  });

  it('refuses a file Slack says is larger than the most it takes, without fetching it', async () => {
    const before = gets();
    const download = await downloadSlackFile(storedFile('F0DOWNLOAD02'), options({ maxBytes: 100 }));
    expect(download).toEqual({ kind: 'too_large', size: BYTES.length });
    expect(gets()).toBe(before);
  });

  it('stops reading at the most it takes when the answer is longer than Slack said', async () => {
    const file = { ...storedFile('F0DOWNLOAD03'), size: 10 };
    expect(await downloadSlackFile(file, options({ maxBytes: 100 }))).toEqual({
      kind: 'too_large',
      size: undefined,
    });
  });

  it("does not take Slack's sign-in page for the file (a token without files:read)", async () => {
    const narrow = await startSlackStandIn({
      botScopes: BOT_SCOPES.filter((scope) => scope !== 'files:read'),
    });
    try {
      narrow.store.putFile({
        id: 'F0DOWNLOAD04',
        name: 'a.yaml',
        declaredLength: 3,
        bytes: Buffer.from('a: 1'),
        channels: [],
      });
      const file = {
        id: 'F0DOWNLOAD04',
        name: 'a.yaml',
        size: 4,
        url_private: `${narrow.url}/files/F0DOWNLOAD04/a.yaml`,
      };
      const download = await downloadSlackFile(
        file,
        options({ botToken: narrow.botToken, slackApiUrl: narrow.apiUrl }),
      );
      expect(download).toEqual({ kind: 'not_given', status: 200, signInPage: true });
    } finally {
      await narrow.close();
    }
  });

  it('answers the status Slack gave instead of the file', async () => {
    standIn.failFileDownloads({ status: 503, times: 1 });
    const download = await downloadSlackFile(storedFile('F0DOWNLOAD05'), options());
    expect(download).toEqual({ kind: 'not_given', status: 503, signInPage: false });
  });

  it('gives up on a download Slack does not answer within the time given', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const base = `http://127.0.0.1:${port}`;
      const file = { id: 'F0SILENT', name: 'a.yaml', size: 4, url_private: `${base}/files/F0SILENT/a.yaml` };
      const download = await downloadSlackFile(
        file,
        options({ slackApiUrl: `${base}/api/`, timeoutMs: 150 }),
      );
      expect(download).toEqual({ kind: 'unreachable', code: 'ANSWER_TIMEOUT' });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('never sends the token to a URL that is not Slack', async () => {
    let requests = 0;
    const elsewhere = createServer((_request, response) => {
      requests += 1;
      response.end('a: 1');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = elsewhere.address() as AddressInfo;
      const file = {
        id: 'F0ELSEWHERE',
        name: 'a.yaml',
        size: 4,
        url_private: `http://127.0.0.1:${port}/a.yaml`,
      };
      expect(await downloadSlackFile(file, options())).toEqual({ kind: 'not_slack' });
      expect(requests).toBe(0);
    } finally {
      elsewhere.close();
    }
  });
});
