import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { rateLimitedFor, slackErrorOf } from './slack-refusals.js';
import '../zod-settings.js';

/**
 * A file shared where its readers are, as Slack allows it: in a channel, or for one person in
 * their direct message with the app (no ephemeral message can show a file, and a file shared in no
 * channel is the uploader's alone). Slack shares an upload asynchronously, so "on its way" is the
 * best outcome there is; a lost answer to the last step may hide a share that happened.
 */

export interface FileUpload {
  readonly file: Buffer;
  readonly filename: string;
  readonly title: string;
  /** Shown with the file once Slack has processed it. */
  readonly comment: string;
}

/** Where the file goes: a channel, or one person's direct message with the app. */
export type FileDestination = { readonly channel: string } | { readonly directMessageWith: string };

export type FileShare =
  | { readonly kind: 'on_its_way'; readonly channel: string }
  /** The person's direct message did not open: nothing was uploaded. */
  | { readonly kind: 'no_direct_message'; readonly code: string }
  /** Slack refused the upload: nothing was shared. */
  | { readonly kind: 'refused'; readonly code: string }
  /** No answer to the upload: the file may still appear. */
  | { readonly kind: 'in_doubt'; readonly code: string };

const ConversationOpenSchema = z.object({ channel: z.object({ id: z.string().min(1) }) });

export async function shareFile(
  slack: WebClient,
  destination: FileDestination,
  upload: FileUpload,
): Promise<FileShare> {
  let channel: string;
  if ('channel' in destination) channel = destination.channel;
  else {
    try {
      const opened = await slack.conversations.open({ users: destination.directMessageWith });
      channel = ConversationOpenSchema.parse(opened).channel.id;
    } catch (error) {
      return { kind: 'no_direct_message', code: errorCodeOf(error) };
    }
  }
  try {
    await slack.files.uploadV2({
      channel_id: channel,
      initial_comment: upload.comment,
      file: upload.file,
      filename: upload.filename,
      title: upload.title,
    });
  } catch (error) {
    const code = errorCodeOf(error);
    return { kind: certainlyNotShared(error) ? 'refused' : 'in_doubt', code };
  }
  return { kind: 'on_its_way', channel };
}

/**
 * Whether Slack certainly did not share the file: it refused a step, or asked the client to slow
 * down. A lost answer to the final step may hide a share that happened, and the client's retry of
 * that step is then refused with `file_not_found` (the file was already completed), so neither
 * counts as not shared.
 */
function certainlyNotShared(error: unknown): boolean {
  const refusal = slackErrorOf(error);
  if (refusal !== undefined) return refusal !== 'file_not_found';
  return rateLimitedFor(error) !== undefined;
}

/** Slack's error code, or the error's code; never a message that could carry a token or a body. */
function errorCodeOf(error: unknown): string {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  if (typeof data?.error === 'string') return data.error;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}
