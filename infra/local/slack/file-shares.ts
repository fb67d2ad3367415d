import type { SlackStore, StoredFile } from './store.js';

/**
 * Rule `async-file-shares` (see `rules.ts`): `files.completeUploadExternal` accepts a file at once
 * but Slack processes and shares it later, and a `slack_file` reference works only for a file that
 * is processed and visible where the message goes.
 *
 * What the threads show, and what is emulated here (the stricter reading where they differ):
 * - the answer lists the files without `shares` and names no message; the share message appears
 *   once processing is done (`fileProcessingMs` after completion on the stand-in's clock);
 * - until then `mimetype` and `filetype` are empty (java-slack-sdk#1349 shows them so);
 * - a `slack_file` (by `id` or `url`) naming an unknown file, a file still processing, or a file
 *   not shared in the target channel is refused with `invalid_blocks` and
 *   `invalid slack file [json-pointer:…/slack_file]` (python-slack-sdk#1658, java-slack-sdk#1349);
 * - a file uploaded without a channel is private to the uploader: it is shared nowhere, so no
 *   message anywhere may show it; nor may an ephemeral message show a file the channel cannot see
 *   (node-slack-sdk#1790: "there is no way to share files within an ephemeral message").
 */

/** Whether Slack has finished processing the file (and shared it where it was asked to). */
export function isProcessed(file: StoredFile, now: number): boolean {
  return file.processedAt !== undefined && file.processedAt <= now;
}

function fileNamedByUrl(store: SlackStore, url: string): StoredFile | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  // The stand-in's `url_private` is `/files/<id>/<name>`; Slack's permalinks carry the id likewise.
  const id = path.split('/').find((part) => /^F[A-Z0-9]{8,}$/.test(part));
  return id === undefined ? undefined : store.file(id);
}

function referencedFile(store: SlackStore, reference: unknown): StoredFile | undefined {
  if (typeof reference !== 'object' || reference === null) return undefined;
  const { id, url } = reference as { id?: unknown; url?: unknown };
  if (typeof id === 'string') return store.file(id);
  if (typeof url === 'string') return fileNamedByUrl(store, url);
  return undefined;
}

/**
 * The `invalid_blocks` problems of the message's `slack_file` references in `channel`, in Slack's
 * wording: one line per reference that is unknown, still processing, or not visible there.
 */
export function slackFileProblems(store: SlackStore, channel: string, blocks: readonly unknown[]): string[] {
  const problems: string[] = [];
  const now = store.now();
  const visit = (value: unknown, pointer: string): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, `${pointer}/${index}`);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'slack_file') {
        const file = referencedFile(store, child);
        const usable = file !== undefined && isProcessed(file, now) && file.channels.includes(channel);
        if (!usable) problems.push(`invalid slack file [json-pointer:${pointer}/slack_file]`);
      } else {
        visit(child, `${pointer}/${key}`);
      }
    }
  };
  visit(blocks, '/blocks');
  return problems;
}
