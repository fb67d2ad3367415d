import type { AnyOperation, Page } from '../../api/operation.js';
import { getOperation } from '../../api/operations/index.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import {
  actionButton,
  type EphemeralOnlyMessage,
  fallbackText,
  type RenderedMessage,
  sectionBlock,
} from '../../slack-kit/blocks.js';
import { ActionId } from '../../slack-kit/interaction-ids.js';
import { capitalize, codeSpan, escapeMrkdwn } from '../../slack-kit/text.js';
import { renderDetail } from './detail.js';
import { isItem } from './items.js';
import { renderJson } from './json.js';
import { ListLayout } from './list.js';
import type { AllowedHere } from './next-actions.js';
import {
  findOperationByRoute,
  type PathValue,
  pathValuesOf,
  routeOf,
  runPayloadFor,
} from './related-operations.js';
import { kindOfRoute } from './resource-kinds.js';
import { isSensitiveResult, renderSensitiveResult, type TwoFactorOptions } from './sensitive.js';

export interface ResultOptions extends TwoFactorOptions {
  /** Accepted so a job's options pass through as they are; lists page in `list-reader.ts`. */
  page?: number | undefined;
  pageSize?: number | undefined;
  filter?: Record<string, unknown> | undefined;
  /** Every page was fetched (`--all`). */
  all?: boolean | undefined;
  /** Show the raw JSON (`--json`). */
  json?: boolean | undefined;
  /** Which operations buttons and menus may offer where the reply is seen; all when left out. */
  allowed?: AllowedHere | undefined;
}

/** A reply to an operation: sensitive results come back marked ephemeral-only. */
export type OperationReply = RenderedMessage | EphemeralOnlyMessage;

/**
 * The reply for an operation's result: lists as rows with paging, `{}` results as a sentence saying
 * what happened, single resources as a detail view, `--json` as JSON. Sensitive results go to
 * their own renderers and are marked ephemeral-only.
 */
export function renderOperationResult(
  op: AnyOperation,
  input: Record<string, unknown>,
  output: unknown,
  options: ResultOptions = {},
): OperationReply {
  if (isSensitiveResult(op)) return renderSensitiveResult(op, input, output, options);
  if (options.json) return renderJson(op, output);
  if (op.paginated && isPage(output)) {
    // One API page as it came (the runner reads lists through `list-reader.ts`): its items from
    // the first, and the note says when the list holds more than were handed over.
    return new ListLayout(op, input, { filter: options.filter, compact: options.all }).render(
      { items: output.data, start: 0, page: 1, results: output.results, reachable: output.data.length },
      options.allowed,
    );
  }
  if (isItem(output) && Object.keys(output).length === 0 && op.method !== 'GET')
    return renderConfirmation(op, input);
  if (isItem(output)) return renderDetail(op, input, output, options.allowed);
  return renderJson(op, output);
}

function isPage(value: unknown): value is Page<unknown> {
  return (
    isItem(value) &&
    Array.isArray(value.data) &&
    typeof value.page === 'number' &&
    typeof value.pages === 'number' &&
    typeof value.results === 'number'
  );
}

// ---------------------------------------------------------------------------------------------
// `{}` results

interface Completion {
  readonly method: AnyOperation['method'];
  readonly route: RegExp;
  readonly sentence: (values: readonly PathValue[], input: Record<string, unknown>) => string;
}

/** Where the generic sentence ("Volume 12 detached.") would not say what happened, or what comes next. */
const COMPLETIONS: readonly Completion[] = [
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/backups\/enable$/,
    sentence: ([node]) => `Backup service enabled on node ${node}.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/backups\/cancel$/,
    sentence: ([node]) => `Backup service cancelled on node ${node}; its backups are deleted.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/backups\/\{\}\/restore$/,
    sentence: ([node, backup], input) =>
      `Restoring backup ${backup} of node ${node}${typeof input.node_id === 'number' ? ` onto node ${input.node_id}` : ''}.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/boot$/,
    sentence: ([node], input) =>
      `Node ${node} is booting${typeof input.config_id === 'number' ? ` with config ${input.config_id}` : ''}.`,
  },
  // The second document's node actions answer "… started." (API-FACTS-MORE §2): the work runs on.
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/reboot$/,
    sentence: ([node], input) =>
      `Node ${node} is rebooting${typeof input.config_id === 'number' ? ` into config ${input.config_id}` : ''}.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/shutdown$/,
    sentence: ([node]) => `Node ${node} is shutting down.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/resize$/,
    sentence: ([node], input) =>
      `Resize of node ${node}${typeof input.type === 'string' ? ` to ${input.type}` : ''} started.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/rescue$/,
    sentence: ([node]) => `Node ${node} is booting into rescue mode.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/migrate$/,
    sentence: ([node], input) =>
      `Migration of node ${node}${typeof input.region === 'string' ? ` to ${input.region}` : ''} started.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/mutate$/,
    sentence: ([node]) => `Upgrade of node ${node} started.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/password$/,
    sentence: ([node]) => `Root password of node ${node} reset.`,
  },
  {
    method: 'POST',
    route: /^\/node\/instances\/\{\}\/disks\/\{\}\/resize$/,
    // §4.2: accepted even when the disk is in use; the resize then fails, as its event tells.
    sentence: ([node, disk]) =>
      `Resize of disk ${disk} of node ${node} started; it fails if the running node uses the disk (\`/cloud events list\` tells).`,
  },
  {
    method: 'POST',
    route: /^\/account\/events\/\{\}\/seen$/,
    sentence: ([event]) => `Events up to ${event} marked as seen.`,
  },
  {
    method: 'POST',
    route: /^\/databases\/\w+\/instances\/\{\}\/backups$/,
    sentence: ([db]) => `Snapshot of database ${db} started; it takes several minutes.`,
  },
  {
    method: 'POST',
    route: /^\/databases\/\w+\/instances\/\{\}\/backups\/\{\}\/restore$/,
    sentence: ([db, backup]) => `Restoring backup ${backup} to database ${db}; its data is being replaced.`,
  },
  {
    method: 'POST',
    route: /^\/databases\/\w+\/instances\/\{\}\/credentials\/reset$/,
    sentence: ([db]) => `Root password of database ${db} reset.`,
  },
  {
    method: 'POST',
    route: /^\/databases\/\w+\/instances\/\{\}\/patch$/,
    sentence: ([db]) => `Patching of database ${db} started.`,
  },
  {
    method: 'DELETE',
    route: /^\/profile\/phone-number$/,
    sentence: () => 'Verified phone number removed; SMS messages stop.',
  },
  {
    method: 'POST',
    route: /^\/profile\/phone-number$/,
    sentence: () => 'Verification code sent by SMS; it is valid for 10 minutes.',
  },
  { method: 'POST', route: /^\/profile\/phone-number\/verify$/, sentence: () => 'Phone number verified.' },
  {
    method: 'POST',
    route: /^\/profile\/tfa-disable$/,
    sentence: () => 'Two-factor authentication disabled.',
  },
  {
    method: 'POST',
    route: /^\/managed\/credentials\/\{\}\/update$/,
    sentence: ([credential]) => `Username and password of credential ${credential} updated.`,
  },
];

