import type { WebClient } from '@slack/web-api';
import { SLASH_COMMAND } from '../commands/registry.js';
import { commandNameOf } from '../commands/usage.js';
import { runOperationWith } from '../core/operations.js';
import { shareFile } from '../slack-kit/file-share.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan, formatNumber } from '../slack-kit/text.js';
import { LIST_READ_PAGE_SIZE } from './list-reader.js';
import type { OperationRequest, RunnerDeps } from './operation-runner.js';
import { withoutSecretFields } from './render/items.js';
import { tokenProblemReply } from './token-resolution.js';

/**
 * The whole of a list as a file (the `--all` message's CSV and JSON buttons), as `linode-cli`
 * users get it with `--text`/`--json --all-rows`. It runs in the worker. Slack shares an upload
 * asynchronously, and a private file can only be shared where only its reader sees it: the
 * person's direct message with the app (`conversations.open`, then the upload with a comment
 * saying what it is), as the stats chart is delivered.
 */

export type ListFileFormat = 'csv' | 'json';

/** Items a file holds at most: ten reads of the API's largest page. */
export const LIST_FILE_MAX_ITEMS = 10 * LIST_READ_PAGE_SIZE;

export interface ListFileDeps extends RunnerDeps {
  readonly slack: WebClient;
}

export async function sendListFile(
  deps: ListFileDeps,
  request: OperationRequest,
  format: ListFileFormat,
  now: Date,
): Promise<Reply> {
  const { op, user } = request;
  const { page: _page, page_size: _pageSize, ...input } = request.input;
  const outcome = await runOperationWith(deps, request, {}, (client, options) =>
    client.listAll(op, input, {
      ...options,
      ...(op.pageParams ? { pageSize: LIST_READ_PAGE_SIZE } : {}),
      maxPages: LIST_FILE_MAX_ITEMS / LIST_READ_PAGE_SIZE,
    }),
  );
  if (outcome.kind === 'no_token') return tokenProblemReply(outcome);
  const read = outcome.output;
  const items = withoutSecretFields(read.data) as unknown[];
  const command = `${SLASH_COMMAND} ${commandNameOf(op)}`;
  if (items.length === 0) return notice(`${codeSpan(command)} has nothing to list now, so no file was sent.`);
  const count = `${formatNumber(items.length)} of ${formatNumber(read.results)}`;
  const cut =
    items.length < read.results
      ? ` It holds the first ${formatNumber(items.length)}: narrow the list with a filter for the others.`
      : '';
  const comment = `${codeSpan(command)}: ${count} as ${format.toUpperCase()}.${cut}`;

  const stamp = now.toISOString().slice(0, 16).replace(':', '');
  const share = await shareFile(
    deps.slack,
    { directMessageWith: user },
    {
      file: Buffer.from(format === 'csv' ? toCsv(items) : `${JSON.stringify(items, null, 2)}\n`, 'utf8'),
      filename: `${op.group}-${op.action}-${stamp}.${format}`,
      title: `${commandNameOf(op)} (${formatNumber(items.length)})`,
      comment,
    },
  );
  if (share.kind === 'no_direct_message')
    return notice(
      `:warning: The file could not be sent to you: your direct message with the app did not open (${share.code}).`,
    );
  if (share.kind === 'refused') return notice(`:warning: The file could not be uploaded (${share.code}).`);
  if (share.kind === 'in_doubt')
    return notice(
      `:hourglass_flowing_sand: Slack did not confirm the file's upload (${share.code}), so it may still appear in your direct messages with the app. Ask again only if it has not arrived in a minute.`,
    );
  return notice(
    `:envelope: ${count} as ${format.toUpperCase()} are on their way to your direct messages with the app; Slack shows the file there once it has processed it.${cut}`,
  );
}

/**
 * One row an item, one column a top-level field (in the order first seen); objects and arrays as
 * JSON. Text a spreadsheet would read as a formula starts with `'` (OWASP's CSV injection advice).
 */
export function toCsv(items: readonly unknown[]): string {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    for (const key of Object.keys(item)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  if (items.length === 0) return '';
  if (columns.length === 0) return `value\r\n${items.map((item) => csvField(item)).join('\r\n')}\r\n`;
  const rows = items.map((item) => {
    const record = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    return columns.map((column) => csvField(record[column])).join(',');
  });
  return `${[columns.map((column) => csvField(column)).join(','), ...rows].join('\r\n')}\r\n`;
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
