/**
 * The ids of the bot's interactive elements, shared by the renderers and the listeners, the
 * payloads their values carry and the encoding of a payload (`interactions.ts` holds the schemas
 * that decode it). Apart from the schemas so the listeners and renderers load without them (and
 * zod) before a cold start's first answer.
 */
export const ActionId = {
  /** Run an operation with the given input (view a row, next step buttons). */
  run: 'op:run',
  /** Show another page of a list. */
  page: 'op:page',
  /** Send a whole list as a file (CSV or JSON) to the clicker's direct message with the app. */
  exportList: 'op:export',
  /** An overflow menu whose options each carry a run payload. */
  menu: 'op:menu',
  approve: 'approval:approve',
  deny: 'approval:deny',
  cancel: 'approval:cancel',
  /** Open the login modal (from an error that says "log in first"). */
  login: 'bot:login',
  /** Pause, resume or run one of the clicker's reports from their Home tab. */
  homeReport: 'home:report',
  /** Revoke one of the clicker's agents from their Home tab (its value names the grant). */
  homeAgent: 'home:agent',
  /** Cancel a runbook's run from its message (its value is the run's id). */
  runbookCancel: 'runbook:cancel',
  /** Snooze an alert's issue or service from the alert (an overflow; see `SnoozeOption`). */
  alertSnooze: 'report:snooze',
} as const;

export const CallbackId = {
  login: 'login',
  operationForm: 'op:form',
  /** The modal asking for an authenticator code before a vote counts (step-up). */
  stepUpCode: 'stepup:code',
  /** `/cloud runbook add NAME`: the modal that asks for the steps. */
  runbookAdd: 'runbook:add',
  /** `/cloud settings import`: the modal that takes the document. */
  settingsImport: 'settings:import',
} as const;

/** Matches a contract action id with or without the suffix `actionsBlock` adds (`op:run`, `op:run:2`). */
export function actionIdPattern(actionId: string): RegExp {
  return new RegExp(`^${actionId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?::\\d+)?$`);
}

/** Run an operation with the given input. */
export interface RunPayload {
  readonly operationId: string;
  readonly input: Record<string, unknown>;
}

/** Show a page of a list (see `PagePayloadSchema` for what the positions may be). */
export interface PagePayload extends RunPayload {
  /** The page the person will see (1-based). */
  readonly page: number;
  /** Where that page starts in the whole list; without it the page is found by packing from the top. */
  readonly start?: number;
  /** Where the page before it starts. */
  readonly previousStart?: number;
  /** The `X-Filter` the list was read with. */
  readonly filter?: Record<string, unknown>;
  /** The one-line-an-item `--all` view. */
  readonly compact?: true;
}

/** Send a whole list as a file. */
export interface ExportPayload extends RunPayload {
  readonly filter?: Record<string, unknown>;
  readonly format: 'csv' | 'json';
}

/** Approve, deny or cancel one approval request. */
export interface ApprovalPayload {
  readonly approvalId: string;
}

export type ActionPayload = RunPayload | PagePayload | ExportPayload | ApprovalPayload;

type PayloadField = keyof RunPayload | keyof PagePayload | keyof ExportPayload | keyof ApprovalPayload;

/**
 * Each payload field and the key that carries it in a button's or option's value. Slack caps a
 * button value at 2,000 characters and an overflow option's at 150 (`SLACK_LIMITS`), and an
 * operation's input shares that room, so the wire spells every field with one letter; the code on
 * either side sees only the names. Cards already in channels carry these letters: changing one
 * breaks their buttons.
 */
export const PAYLOAD_WIRE_KEYS = {
  operationId: 'o',
  input: 'i',
  page: 'p',
  start: 'k',
  previousStart: 'b',
  filter: 'f',
  compact: 'c',
  format: 'x',
  approvalId: 'a',
} as const satisfies Record<PayloadField, string>;

/**
 * A payload as a button's or option's value (decoded by `decodeActionValue` with the schemas of
 * `interactions.ts`). `compact` goes as `1`, the shortest JSON that says yes.
 */
export function encodeActionValue(payload: ActionPayload): string {
  const wire: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(payload)) {
    if (value === undefined) continue;
    const key: string | undefined = PAYLOAD_WIRE_KEYS[field as PayloadField];
    // Only a spread of something else into a payload gets here; sent on, it would break the value.
    if (key === undefined) throw new TypeError(`no wire key for the payload field "${field}"`);
    wire[key] = field === 'compact' ? 1 : value;
  }
  return JSON.stringify(wire);
}

/**
 * An alert's snooze option: the subscription (`s`), the issue or service (`k`: `i` or `s`, `t` its
 * id) and how long (`d`: `1h`, `4h`, `r` until resolved). Short keys: an option's value holds 150
 * characters (SLACK-FACTS, Block Kit limits).
 */
export interface SnoozeOption {
  readonly s: string;
  readonly k: 'i' | 's';
  readonly t: number;
  readonly d: '1h' | '4h' | 'r';
}
