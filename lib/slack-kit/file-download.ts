import * as z from 'zod';
import { AnswerTooLargeError, exchange } from '../http-exchange.js';
import '../zod-settings.js';

/**
 * A file a person gave the app (a modal's `file_input`), read from Slack as Slack allows it: from
 * its `url_private_download` (or `url_private`) with the bot token in an `Authorization: Bearer`
 * header, which needs the `files:read` scope (api.slack.com/types/file#auth;
 * docs.slack.dev/reference/block-kit/block-elements/file-input-element). Without it Slack answers
 * its sign-in page as HTML, often with HTTP 200 (bolt-js#2585, deno-slack-sdk#285), so an HTML
 * answer is never taken for the file. The token goes only to Slack: its file host, or the origin of
 * the Web API the client is configured with (the stand-in, locally).
 */

/** A file as the `view_submission` payload describes it (the fields read here). */
export const SlackFileSchema = z.object({
  id: z.string().min(1).max(40),
  name: z.string().max(500),
  /** In bytes, as Slack measured the upload. */
  size: z.number().int().nonnegative(),
  url_private: z.url({ protocol: /^https?$/ }),
  url_private_download: z.url({ protocol: /^https?$/ }).optional(),
});
export type SlackFile = z.infer<typeof SlackFileSchema>;

export type FileDownload =
  | { readonly kind: 'downloaded'; readonly bytes: Buffer }
  /** Larger than the caller takes: by the size Slack gave (nothing was fetched), or on the way. */
  | { readonly kind: 'too_large'; readonly size: number | undefined }
  /** Slack answered, but not with the file: its HTTP status, or its sign-in page (no `files:read`). */
  | { readonly kind: 'not_given'; readonly status: number; readonly signInPage: boolean }
  /** No answer in time, or the connection failed: the error's code. */
  | { readonly kind: 'unreachable'; readonly code: string }
  /** The file's URL is not Slack's: the token is not sent there. */
  | { readonly kind: 'not_slack' };

/** Where Slack serves files (`url_private` is `https://files.slack.com/files-pri/T…-F…/name`). */
const SLACK_FILE_ORIGIN = 'https://files.slack.com';

export interface FileDownloadOptions {
  readonly botToken: string;
  /** The Web API URL the client calls (`WebClient.slackApiUrl`): files there are Slack's too. */
  readonly slackApiUrl: string;
  /** Read no more than this; a file Slack says is larger is not fetched at all. */
  readonly maxBytes: number;
  /** From sending the request to the last byte: the caller's own deadline decides it. */
  readonly timeoutMs: number;
}

export async function downloadSlackFile(
  file: SlackFile,
  options: FileDownloadOptions,
): Promise<FileDownload> {
  if (file.size > options.maxBytes) return { kind: 'too_large', size: file.size };
  const url = new URL(file.url_private_download ?? file.url_private);
  const slackOrigins = [SLACK_FILE_ORIGIN, new URL(options.slackApiUrl).origin];
  if (!slackOrigins.includes(url.origin)) return { kind: 'not_slack' };
  try {
    const answer = await exchange({
      url,
      method: 'GET',
      headers: { authorization: `Bearer ${options.botToken}` },
      service: 'Slack files',
      connectTimeoutMs: options.timeoutMs,
      answerTimeoutMs: options.timeoutMs,
      maxAnswerBytes: options.maxBytes,
    });
    const html = /^text\/html\b/i.test(String(answer.headers['content-type'] ?? ''));
    if (answer.status !== 200 || html) {
      return { kind: 'not_given', status: answer.status, signInPage: html };
    }
    return { kind: 'downloaded', bytes: answer.body };
  } catch (error) {
    if (error instanceof AnswerTooLargeError) return { kind: 'too_large', size: undefined };
    const code = (error as { code?: unknown } | null)?.code;
    return { kind: 'unreachable', code: typeof code === 'string' ? code : 'network error' };
  }
}
