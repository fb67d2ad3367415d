import type { AnyOperation } from '../../api/operation.js';
import { isSecretField, requestShapeOf } from '../field-shapes.js';
import { normalizeName } from '../names.js';
import { SLASH_COMMAND } from '../registry.js';
import type { FieldShape } from '../shape.js';
import type { Token } from '../tokenize.js';
import { flagNameOf } from '../usage.js';
import { failure, type ParseError } from './result.js';

/**
 * Secrets are never taken from the command line. Slack shows a slash command as typed to the whole
 * channel when the answer is `in_channel`, and the typed text passes through Slack, the request
 * and its logs besides; a modal's text input reaches the bot alone. So a flag that carries a secret
 * field is refused before the command is read any further, and the refusal names the flag, never
 * its value, and points at the operation's form.
 *
 * Which fields are secret is read from the operation's request schema: a top-level field whose
 * name `isSecretField` marks (`root_pass`, `password`, `tfa_code`), or one that holds such a field
 * inside it (`security_questions[].response`), since its JSON value would carry the secret.
 */

const secretFieldsByOp = new WeakMap<AnyOperation, readonly string[]>();

function holdsSecret(shape: FieldShape): boolean {
  for (const [key, child] of shape.properties ?? []) {
    if (isSecretField(key) || holdsSecret(child)) return true;
  }
  if (shape.items && holdsSecret(shape.items)) return true;
  return shape.openKeys !== undefined && holdsSecret(shape.openKeys);
}

/** The top-level request fields of `op` that are, or hold, a secret. */
export function secretFieldsOf(op: AnyOperation): readonly string[] {
  let fields = secretFieldsByOp.get(op);
  if (fields === undefined) {
    fields = [...(requestShapeOf(op).properties ?? [])]
      .filter(([key, shape]) => isSecretField(key) || holdsSecret(shape))
      .map(([key]) => key);
    secretFieldsByOp.set(op, fields);
  }
  return fields;
}

/** The secret fields the flags name, however written: `--root-pass`, `--root_pass=…`, `--rootPass`, `--security-questions.0.response`. */
export function secretFieldsTyped(op: AnyOperation, tokens: readonly Token[]): readonly string[] {
  const secret = secretFieldsOf(op);
  if (secret.length === 0) return [];
  const named = new Set<string>();
  for (const token of tokens) {
    if (token.kind === 'end-of-flags') break;
    if (token.kind !== 'flag') continue;
    const [head = ''] = token.name.split('.');
    const bare = normalizeName(head.replace(/^no[-_]/i, ''));
    for (const field of secret) {
      if (normalizeName(field) === normalizeName(head) || normalizeName(field) === bare) named.add(field);
    }
  }
  return [...named];
}

/**
 * The refusal: what was refused and how to give it instead. Only the path arguments typed before
 * any flag, and only when they are plain ids, go into the suggested command; nothing else typed is
 * repeated.
 */
export function secretOnCommandLine(
  op: AnyOperation,
  tokens: readonly Token[],
  fields: readonly string[],
): ParseError {
  const leading: string[] = [];
  for (const token of tokens) {
    if (token.kind !== 'word') break;
    leading.push(token.text);
  }
  const ids =
    leading.length === op.pathParams.length && leading.every((word) => /^\d{1,18}$/.test(word))
      ? leading
      : [];
  const formCommand = [SLASH_COMMAND, op.group, op.action, ...ids, '--form'].join(' ');
  const flags = fields.map((field) => `\`--${flagNameOf(field)}\``).join(' and ');
  const what = fields.length === 1 ? 'is a secret, and secrets are' : 'are secrets, and secrets are';
  return failure(
    `${flags} ${what} never taken from the command line: Slack can show a typed command to everyone in the channel. Nothing was sent. Give it in the form instead, where only the bot sees it: \`${formCommand}\``,
  );
}
