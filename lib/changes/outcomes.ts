import type { ApiCallEvent, ApiClient } from '../api/client.js';
import { createApiClient } from '../api/client-factory.js';
import { ApiError } from '../api/errors.js';
import { isOutcomeInDoubt } from '../api/in-doubt.js';
import type { AnyOperation } from '../api/operation.js';
import {
  checkOutcome,
  type OutcomeBaseline,
  type OutcomeCheck,
  type OutcomePlan,
  outcomePlanFor,
  readBaseline,
  settleOutcome,
} from '../api/outcome.js';
import type { ChangeDeps, ChangeRequest, OperationRunner, RenderedAnswer } from './ports.js';
import { requesterToken } from './tokens.js';

/**
 * Running a change so that its result is told truthfully. A change either answers (done, or
 * refused by the API), or its outcome is in doubt; a doubt is settled by reading the target back
 * (`lib/api/outcome.ts`), and only then does anyone hear "done" or "did not happen". The worker's
 * plain jobs and approved requests both go through here.
 */

export interface OutcomeCheckSettings {
  /** How long the worker keeps reading the target after a doubtful answer. */
  readonly windowMs: number;
  /** Pause between reads. */
  readonly intervalMs: number;
  /** Budget of each read. */
  readonly readTimeoutMs: number;
  /** An approval still in doubt this long after the call ends as "unknown". */
  readonly giveUpAfterMs: number;
  /** Between the sweep's checks of an approval still in doubt. */
  readonly recheckEveryMs: number;
}

/**
 * The worker runs for 120 s at most: the API's 10 s timeout, then a minute of reads leaves room.
 * The reporter's sweep (every 5 minutes) goes on checking approvals for half an hour.
 */
export const DEFAULT_OUTCOME_CHECKS: OutcomeCheckSettings = {
  windowMs: 60_000,
  intervalMs: 3_000,
  readTimeoutMs: 5_000,
  giveUpAfterMs: 30 * 60_000,
  recheckEveryMs: 5 * 60_000,
};

export type ChangeAttempt<Answer extends RenderedAnswer = RenderedAnswer> =
  | {
      readonly kind: 'answered';
      readonly reply: Answer;
      readonly output: unknown;
    }
  | {
      readonly kind: 'in_doubt';
      readonly error: ApiError;
      readonly client: ApiClient;
      readonly plan: OutcomePlan | undefined;
      readonly baseline: OutcomeBaseline | undefined;
      /** When the request was about to be sent, on the bot's clock (for the events read-back). */
      readonly since: Date | undefined;
      /**
       * Every attempt was answered with a server error, so none of them is still under way on
       * the API's side: what the target shows now is what the attempts left.
       */
      readonly everyAttemptAnswered: boolean;
    };

/**
 * A server error that the API sent when it was done with the request. A 504 is a gateway that
 * stopped waiting: the API behind it may still be working on the request.
 */
function answeredWithServerError(event: ApiCallEvent): boolean {
  return event.status !== undefined && event.status >= 500 && event.status !== 504;
}

/**
 * Runs `request` once. A create first reads its list (the baseline that later tells a new item
 * from an old one with the same label). API refusals and unexpected errors are thrown as before.
 */
