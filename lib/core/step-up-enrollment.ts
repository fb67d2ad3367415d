import type { Logger } from '@aws-lambda-powertools/logger';
import { resetSummary } from '../changes/bot-operations.js';
import type { ApprovalSurface, ChangeDeps } from '../changes/ports.js';
import { type RequestOutcome, requestBotChange } from '../changes/requests.js';
import {
  askForFactorProof,
  checkCode,
  enrollmentUri,
  type FactorProofCheck,
  type FactorProofNeed,
  proveFactorChange,
  type StepUpProof,
  startCodeEnrollment,
} from '../changes/step-up.js';
import type { Approval, FactorChange, Store } from '../store/index.js';
import { type AdminDeps, isPolicyAdmin } from './admins.js';
import type { Caller } from './caller.js';

/**
 * A person's step-up methods, whichever surface they come through: enrolling an authenticator
 * app and confirming it with its first code, enrolling a passkey, what they have enrolled, and
 * removing it all (their own, or anyone's for a policy admin). How a code is checked, the lockout
 * and what an approval asks for are `lib/changes/step-up.ts`; this module only decides who may do
 * what to whose enrollment, and writes it.
 *
 * Binding another method, or removing one's own, takes a fresh proof from a method the person has
 * already (NIST SP 800-63B §6.1.2.3): whoever holds their Slack session alone cannot add a passkey
 * of their own or take the person's away. Someone with no method yet enrolls their first as before.
 * The person is told (`FactorNotices`) whenever one of their methods is added or removed.
 *
 * An enrollment's secret is in one outcome only (`app_started`), for the enrolling person's eyes:
 * never in the audit, a log, a notice or any other outcome.
 */

/** A method of the person's added or removed, for the person to hear of where only they read it. */
export interface FactorNotice {
  readonly team: string;
  /** Whose methods changed. */
  readonly user: string;
  /** Who changed them: the person themself, or the admin whose reset was approved. */
  readonly by: string;
  readonly change: 'added' | 'removed';
  readonly app: boolean;
  readonly passkeys: number;
  readonly at: Date;
}

/** How the surface tells a person of a change to their methods (Slack: their DM). Never throws. */
export interface FactorNotices {
  factorChanged(notice: FactorNotice): Promise<void>;
}

export interface StepUpEnrollmentDeps extends AdminDeps {
  readonly store: Pick<Store, 'stepUp' | 'passkeys' | 'approvalPolicy' | 'audit' | 'now'>;
  readonly logger: Pick<Logger, 'error'>;
  readonly factorNotices: FactorNotices;
}

/** A change to the caller's own methods waits for a proof from one they have: nothing changed yet. */
export type ProofNeeded = {
  readonly kind: 'proof_needed';
  readonly need: Exclude<FactorProofNeed, { kind: 'none' }>;
};

// ---------------------------------------------------------------------------------------------
// enrolling

/** Which step-up method to enroll: an authenticator app (its codes) or a passkey. */
export type StepUpMethod = 'code' | 'passkey';

export type EnrollmentOutcome =
  /**
   * A new secret, pending until its first code confirms it; for the caller's eyes only, who may
   * also see it as a QR code on a page the surface gives them a one-time link to.
   */
  | {
      readonly kind: 'app_started';
      readonly secret: string;
      readonly uri: string;
      readonly team: string;
      readonly user: string;
    }
  /** The caller has a confirmed app already: a new one needs a reset first. */
  | { readonly kind: 'app_enrolled_already' }
  /**
   * A passkey is added on the passkey page, through a one-time link bound to this person, which
   * the surface asks for and gives to them alone.
   */
  | { readonly kind: 'passkey_link'; readonly team: string; readonly user: string }
  | ProofNeeded;

/**
 * Starts enrolling the caller's own step-up method: at once when it is their first, else once a
 * proof from a method they have completes the challenge this opens (`completeFactorChange`).
 */
export async function startEnrollment(
  deps: Pick<StepUpEnrollmentDeps, 'store'>,
  caller: Pick<Caller, 'team' | 'user'>,
  request: { readonly method: StepUpMethod },
): Promise<EnrollmentOutcome> {
  if (request.method === 'code') {
    const enrollment = await deps.store.stepUp.enrollment(caller.team, caller.user);
    if (enrollment?.status === 'active') return { kind: 'app_enrolled_already' };
  }
  const change: FactorChange = request.method === 'passkey' ? 'add_passkey' : 'add_app';
  const need = await askForFactorProof(deps.store, { team: caller.team, user: caller.user, change });
  return need.kind === 'none' ? enroll(deps, caller, change) : { kind: 'proof_needed', need };
}