/** Past tenses of action segments (`/detach` → detached). */
const PAST_TENSE: Readonly<Record<string, string>> = {
  attach: 'attached',
  detach: 'detached',
  enable: 'enabled',
  disable: 'disabled',
  revoke: 'revoked',
  cancel: 'cancelled',
  boot: 'booting',
  clone: 'cloned',
  resize: 'resized',
  patch: 'patched',
  reset: 'reset',
  restore: 'restored',
  update: 'updated',
  verify: 'verified',
};

/** What a `{}` result means, in a sentence: "Volume 12 deleted.", "Backup service enabled on node 34." */
export function describeCompletion(op: AnyOperation, input: Record<string, unknown>): string {
  const route = routeOf(op.path);
  const values = pathValuesOf(op, input);
  const special = COMPLETIONS.find((c) => c.method === op.method && c.route.test(route));
  if (special) return special.sentence(values, input);

  const match = kindOfRoute(route);
  const id = values[values.length - 1];
  const subject = describeSubject(match.kind.noun, match.collectionRoute, values, id);
  if (op.method === 'DELETE' && match.rest.length <= 1)
    return `${subject} ${match.kind.deleted ?? 'deleted'}.`;
  const verb = match.rest.filter((segment) => segment !== '{}').pop();
  if (verb && subject) return `${subject} ${PAST_TENSE[verb] ?? `${verb.replace(/-/g, ' ')} done`}.`;
  return `Done: ${op.summary.charAt(0).toLowerCase()}${op.summary.slice(1)}.`;
}

/** `Config 7 of node 34`, `Volume 12`. */
function describeSubject(
  noun: string,
  collectionRoute: string,
  values: readonly PathValue[],
  id: PathValue | undefined,
): string {
  if (id === undefined || noun === 'item') return '';
  const parents = (collectionRoute.match(/\{\}/g) ?? []).length;
  const parentValue = parents > 0 ? values[parents - 1] : undefined;
  const parentRoute = collectionRoute.slice(0, collectionRoute.lastIndexOf('/'));
  const parentNoun = parentValue === undefined ? undefined : kindOfRoute(parentRoute).kind.noun;
  const own = `${capitalize(noun)} ${id}`;
  return parentNoun && parentNoun !== 'item' ? `${own} of ${parentNoun} ${parentValue}` : own;
}

/** The sentence, with a button to look at the resource when it still exists. */
export function renderConfirmation(op: AnyOperation, input: Record<string, unknown>): RenderedMessage {
  const sentence = describeCompletion(op, input);
  const text = `:white_check_mark: ${escapeMrkdwn(sentence)}${nextStepHint(op, input)}`;
  const view = op.method === 'DELETE' ? undefined : viewAfter(op, input);
  return { text: fallbackText(sentence), blocks: [sectionBlock(text, view)] };
}

/** After a credentials reset the next thing anyone wants is the new password. */
function nextStepHint(op: AnyOperation, input: Record<string, unknown>): string {
  const route = routeOf(op.path);
  if (/\/credentials\/reset$/.test(route)) {
    const view = findOperationByRoute('GET', route.replace(/\/reset$/, ''));
    const db = pathValuesOf(op, input)[0];
    if (view && db !== undefined)
      return `\nSee the new password (only to you) with ${codeSpan(`${SLASH_COMMAND} ${view.group} ${view.action} ${db}`)}.`;
  }
  if (op.method === 'POST' && route === '/profile/phone-number') {
    const verify = getOperation('profile.phone-number-verify');
    return `\nThen: ${codeSpan(`${SLASH_COMMAND} ${verify.group} ${verify.action} --otp-code <code>`)}`;
  }
  return '';
}

/** A View button for the resource an action was about (the volume after detach, the node after boot). */
function viewAfter(op: AnyOperation, input: Record<string, unknown>) {
  const route = routeOf(op.path);
  const match = kindOfRoute(route);
  if (match.kind.singleton || match.rest[0] !== '{}') return undefined;
  const itemRoute = `${match.collectionRoute}/{}`;
  const view = findOperationByRoute('GET', itemRoute);
  if (!view) return undefined;
  const payload = runPayloadFor(view, pathValuesOf(op, input));
  return payload
    ? actionButton({ label: `View ${match.kind.noun}`, actionId: ActionId.run, payload })
    : undefined;
}
