import type { Button, SectionBlockAccessory } from '@slack/types';
import type { AnyOperation } from '../../api/operation.js';
import { engineOperation, getOperation } from '../../api/operations/index.js';
import { actionButton, confirmDialog, overflowMenu } from '../../slack-kit/blocks.js';
import { ActionId, type RunPayload } from '../../slack-kit/interaction-ids.js';
import { capitalize } from '../../slack-kit/text.js';
import { type Item, idOf } from './items.js';
import {
  isCompleteInput,
  type PathValue,
  type ResourceRef,
  runPayloadFor,
  viewOperationOf,
} from './related-operations.js';
import type { KindMatch, NextOperation, ResourceKind } from './resource-kinds.js';

/**
 * The buttons that follow a resource: view it, and the natural next steps of its kind, each a run
 * payload for an operation named by id. Destructive steps are red and ask first.
 */

/** The concrete item route and path values of a listed or returned item. */
export function itemRefOf(
  match: KindMatch,
  collectionValues: readonly PathValue[],
  item: Item,
): ResourceRef | undefined {
  const id = idOf(item);
  if (id === undefined || match.kind.singleton) return undefined;
  const route = match.kind.itemRoute
    ? match.kind.itemRoute(item, match.collectionRoute)
    : `${match.collectionRoute}/{}`;
  if (route === undefined) return undefined;
  const parents = (match.collectionRoute.match(/\{\}/g) ?? []).length;
  if (collectionValues.length < parents) return undefined;
  // An item route of its own may leave out the parents (a node's volume is `/volumes/{}`).
  const routeParams = (route.match(/\{\}/g) ?? []).length;
  return { route, values: [...collectionValues.slice(0, parents), id].slice(-routeParams) };
}

export interface ResolvedAction {
  readonly label: string;
  readonly op: AnyOperation;
  readonly payload: RunPayload;
  readonly inMenu: boolean;
}

/**
 * Whether the person who will see a message may run `op` where they see it: the channel's policy
 * and their token's scopes, as help is fitted (`helpFitFor`). Buttons they would be refused are
 * not offered.
 */
export type AllowedHere = (op: AnyOperation) => boolean;

/** The next actions of a kind that apply to this item, exist in the operations table and are allowed here. */
export function nextActionsOf(
  kind: ResourceKind,
  item: Item,
  ref: ResourceRef,
  allowed?: AllowedHere,
): ResolvedAction[] {
  const resolved: ResolvedAction[] = [];
  for (const action of kind.actions ?? []) {
    if (action.when && !action.when(item)) continue;
    const op = operationOfAction(action.operation, ref);
    if (!op || (allowed && !allowed(op))) continue;
    const values = action.values ? action.values(item, ref) : ref.values;
    const payload = runPayloadFor(op, values, action.extra?.(item, ref) ?? {});
    if (!payload) continue;
    if (!action.form && !isCompleteInput(op, payload.input)) continue;
    resolved.push({ label: action.label, op, payload, inMenu: action.inMenu === true && !op.destructive });
  }
  return resolved;
}

const ENGINE_OF_ROUTE = /^\/databases\/(mysql|postgresql)\//;

/**
 * The row a next action runs on this item. Ids are checked by the compiler; an engine action
 * takes the engine from the item's own route, and a database listed without one (the all-engines
 * list gives each item its engine's route) has no such action.
 */
export function operationOfAction(operation: NextOperation, ref: ResourceRef): AnyOperation | undefined {
  if (typeof operation === 'string') return getOperation(operation);
  const engine = ENGINE_OF_ROUTE.exec(ref.route)?.[1];
  return engine === 'mysql' || engine === 'postgresql'
    ? engineOperation(engine, operation.engine)
    : undefined;
}

/** The run payload that shows the item itself. */
function viewPayloadOf(ref: ResourceRef): RunPayload | undefined {
  const view = viewOperationOf(ref.route);
  return view ? runPayloadFor(view, ref.values) : undefined;
}

/**
 * A button for a next action. Destructive operations are styled `danger` and carry Slack's confirm
 * dialog with the operation's own consequence, so nobody starts one by a slip of the mouse.
 */
export function nextActionButton(action: ResolvedAction, target: string): Button | undefined {
  const destructive = action.op.destructive;
  if (!destructive)
    return actionButton({ label: action.label, actionId: ActionId.run, payload: action.payload });
  return actionButton({
    label: action.label,
    actionId: ActionId.run,
    payload: action.payload,
    style: 'danger',
    confirm: confirmDialog({
      title: `${action.label} ${target}?`,
      text: `${destructive.consequence} It runs only after approval.`,
      confirm: capitalize(action.label),
      deny: 'Keep it',
      style: 'danger',
    }),
  });
}

/**
 * The accessory of a list row: an overflow menu (View plus the safe next steps) when the kind has
 * some for this item, else a View button.
 */
export function rowAccessory(
  kind: ResourceKind,
  item: Item,
  ref: ResourceRef | undefined,
  allowed?: AllowedHere,
): SectionBlockAccessory | undefined {
  if (!ref) return undefined;
  const view = viewPayloadOf(ref);
  const menu = nextActionsOf(kind, item, ref, allowed).filter((a) => a.inMenu);
  if (menu.length > 0) {
    const options = [
      ...(view ? [{ label: 'View', payload: view }] : []),
      ...menu.map((a) => ({ label: a.label, payload: a.payload })),
    ];
    const overflow = overflowMenu(ActionId.menu, options);
    if (overflow) return overflow;
  }
  return view ? actionButton({ label: 'View', actionId: ActionId.run, payload: view }) : undefined;
}
