import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import type { AnyOperation } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import { type FieldShape, isRequired, requestShapeOf } from '../commands/field-shapes.js';
import { convertText } from '../commands/field-values.js';
import { commandNameOf } from '../commands/usage.js';
import { prototypeKeyPath } from '../prototype-keys.js';
import { fieldValue, formHint, formLabel, labelBeside } from '../slack-kit/field-words.js';
import { CallbackId } from '../slack-kit/interactions.js';
import { SLACK_LIMITS } from '../slack-kit/limits.js';
import { escapeMrkdwn } from '../slack-kit/text.js';
import { truncate } from '../truncate.js';
import { openModal } from './modals.js';
import { routeOf } from './render/related-operations.js';
import { kindOfRoute } from './render/resource-kinds.js';
import '../zod-settings.js';

/**
 * A modal form for an operation: opened by a button whose operation needs more input (Attach
 * asks for the node, Snapshot for a label) or by `--form` on a command. Fields come from the
 * operation's request schema; what is submitted is converted and validated exactly like typed
 * flags, and problems are shown next to the field they concern.
 */

const VALUE_ACTION = 'value';
/** Fields beyond this stay for the command line; a modal has room for 100 blocks, people less. */
const MAX_FIELDS = 24;
const SECRET_FIELD = /pass|secret|token|code/i;

export const FormMetadataSchema = z.object({
  o: z.string(),
  i: z.record(z.string(), z.unknown()),
  c: z.string(),
  /**
   * The response_url of the command or click that opened the form: the reply to the submission
   * goes there, which works in any channel the person is in, the bot a member or not.
   */
  r: z.string().url().optional(),
});
export type FormMetadata = z.infer<typeof FormMetadataSchema>;

function inputBlock(name: string, shape: FieldShape, required: boolean, kind: string) {
  const label = {
    type: 'plain_text' as const,
    text: truncate(formLabel(name, shape, kind), SLACK_LIMITS.inputLabel),
  };
  const hint = formHint(name, shape, kind);
  const common = {
    type: 'input' as const,
    block_id: name,
    optional: !required,
    label,
    ...(hint ? { hint: { type: 'plain_text' as const, text: truncate(hint, 2000) } } : {}),
  };
  const choices = shape.enumValues?.filter((v) => v !== null).map(String) ?? [];
  if (choices.length > 0 && choices.length <= 100) {
    return {
      ...common,
      element: {
        type: 'static_select' as const,
        action_id: VALUE_ACTION,
        options: choices.map((choice) => ({
          text: { type: 'plain_text' as const, text: truncate(choice, 75) },
          value: truncate(choice, 150),
        })),
      },
    };
  }
  return {
    ...common,
    element: {
      type: 'plain_text_input' as const,
      action_id: VALUE_ACTION,
      multiline: shape.kinds.has('object') || (shape.kinds.has('string') && (shape.maxLength ?? 0) > 300),
    },
  };
}

/** The modal for `op`, asking for every field not already in `known`. */
export function operationForm(
  op: AnyOperation,
  known: Readonly<Record<string, unknown>>,
  channel: string,
  responseUrl?: string | undefined,
) {
  const shape = requestShapeOf(op);
  // The kind of resource the operation acts on says the units of its fields (a volume's size is in GB).
  const kind = kindOfRoute(routeOf(op.path)).kind.key;
  const fields = [...(shape.properties ?? new Map<string, FieldShape>()).entries()]
    .filter(([name]) => known[name] === undefined && name !== 'page' && name !== 'page_size')
    .sort(([a], [b]) => Number(isRequired(shape, b)) - Number(isRequired(shape, a)))
    .slice(0, MAX_FIELDS);
  const metadata: FormMetadata = {
    o: op.id,
    i: { ...known },
    c: channel,
    ...(responseUrl === undefined ? {} : { r: responseUrl }),
  };
  const privateMetadata = JSON.stringify(metadata);
  const known_ = Object.entries(known)
    .map(
      ([name, value]) =>
        `${escapeMrkdwn(labelBeside(name, value, kind))} ${SECRET_FIELD.test(name) ? '••••' : (fieldValue(value, name, kind) ?? escapeMrkdwn(JSON.stringify(value) ?? ''))}`,
    )
    .join(', ');
  return {
    type: 'modal' as const,
    callback_id: CallbackId.operationForm,
    title: {
      type: 'plain_text' as const,
      text: truncate(commandNameOf(op), SLACK_LIMITS.viewTitle),
    },
    submit: { type: 'plain_text' as const, text: op.destructive ? 'Request approval' : 'Run' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    private_metadata: privateMetadata.length <= SLACK_LIMITS.privateMetadata ? privateMetadata : '{}',
    blocks: [
      {
        type: 'section' as const,
        text: {
          type: 'mrkdwn' as const,
          text: truncate(`${op.summary}.${known_ ? ` With ${known_}.` : ''}`, SLACK_LIMITS.sectionText),
        },
      },
      ...fields.map(([name, field]) => inputBlock(name, field, isRequired(shape, name), kind)),
    ],
  };
}

/** `again` tells the person how to ask for the form again if Slack's window to open it passed. */
export async function openOperationForm(
  client: WebClient,
  triggerId: string,
  op: AnyOperation,
  known: Readonly<Record<string, unknown>>,
  channel: string,
  again: string,
  responseUrl?: string | undefined,
): Promise<void> {
  await openModal(client, triggerId, operationForm(op, known, channel, responseUrl), again);
}

export type FormSubmission =
  | {
      readonly ok: true;
      readonly op: AnyOperation;
      readonly input: Record<string, unknown>;
      readonly channel: string;
      readonly responseUrl?: string | undefined;
    }
  | { readonly ok: false; readonly errors: Record<string, string> }
  | { readonly ok: false; readonly stale: true };

/** Reads a submitted form: typed values, validated by the operation's request schema. */
export function readOperationForm(view: ViewOutput): FormSubmission {
  let metadata: FormMetadata;
  try {
    const json: unknown = JSON.parse(view.private_metadata);
    if (prototypeKeyPath(json) !== undefined) return { ok: false, stale: true };
    metadata = FormMetadataSchema.parse(json);
  } catch {
    return { ok: false, stale: true };
  }
  const op = findOperation(metadata.o);
  if (!op) return { ok: false, stale: true };
  const shape = requestShapeOf(op);
  const input: Record<string, unknown> = { ...metadata.i };
  const errors: Record<string, string> = {};
  for (const [block, actions] of Object.entries(view.state.values)) {
    const state = actions[VALUE_ACTION];
    const text = (state?.selected_option?.value ?? state?.value ?? '').trim();
    const field = shape.properties?.get(block);
    if (text === '' || !field) continue;
    const listText =
      field.kinds.has('array') && !text.startsWith('[')
        ? JSON.stringify(text.split(',').map((t) => t.trim()))
        : text;
    const converted = convertText(listText, field, { secret: SECRET_FIELD.test(block) });
    if (converted.ok) input[block] = converted.value;
    else errors[block] = truncate(converted.reason, 150);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const parsed = op.request.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const block = String(issue.path[0] ?? '');
      const target = view.state.values[block] ? block : Object.keys(view.state.values)[0];
      if (target && !errors[target]) errors[target] = truncate(issue.message, 150);
    }
    return { ok: false, errors };
  }
  return {
    ok: true,
    op,
    input: parsed.data as Record<string, unknown>,
    channel: metadata.c,
    ...(metadata.r === undefined ? {} : { responseUrl: metadata.r }),
  };
}