export async function attemptChange<Request extends ChangeRequest, Answer extends RenderedAnswer>(
  deps: ChangeDeps & { readonly outcomeChecks?: OutcomeCheckSettings | undefined },
  runner: OperationRunner<Request, Answer>,
  request: Request,
): Promise<ChangeAttempt<Answer>> {
  const settings = deps.outcomeChecks ?? DEFAULT_OUTCOME_CHECKS;
  let plan = outcomePlanFor(request.op, request.input);
  let client: ApiClient | undefined;
  let baseline: OutcomeBaseline | undefined;
  let since: Date | undefined;
  let output: unknown;
  const attempts: ApiCallEvent[] = [];
  try {
    const reply = await runner.run(request, {
      onApiCall: (event) => {
        if (event.operationId === request.op.id) attempts.push(event);
      },
      onOutput: (value) => (output = value),
      beforeCall: async (caller) => {
        client = caller;
        baseline = await readBaseline(caller, plan, { timeoutMs: settings.readTimeoutMs });
        // Taken after the baseline read, as late before the call as the bot can.
        since = deps.store.now();
        plan = outcomePlanFor(request.op, request.input, { since });
      },
    });
    return { kind: 'answered', reply, output };
  } catch (error) {
    if (client && isOutcomeInDoubt(request.op, error)) {
      const everyAttemptAnswered = attempts.length > 0 && attempts.every(answeredWithServerError);
      return { kind: 'in_doubt', error, client, plan, baseline, since, everyAttemptAnswered };
    }
    // The API answered and only showing the answer failed: it happened.
    if (output !== undefined && !(error instanceof ApiError)) {
      deps.logger.error('result of a change not rendered', { operationId: request.op.id, error });
      return { kind: 'answered', reply: runner.wentThrough(request.op), output };
    }
    throw error;
  }
}

/** Reads the target until the change shows or the window closes. */
export async function settle(
  settings: OutcomeCheckSettings,
  attempt: Extract<ChangeAttempt, { kind: 'in_doubt' }>,
): Promise<OutcomeCheck> {
  const { check } = await settleOutcome(attempt.client, attempt.plan, attempt.baseline, {
    windowMs: settings.windowMs,
    intervalMs: settings.intervalMs,
    timeoutMs: settings.readTimeoutMs,
  });
  return check;
}

/**
 * One read of the target with the requester's token, for the sweep. `since`: when the request was
 * about to be sent (at the latest), as kept with the request; the events read-back needs it.
 */
export async function checkOnce(
  deps: ChangeDeps,
  settings: OutcomeCheckSettings,
  request: Pick<ChangeRequest, 'team' | 'user' | 'op' | 'input'>,
  since?: Date,
): Promise<OutcomeCheck> {
  const plan = outcomePlanFor(request.op, request.input, { since });
  // A create's baseline was in the worker's memory only; without it a new item cannot be told apart.
  if (!plan || plan.strategy === 'appears') return 'unknowable';
  const token = await requesterToken(deps.store, request.team, request.user, request.op);
  if (!token.ok) return 'not_seen';
  return checkOutcome(createApiClient(deps.api, token.token), plan, undefined, {
    timeoutMs: settings.readTimeoutMs,
  });
}

/** "The API did not answer in time": what went wrong, in words, without claiming an outcome. */
export function whatWentWrong(error: ApiError): string {
  switch (error.code) {
    case 'timeout':
    case 'aborted':
      return 'The API did not answer in time';
    case 'network':
      return 'The connection to the API dropped before its answer arrived';
    case 'invalid_response':
      return 'The API answered with something the bot could not read';
    default:
      return `The API answered with a server error${error.status ? ` (HTTP ${error.status})` : ''}`;
  }
}

export interface Verdict {
  /** `executed`: it happened; `unknown`: the bot could not tell. */
  readonly outcome: 'executed' | 'unknown';
  /** What the last read showed: `not_seen` here means the checks gave up. */
  readonly check: OutcomeCheck;
  /** How the change shows when read back, when it can be read back at all. */
  readonly strategy: OutcomePlan['strategy'] | undefined;
  /** How long the checks went on ("30 minutes"). */
  readonly waited: string;
}

/** What the checks concluded. `not_seen` here means the checks gave up. */
export function verdictFor(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  check: OutcomeCheck,
  waited: string,
): Verdict {
  const strategy = outcomePlanFor(op, input)?.strategy;
  return { outcome: check === 'done' ? 'executed' : 'unknown', check, strategy, waited };
}

/** "4 seconds", "1 minute", "30 minutes". */
export function durationText(ms: number): string {
  if (ms < 60_000) {
    const seconds = Math.max(1, Math.round(ms / 1000));
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const minutes = Math.round(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
