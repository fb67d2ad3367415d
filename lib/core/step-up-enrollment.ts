import type { Logger } from '@aws-lambda-powertools/logger';
import { checkCode, startCodeEnrollment } from '../changes/step-up.js';
import type { Store } from '../store/index.js';
import { type AdminDeps, isPolicyAdmin } from './admins.js';
import type { Caller } from './caller.js';

/**
 * A person's step-up methods, whichever surface they come through: enrolling an authenticator
 * app and confirming it with its first code, enrolling a passkey, what they have enrolled, and
 * removing it all (their own, or anyone's for a policy admin). How a code is checked, the lockout
 * and what an approval asks for are `lib/changes/step-up.ts`; this module only decides who may do
 * what to whose enrollment, and writes it.
 *
 * An enrollment's secret is in one outcome only (`app_started`), for the enrolling person's eyes:
 * never in the audit, a log or any other outcome.
 */

export interface StepUpEnrollmentDeps extends AdminDeps {
  readonly store: Pick<Store, 'stepUp' | 'passkeys' | 'approvalPolicy' | 'audit' | 'now'>;
  readonly logger: Pick<Logger, 'error'>;
}

// ---------------------------------------------------------------------------------------------
// enrolling

/** Which step-up method to enroll: an authenticator app (its codes) or a passkey. */
export type StepUpMethod = 'code' | 'passkey';

export type EnrollmentOutcome =
  /** A new secret, pending until its first code confirms it; for the caller's eyes only. */
  | { readonly kind: 'app_started'; readonly secret: string; readonly uri: string }
  /** The caller has a confirmed app already: a new one needs a reset first. */
  | { readonly kind: 'app_enrolled_already' }
  /**
   * A passkey is added on the passkey page, through a one-time link bound to this person, which
   * the surface asks for and gives to them alone.
   */
  | { readonly kind: 'passkey_link'; readonly team: string; readonly user: string };

/** Starts enrolling the caller's own step-up method. */
export async function startEnrollment(
  deps: Pick<StepUpEnrollmentDeps, 'store'>,
  caller: Caller,
  request: { readonly method: StepUpMethod },
): Promise<EnrollmentOutcome> {
  if (request.method === 'passkey') return { kind: 'passkey_link', team: caller.team, user: caller.user };
  // The label an authenticator app shows beside the code: whose, in which workspace.
  const started = await startCodeEnrollment(
    deps.store,
    caller.team,
    caller.user,
    `${caller.user}@${caller.team}`,
  );
  return started.kind === 'started'
    ? { kind: 'app_started', secret: started.secret, uri: started.uri }
    : { kind: 'app_enrolled_already' };
}

export type ConfirmOutcome =
  /** The app counts from now on (audited). */
  | { readonly kind: 'confirmed' }
  | { readonly kind: 'confirmed_already' }
  /** No enrollment was started. */
  | { readonly kind: 'nothing_to_confirm' }
  | { readonly kind: 'locked_out'; readonly until: Date }
  | { readonly kind: 'wrong'; readonly attemptsLeft: number }
  /** The code was right but used already (or older than one used). */
  | { readonly kind: 'replayed'; readonly attemptsLeft: number };

/** Confirms the caller's pending authenticator app with a code it shows; a wrong code counts towards the lockout. */
export async function confirmAuthenticatorApp(
  deps: StepUpEnrollmentDeps,
  caller: Caller,
  request: { readonly code: string },
): Promise<ConfirmOutcome> {
  const check = await checkCode(deps.store, caller.team, caller.user, request.code, true);
  switch (check.kind) {
    case 'accepted':
      await auditEnrollment(deps, caller, 'mfa.enroll', caller.user, 'authenticator app confirmed');
      return { kind: 'confirmed' };
    case 'not_enrolled': {
      const enrollment = await deps.store.stepUp.enrollment(caller.team, caller.user);
      return { kind: enrollment?.status === 'active' ? 'confirmed_already' : 'nothing_to_confirm' };
    }
    default:
      return check;
  }
}

// ---------------------------------------------------------------------------------------------
// status

export type AppEnrollment =
  | { readonly kind: 'none' }
  | { readonly kind: 'pending' }
  | { readonly kind: 'active'; readonly confirmedAt: Date | null };

export interface StepUpStatus {
  readonly app: AppEnrollment;
  /** When each of the caller's passkeys was added, oldest first: nothing that tells one from another. */
  readonly passkeysAddedAt: readonly Date[];
}

/** The caller's own step-up methods. */
export async function stepUpStatus(
  deps: Pick<StepUpEnrollmentDeps, 'store'>,
  caller: Caller,
): Promise<StepUpStatus> {
  const [enrollment, passkeys] = await Promise.all([
    deps.store.stepUp.enrollment(caller.team, caller.user),
    deps.store.passkeys.list(caller.team, caller.user),
  ]);
  const app: AppEnrollment = !enrollment
    ? { kind: 'none' }
    : enrollment.status === 'pending'
      ? { kind: 'pending' }
      : { kind: 'active', confirmedAt: enrollment.confirmedAt };
  const passkeysAddedAt = passkeys
    .map((passkey) => passkey.createdAt)
    .sort((a, b) => a.getTime() - b.getTime());
  return { app, passkeysAddedAt };
}

// ---------------------------------------------------------------------------------------------
// reset

export type ResetOutcome =
  /** Someone else's step-up is a policy admin's to reset. */
  | { readonly kind: 'not_allowed' }
  | { readonly kind: 'nothing_enrolled'; readonly user: string }
  /** Removed (audited): the person enrolls again from nothing. */
  | {
      readonly kind: 'reset';
      readonly user: string;
      readonly appRemoved: boolean;
      readonly passkeysRemoved: number;
    };

/**
 * Removes every step-up method of `request.user` (the caller's own when absent): their
 * authenticator app, pending or confirmed, and all their passkeys. Anyone resets their own; only a
 * policy admin resets someone else's.
 */
export async function resetStepUp(
  deps: StepUpEnrollmentDeps,
  caller: Caller,
  request: { readonly user?: string | undefined },
): Promise<ResetOutcome> {
  const whose = request.user ?? caller.user;
  if (whose !== caller.user) {
    const policy = await deps.store.approvalPolicy.get(caller.team);
    if (!(await isPolicyAdmin(deps, caller, policy))) return { kind: 'not_allowed' };
  }
  const [appRemoved, passkeysRemoved] = await Promise.all([
    deps.store.stepUp.reset(caller.team, whose),
    deps.store.passkeys.removeAll(caller.team, whose),
  ]);
  if (!appRemoved && passkeysRemoved === 0) return { kind: 'nothing_enrolled', user: whose };
  const removed = [
    ...(appRemoved ? ['authenticator app'] : []),
    ...(passkeysRemoved > 0 ? [`${passkeysRemoved} passkey${passkeysRemoved === 1 ? '' : 's'}`] : []),
  ].join(' and ');
  await auditEnrollment(deps, caller, 'mfa.reset', whose, `${removed} removed`);
  return { kind: 'reset', user: whose, appRemoved, passkeysRemoved };
}

/** One audit entry; a lost one is logged, never thrown: the change itself has happened. */
async function auditEnrollment(
  deps: Pick<StepUpEnrollmentDeps, 'store' | 'logger'>,
  caller: Caller,
  action: 'mfa.enroll' | 'mfa.reset',
  whose: string,
  detail: string,
): Promise<void> {
  await deps.store.audit
    .append({
      team: caller.team,
      actor: caller.user,
      action,
      target: `user ${whose}`,
      result: 'succeeded',
      detail,
    })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { error }));
}
