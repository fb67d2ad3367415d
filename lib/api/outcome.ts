import type { ApiClient } from './client.js';
import { ApiError } from './errors.js';
import type { Filter } from './filter.js';
import type { AnyOperation } from './operation.js';
import { operations } from './operations/index.js';

/**
 * What to believe when a change was sent and no clear answer came back.
 *
 * A timeout, a dropped connection or a 5xx after the request may have reached the API says
 * nothing about whether the change happened: the API may have done it and failed to answer. So
 * such a change is "in doubt", never "failed", until the target has been read back:
 *
 * - a delete is done when the target is gone;
 * - an update (and an action whose body states the new state, like a resize) is done when the
 *   target shows the requested values;
 * - a create is done when a new item matching the request appears in its list, which is read
 *   once before the request is sent (the baseline) so an older item with the same label does not
 *   count.
 *
 * - an action whose body does not state the resource's next state (a reboot: the node is
 *   `running` before and after) is done when the account's events show an event it writes, for
 *   its target, created since the request was about to be sent; or, faster, when the node is in
 *   a status only that action moves it into (`rebooting`). This is how the provider's own clients
 *   wait for an action: poll the events filtered on action and entity, created after the start.
 *
 * Anything else cannot be read back generically; the person is told what to check instead.
 * Everything here is derived from the operation rows, so a new row gets the same treatment.
 */

export type OutcomeCheck =
  /** The target shows the change. */
  | 'done'
  /** The target does not show it (yet): the request may still be in flight, or never arrived. */
  | 'not_seen'
  /** Nothing readable tells whether it happened. */
  | 'unknowable';

export type OutcomePlan =
  | { readonly strategy: 'gone'; readonly view: AnyOperation; readonly viewInput: Record<string, unknown> }
  | {
      readonly strategy: 'matches';
      readonly view: AnyOperation;
      readonly viewInput: Record<string, unknown>;
      readonly expected: Record<string, unknown>;
    }
  | {
      readonly strategy: 'appears';
      readonly list: AnyOperation;
      readonly listInput: Record<string, unknown>;
      readonly expected: Record<string, unknown>;
      /** Filter on the label, when the list can filter by it. */
      readonly filter: Filter | undefined;
      /** The events a create writes (its row's), read to tell whose a new matching item is. */
      readonly created: CreateEvents | undefined;
    }
  | {
      readonly strategy: 'event';
      /** The account events list. */
      readonly list: AnyOperation;
      /** Any of these event actions shows the change (resize writes `node_resize_create` and `node_resize`). */
      readonly actions: readonly string[];
      /** The events' `entity.id`: the node's id, for node and disk events alike. */
      readonly entityId: string | number;
      /**
       * When the request was about to be sent, on the bot's clock; undefined when that was not
       * kept (then nothing tells). Events from `EVENT_CLOCK_SKEW_MS` before it count.
       */
      readonly since: Date | undefined;
    };

/** The account events that show who created an item (`volume_create` with the new volume's id). */
export interface CreateEvents {
  readonly list: AnyOperation;
  readonly actions: readonly string[];
}

/**
 * How far the API's clock may run behind the bot's: an event the API dated this much before the
 * bot's "about to send" still counts. Both clocks are synchronised in practice and the API dates
 * events to the second; the allowance is kept short because an older event of the same action on
 * the same node would otherwise be taken for this one.
 */
export const EVENT_CLOCK_SKEW_MS = 30_000;

/** An event in one of these states shows the API took the request; a `failed` one does not show it done. */
const EVENT_FAILED = 'failed';

/** What the read-back of a change may know about it beyond its row and input. */
export interface OutcomeContext {
  /** When the request was about to be sent, on the bot's clock. */
  readonly since?: Date | undefined;
}

/** Ids seen in a create's list before the request was sent. */
export type OutcomeBaseline = ReadonlySet<string>;

/** Lists longer than this are not read for a baseline: the page reads would cost more than they tell. */
const BASELINE_MAX_PAGES = 4;