/** What adding a method gives the caller: a passkey link, or a new app secret. */
async function enroll(
  deps: Pick<StepUpEnrollmentDeps, 'store'>,
  caller: Pick<Caller, 'team' | 'user'>,
  change: Exclude<FactorChange, 'remove_own'>,
): Promise<Exclude<EnrollmentOutcome, ProofNeeded>> {
  if (change === 'add_passkey') return { kind: 'passkey_link', team: caller.team, user: caller.user };
  const started = await startCodeEnrollment(deps.store, caller.team, caller.user, appLabel(caller));
  return started.kind === 'started'
    ? { kind: 'app_started', secret: started.secret, uri: started.uri, team: caller.team, user: caller.user }
    : { kind: 'app_enrolled_already' };
}

/** The label an authenticator app shows beside the code: whose, in which workspace. */
function appLabel(who: Pick<Caller, 'team' | 'user'>): string {
  return `${who.user}@${who.team}`;
}

export type PendingAppKey =
  /** The `otpauth://` URI of the app waiting for its first code: for the person's eyes only. */
  | { readonly kind: 'pending'; readonly uri: string }
  /** Nothing to show: no enrollment, or one confirmed (its key is never shown again). */
  | { readonly kind: 'none' | 'confirmed' };

/**
 * The key of `who`'s authenticator app enrollment while it waits for its first code, as the URI
 * an app scans (the QR page's): read through the store, where it is sealed, for that person only.
 */
export async function pendingAppKey(
  deps: { readonly store: Pick<Store, 'stepUp'> },
  who: Pick<Caller, 'team' | 'user'>,
): Promise<PendingAppKey> {
  const enrollment = await deps.store.stepUp.enrollment(who.team, who.user);
  if (!enrollment) return { kind: 'none' };
  if (enrollment.status === 'active') return { kind: 'confirmed' };
  const secret = await deps.store.stepUp.secret(who.team, who.user);
  return secret === undefined
    ? { kind: 'none' }
    : { kind: 'pending', uri: enrollmentUri(secret, appLabel(who)) };
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
      await notify(deps, caller, caller.user, 'added', { app: true, passkeys: 0 });
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
  /**
   * Someone else's reset asked for as a change: nothing removed until it is approved under the
   * workspace's rule (never by the person whose methods it removes).
   */
  | { readonly kind: 'requested'; readonly user: string; readonly request: RequestOutcome }
  /** Removed (audited): the person enrolls again from nothing. */
  | {
      readonly kind: 'reset';
      readonly user: string;
      readonly appRemoved: boolean;
      readonly passkeysRemoved: number;
    };

/** What an admin's request to reset someone else needs besides the enrollment's dependencies. */
export interface ResetRequestDeps extends StepUpEnrollmentDeps, Pick<ChangeDeps, 'api'> {
  readonly store: StepUpEnrollmentDeps['store'] & ChangeDeps['store'];
  readonly logger: ChangeDeps['logger'];
}

/**
 * Removes every step-up method of `request.user` (the caller's own when absent): their
 * authenticator app, pending or confirmed, and all their passkeys. Anyone resets their own, with a
 * proof from one of them (`completeFactorChange` then removes them). Someone else's is a policy
 * admin's to ask for, and a reviewed change like any other: a request under the workspace's rule,
 * its card in the channel, run once approved (`applyApprovedReset`).
 */
export async function resetStepUp(
  deps: ResetRequestDeps,
  surface: ApprovalSurface,
  caller: Caller,
  request: { readonly user?: string | undefined; readonly reason?: string | undefined },
): Promise<ResetOutcome | ProofNeeded> {
  const whose = request.user ?? caller.user;
  if (whose !== caller.user) {
    const policy = await deps.store.approvalPolicy.get(caller.team);
    if (!(await isPolicyAdmin(deps, caller, policy))) return { kind: 'not_allowed' };
    const [enrollment, passkeys] = await Promise.all([
      deps.store.stepUp.enrollment(caller.team, whose),
      deps.store.passkeys.list(caller.team, whose),
    ]);
    if (!enrollment && passkeys.length === 0) return { kind: 'nothing_enrolled', user: whose };
    const asked = await requestBotChange(deps, surface, {
      team: caller.team,
      user: caller.user,
      channel: caller.channel,
      operationId: 'mfa.reset',
      input: { user: whose },
      summary: resetSummary(whose),
      reason: request.reason,
    });
    return { kind: 'requested', user: whose, request: asked };
  }
  const need = await askForFactorProof(deps.store, { team: caller.team, user: whose, change: 'remove_own' });
  // Nothing bound: what is left to remove is at most an app never confirmed, which proves nothing.
  return need.kind === 'none' ? removeMethods(deps, caller, whose) : { kind: 'proof_needed', need };
}

/**
 * An admin's reset of `whose` methods, approved: removed now, audited as the requester's, and the
 * person told. Running it twice removes nothing more.
 */
export function applyApprovedReset(
  deps: Pick<StepUpEnrollmentDeps, 'store' | 'logger' | 'factorNotices'>,
  approval: Pick<Approval, 'team' | 'requester'>,
  whose: string,
): Promise<Exclude<ResetOutcome, { kind: 'not_allowed' | 'requested' }>> {
  return removeMethods(deps, { team: approval.team, user: approval.requester }, whose);
}

/** Removes `whose` methods, audited, and tells them. */
async function removeMethods(
  deps: Pick<StepUpEnrollmentDeps, 'store' | 'logger' | 'factorNotices'>,
  caller: Pick<Caller, 'team' | 'user'>,
  whose: string,
): Promise<Exclude<ResetOutcome, { kind: 'not_allowed' | 'requested' }>> {
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
  await notify(deps, caller, whose, 'removed', { app: appRemoved, passkeys: passkeysRemoved });
  return { kind: 'reset', user: whose, appRemoved, passkeysRemoved };
}

// ---------------------------------------------------------------------------------------------
// a change to one's own methods, proved

export type FactorChangeCompletion =
  /** The proof did not check out, or the challenge cannot be used: nothing changed. */
  | { readonly kind: 'not_proved'; readonly check: Exclude<FactorProofCheck, { kind: 'proved' }> }
  /** Proved: a method may be added (a passkey link, or an app's secret for the caller's eyes). */
  | { readonly kind: 'enrollment'; readonly outcome: Exclude<EnrollmentOutcome, ProofNeeded> }
  /** Proved: the caller's methods were removed (or there was nothing left to remove). */
  | {
      readonly kind: 'reset';
      readonly outcome: Exclude<ResetOutcome, { kind: 'not_allowed' | 'requested' }>;
    };

/**
 * Completes the change a factor challenge was opened for, with a proof from one of the caller's
 * methods: a code of their app, or a passkey assertion `lib/passkeys/` has verified for them. The
 * challenge is theirs and used once; only then is the change made.
 */
export async function completeFactorChange(
  deps: StepUpEnrollmentDeps,
  caller: Pick<Caller, 'team' | 'user'>,
  challengeId: string,
  proof: StepUpProof,
): Promise<FactorChangeCompletion> {
  const check = await proveFactorChange(deps.store, caller.team, caller.user, challengeId, proof);
  if (check.kind !== 'proved') return { kind: 'not_proved', check };
  const { change } = check.challenge;
  if (change === 'remove_own')
    return { kind: 'reset', outcome: await removeMethods(deps, caller, caller.user) };
  return { kind: 'enrollment', outcome: await enroll(deps, caller, change) };
}

/**
 * A passkey was registered on the passkey page through a link of the person's own: audited, and
 * the person told.
 */
export async function passkeyAdded(
  deps: Pick<StepUpEnrollmentDeps, 'store' | 'logger' | 'factorNotices'>,
  who: Pick<Caller, 'team' | 'user'>,
): Promise<void> {
  await auditEnrollment(deps, who, 'mfa.enroll', who.user, 'passkey added');
  await notify(deps, who, who.user, 'added', { app: false, passkeys: 1 });
}

function notify(
  deps: Pick<StepUpEnrollmentDeps, 'store' | 'factorNotices'>,
  by: Pick<Caller, 'team' | 'user'>,
  whose: string,
  change: FactorNotice['change'],
  what: Pick<FactorNotice, 'app' | 'passkeys'>,
): Promise<void> {
  return deps.factorNotices.factorChanged({
    team: by.team,
    user: whose,
    by: by.user,
    change,
    ...what,
    at: deps.store.now(),
  });
}

/** One audit entry; a lost one is logged, never thrown: the change itself has happened. */
async function auditEnrollment(
  deps: Pick<StepUpEnrollmentDeps, 'store' | 'logger'>,
  caller: Pick<Caller, 'team' | 'user'>,
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