/** The single-resource read of what `op` acts on: the longest GET path that prefixes its path. */
export function viewOperationFor(op: AnyOperation): AnyOperation | undefined {
  let best: AnyOperation | undefined;
  for (const candidate of operations) {
    // A sensitive read (a database's credentials) is never the view: it would read secrets.
    if (candidate.method !== 'GET' || candidate.paginated || candidate.sensitive) continue;
    if (candidate.pathParams.length === 0) continue;
    if (!op.path.startsWith(candidate.path)) continue;
    if (!candidate.pathParams.every((name) => op.pathParams.includes(name))) continue;
    if (!best || candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}

/** The list that shows the ids of what `op` acts on: the view path without its last id. */
export function listOperationFor(op: AnyOperation): AnyOperation | undefined {
  const view = viewOperationFor(op);
  const listPath = view?.path.replace(/\/\{\w+\}$/, '');
  return operations.find((candidate) => candidate.method === 'GET' && candidate.path === listPath);
}

/** How a change of `op` with `input` can be read back, or undefined when it cannot. */
export function outcomePlanFor(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  context: OutcomeContext = {},
): OutcomePlan | undefined {
  return statePlanFor(op, input) ?? eventPlanFor(op, input, context);
}

/** Why `op` has no event read-back, or undefined when it has one (for tests and documents). */
export function noEventReadBackReason(op: AnyOperation): string | undefined {
  if (op.method === 'GET') return 'a read changes nothing';
  if (!op.events) return 'its row names no event actions';
  if ('none' in op.events) return op.events.none;
  if (!eventsList()) return 'the account events list is not an operation';
  return undefined;
}

/** The account events list, when the operation rows have it. */
function eventsList(): AnyOperation | undefined {
  return operations.find((candidate) => candidate.id === 'events.list');
}

/** Read back from the account events what the row says the change writes. */
function eventPlanFor(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  context: OutcomeContext,
): OutcomePlan | undefined {
  const evidence = op.events;
  const list = eventsList();
  if (op.method === 'GET' || !evidence || 'none' in evidence || !list) return undefined;
  // A create's entity id is in the answer, which a lost answer does not give: no events plan.
  const entityId = evidence.entityId === undefined ? undefined : input[evidence.entityId];
  if (typeof entityId !== 'string' && typeof entityId !== 'number') return undefined;
  return { strategy: 'event', list, actions: evidence.actions, entityId, since: context.since };
}

/** The event filter: these actions on this entity, dated from `since` less the clock allowance. */
export function eventFilterOf(plan: Extract<OutcomePlan, { strategy: 'event' }>, since: Date): Filter {
  const from = new Date(since.getTime() - EVENT_CLOCK_SKEW_MS);
  // The API writes and compares `created` as `2018-01-01T00:01:01`: UTC, to the second.
  const created = { '+gte': from.toISOString().slice(0, 19) };
  return { '+and': [actionFilter(plan.actions), { 'entity.id': plan.entityId }, { created }] };
}

/** These actions on any of these entities, whenever: a new item's create event is its only one. */
function creationFilter(actions: readonly string[], ids: readonly string[]): Filter {
  const entity =
    ids.length === 1
      ? { 'entity.id': entityIdValue(ids[0] ?? '') }
      : { '+or': ids.map((id) => ({ 'entity.id': entityIdValue(id) })) };
  return { '+and': [actionFilter(actions), entity] };
}

function actionFilter(actions: readonly string[]): Filter {
  return actions.length === 1 ? { action: actions[0] ?? '' } : { '+or': actions.map((a) => ({ action: a })) };
}

/** `entity.id` is an integer (API-FACTS-MORE.md §8); an id that is not one is compared as given. */
function entityIdValue(id: string): string | number {
  return /^\d+$/.test(id) ? Number(id) : id;
}

/** How a change reads back from the target's own state (gone, shows the values, appears). */
function statePlanFor(op: AnyOperation, input: Readonly<Record<string, unknown>>): OutcomePlan | undefined {
  if (op.method === 'GET') return undefined;
  const body = bodyOf(op, input);
  if (op.method === 'DELETE') {
    const view = viewOperationFor(op);
    // The view must name exactly what is deleted, not its parent.
    if (!view || view.pathParams.length !== op.pathParams.length) return undefined;
    return { strategy: 'gone', view, viewInput: pick(input, view.pathParams) };
  }
  if (op.method === 'PUT') {
    const view =
      operations.find((c) => c.method === 'GET' && !c.paginated && c.path === op.path) ??
      viewOperationFor(op);
    if (!view || view.pathParams.length !== op.pathParams.length || Object.keys(body).length === 0)
      return undefined;
    return { strategy: 'matches', view, viewInput: pick(input, view.pathParams), expected: body };
  }
  const list = operations.find((c) => c.method === 'GET' && c.paginated && c.path === op.path);
  if (list) {
    const expected = scalarFields(body);
    if (typeof expected.label !== 'string') return undefined;
    const filter = list.filterable.includes('label') ? { label: expected.label } : undefined;
    const events = eventsList();
    const created =
      op.events && 'actions' in op.events && op.events.entityId === undefined && events
        ? { list: events, actions: op.events.actions }
        : undefined;
    return { strategy: 'appears', list, listInput: pick(input, list.pathParams), expected, filter, created };
  }
  // A long action whose body is the resource's next state (a resize): read the resource.
  if (op.watch && !op.watch.target) {
    const view = viewOperationFor(op);
    const expected = scalarFields(body);
    if (!view || view.id !== op.watch.view || Object.keys(expected).length === 0) return undefined;
    return { strategy: 'matches', view, viewInput: pick(input, view.pathParams), expected };
  }
  return undefined;
}

/** For a create: the ids its list shows now, read before the request is sent. */
export async function readBaseline(
  client: ApiClient,
  plan: OutcomePlan | undefined,
  options: { timeoutMs?: number } = {},
): Promise<OutcomeBaseline | undefined> {
  if (plan?.strategy !== 'appears') return undefined;
  try {
    const all = await client.listAll(plan.list, plan.listInput, {
      maxPages: BASELINE_MAX_PAGES,
      ...(plan.filter && { filter: plan.filter }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
    if (all.data.length < all.results) return undefined;
    return new Set(all.data.map((item) => idOf(item)).filter((id): id is string => id !== undefined));
  } catch {
    return undefined;
  }
}

/** One read of the target: does it show the change? Read failures count as "not seen". */
export async function checkOutcome(
  client: ApiClient,
  plan: OutcomePlan | undefined,
  baseline: OutcomeBaseline | undefined,
  options: { timeoutMs?: number } = {},
): Promise<OutcomeCheck> {
  if (!plan) return 'unknowable';
  if (plan.strategy === 'appears' && !baseline) return 'unknowable';
  if (plan.strategy === 'event') return checkEvents(client, plan, options);
  const callOptions = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  try {
    switch (plan.strategy) {
      case 'gone':
        await client.call(plan.view, plan.viewInput, callOptions);
        return 'not_seen';
      case 'matches': {
        const current = await client.call(plan.view, plan.viewInput, callOptions);
        return matches(current, plan.expected) ?? 'unknowable';
      }
      case 'appears': {
        const all = await client.listAll(plan.list, plan.listInput, {
          ...callOptions,
          maxPages: BASELINE_MAX_PAGES,
          ...(plan.filter && { filter: plan.filter }),
        });
        const fresh = all.data.filter((item) => {
          const id = idOf(item);
          return id !== undefined && !baseline?.has(id) && matches(item, plan.expected) === 'done';
        });
        if (fresh.length === 0) return 'not_seen';
        return plan.created ? whoCreated(client, plan.created, fresh, callOptions) : 'done';
      }
    }
  } catch (error) {
    if (plan.strategy === 'gone' && error instanceof ApiError && error.code === 'not_found') return 'done';
    return 'not_seen';
  }
}

/** What a token that may not read the account's events gets when it asks for them. */
const FORBIDDEN = Symbol('forbidden');

function isForbidden(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'forbidden';
}

/**
 * The account's events since the request was about to be sent. Only an event by the API user whose
 * token sent the change proves it (the event's `username`, API-FACTS-MORE.md §8): someone else's
 * same action on the same node, within the clock allowance before the send, is theirs. The
 * node's status is no proof either way: another person's reboot, the host's or the watchdog's
 * leaves a node `rebooting` too. A token that may not read the events cannot tell at all; other
 * reads that fail count as "not seen", never as "did not happen".
 */
async function checkEvents(
  client: ApiClient,
  plan: Extract<OutcomePlan, { strategy: 'event' }>,
  options: { timeoutMs?: number },
): Promise<OutcomeCheck> {
  if (!plan.since) return 'unknowable';
  const callOptions = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  const target = new Set([String(plan.entityId)]);
  const shown = await shownBySender(
    client,
    plan.list,
    eventFilterOf(plan, plan.since),
    (event) => isEventOf(event, plan.actions, target),
    callOptions,
  );
  if (shown === FORBIDDEN) return 'unknowable';
  return shown ? 'done' : 'not_seen';
}

/**
 * Whether a new item with the requested values is the sender's: its create event (the item's id
 * as the event's entity, whenever dated: a new item has the one) by the sender's API user.
 * Someone else's is theirs, made meanwhile with the same values; one whose event has not shown yet
 * is waited for. A token that may not read the events cannot tell whose it is, and then the item
 * itself is the evidence a create has (it was not in the list read just before the send).
 */
async function whoCreated(
  client: ApiClient,
  created: CreateEvents,
  fresh: readonly unknown[],
  options: { timeoutMs?: number },
): Promise<OutcomeCheck> {
  const ids = new Set(fresh.map((item) => idOf(item)).filter((id): id is string => id !== undefined));
  const shown = await shownBySender(
    client,
    created.list,
    creationFilter(created.actions, [...ids]),
    (event) => isEventOf(event, created.actions, ids),
    options,
  );
  if (shown === FORBIDDEN) return 'done';
  return shown ? 'done' : 'not_seen';
}

/**
 * Whether the events `filter` selects hold one that `isChange` accepts, by the API user of the
 * client's token. Undefined when the events or that user could not be read this time (no event
 * can then be told to be the change's); `FORBIDDEN` when the token may not read the events at all.
 */
async function shownBySender(
  client: ApiClient,
  list: AnyOperation,
  filter: Filter,
  isChange: (event: unknown) => event is ChangeEvent,
  options: { timeoutMs?: number },
): Promise<boolean | undefined | typeof FORBIDDEN> {
  const [sender, events] = await Promise.all([
    senderOf(client, options),
    client
      .listAll(list, {}, { ...options, maxPages: 1, filter })
      .then((page) => page.data.filter(isChange))
      .catch((error: unknown) => (isForbidden(error) ? FORBIDDEN : undefined)),
  ]);
  if (events === FORBIDDEN) return FORBIDDEN;
  if (sender === undefined || events === undefined) return undefined;
  return events.some((event) => event.username === sender);
}

/** The API user of each client's token, once read (`GET /profile`, which any token may call). */
const senders = new WeakMap<ApiClient, string>();

async function senderOf(client: ApiClient, options: { timeoutMs?: number }): Promise<string | undefined> {
  const known = senders.get(client);
  if (known !== undefined) return known;
  const profile = operations.find((op) => op.id === 'profile.view');
  if (!profile) return undefined;
  const shown = await client.call(profile, {}, options).catch(() => undefined);
  const username =
    typeof shown === 'object' && shown !== null ? (shown as Record<string, unknown>).username : undefined;
  if (typeof username !== 'string') return undefined;
  senders.set(client, username);
  return username;
}

interface ChangeEvent {
  readonly username: unknown;
}

/**
 * An event, not failed, of one of `actions` on one of the entities `ids` names: checked again
 * here, since the filter is the API's to apply, and a failed event is no proof.
 */
function isEventOf(
  event: unknown,
  actions: readonly string[],
  ids: ReadonlySet<string>,
): event is ChangeEvent {
  if (typeof event !== 'object' || event === null) return false;
  const { action, status, entity } = event as Record<string, unknown>;
  const entityId =
    typeof entity === 'object' && entity !== null ? (entity as Record<string, unknown>).id : undefined;
  return (
    typeof action === 'string' &&
    actions.includes(action) &&
    status !== EVENT_FAILED &&
    entityId !== undefined &&
    entityId !== null &&
    ids.has(String(entityId))
  );
}

export interface SettleOptions {
  /** How long to keep reading before giving the verdict "not seen". */
  readonly windowMs: number;
  /** Pause between reads. */
  readonly intervalMs: number;
  readonly timeoutMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Reads the target until it shows the change or the window closes. A request that timed out on
 * our side may still be running on the API's, so one read right after the timeout is not enough.
 */
export async function settleOutcome(
  client: ApiClient,
  plan: OutcomePlan | undefined,
  baseline: OutcomeBaseline | undefined,
  options: SettleOptions,
): Promise<{ check: OutcomeCheck; reads: number }> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const until = Date.now() + options.windowMs;
  let reads = 0;
  for (;;) {
    const check = await checkOutcome(client, plan, baseline, {
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
    reads++;
    if (check !== 'not_seen' || Date.now() + options.intervalMs > until) return { check, reads };
    await sleep(options.intervalMs);
  }
}

/** `/cloud volumes view 12`: the command a person runs to see for themselves. */
export function checkCommandFor(op: AnyOperation, input: Readonly<Record<string, unknown>>): string {
  const plan = outcomePlanFor(op, input);
  if (plan?.strategy === 'event') {
    // What the events show, for the node the change was sent to.
    return `/cloud events list --action ${plan.actions.at(-1) ?? ''} --entity.id ${String(plan.entityId)}`;
  }
  const target =
    plan?.strategy === 'appears'
      ? plan.list
      : plan
        ? plan.view
        : (viewOperationFor(op) ?? listOperationFor(op));
  if (!target) return `/cloud ${op.group} list`;
  const ids = target.pathParams.map((name) => String(input[name] ?? `<${name}>`));
  return ['/cloud', target.group, target.action, ...ids].join(' ');
}

function bodyOf(op: AnyOperation, input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const skip = new Set([...op.pathParams, ...op.queryParams]);
  return Object.fromEntries(
    Object.entries(input).filter(([key, value]) => !skip.has(key) && value !== undefined),
  );
}

function scalarFields(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body).filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value)),
  );
}

function pick(input: Readonly<Record<string, unknown>>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, input[name]]));
}

function idOf(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const id = (item as Record<string, unknown>).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * 'done' when every expected field the resource shows has the expected value, 'not_seen' when one
 * differs, undefined when the resource shows none of them (write-only fields such as passwords).
 */
function matches(resource: unknown, expected: Record<string, unknown>): 'done' | 'not_seen' | undefined {
  if (typeof resource !== 'object' || resource === null) return undefined;
  const shown = resource as Record<string, unknown>;
  let compared = 0;
  for (const [key, value] of Object.entries(expected)) {
    if (!Object.hasOwn(shown, key)) continue;
    compared++;
    if (!sameValue(shown[key], value)) return 'not_seen';
  }
  return compared > 0 ? 'done' : undefined;
}

/** Deep equality where an expected object only needs its own keys to match (a partial update). */
function sameValue(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => sameValue(actual[index], item))
    );
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return false;
    const shown = actual as Record<string, unknown>;
    return Object.entries(expected).every(([key, value]) => sameValue(shown[key], value));
  }
  return actual === expected;
}
