import { Secret, TOTP } from 'otpauth';
import type {
  Approval,
  ApprovalPolicy,
  ChallengeDecision,
  ChallengeMethods,
  FactorChallenge,
  FactorChange,
  StepUpChallenge,
  StepUpRequirement,
  Store,
} from '../store/index.js';

/**
 * Step-up approval: where a rule asks for it, a click on Approve, Deny or break-glass counts for
 * nothing by itself. It opens a challenge bound to the person, the request and the decision,
 * single-use and minutes-long; a proof (an authenticator-app code today, a passkey assertion
 * from `lib/passkeys/`) completes it, and only then is the vote recorded, through the same path
 * as a click without step-up (`completeStepUp` in `decisions.ts`).
 *
 * Codes are RFC 6238 TOTP: 6 digits, 30-second steps, one step of clock skew either way. Each
 * person's latest accepted step is remembered, so a code (or an older one) counts once; wrong
 * codes are counted per person per window, and past the limit nothing is accepted, not even a
 * right code, until the window ends.
 */

export const CODE_DIGITS = 6;
export const CODE_PERIOD_SECONDS = 30;
/** Steps either side of now a code may come from (a phone's clock a little off). */
export const CODE_WINDOW_STEPS = 1;
/** Wrong codes a person may enter in one lockout window. */
export const MAX_WRONG_CODES = 5;
export const LOCKOUT_WINDOW_MINUTES = 15;
/** How long a challenge waits for its proof. */
export const CHALLENGE_MINUTES = 5;
/** Where an authenticator app shows whose code it is. */
export const CODE_ISSUER = 'Cloud ChatOps';

/** What proof a decision needs under `policy`, or none. */
export function stepUpRequirement(policy: Pick<ApprovalPolicy, 'stepUp'>): StepUpRequirement {
  return policy.stepUp;
}

// ---------------------------------------------------------------------------------------------
// codes

/** A fresh authenticator-app secret, base32 as apps take it (160 bits, as RFC 4226 recommends). */
export function newCodeSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, label: string): TOTP {
  return new TOTP({
    issuer: CODE_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: CODE_DIGITS,
    period: CODE_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://` URI an authenticator app scans or takes pasted. */
export function enrollmentUri(secret: string, label: string): string {
  return totpOf(secret, label).toString();
}

/** What `code` is at `now`: the time step it belongs to, or wrong. Only digits of the right length pass. */
export function codeStep(
  secret: string,
  code: string,
  now: Date,
): { readonly ok: true; readonly step: number } | { readonly ok: false } {
  const token = code.replace(/\s+/g, '');
  if (!new RegExp(`^\\d{${CODE_DIGITS}}$`).test(token)) return { ok: false };
  const totp = totpOf(secret, 'check');
  const timestamp = now.getTime();
  const delta = totp.validate({ token, timestamp, window: CODE_WINDOW_STEPS });
  if (delta === null) return { ok: false };
  return { ok: true, step: totp.counter({ timestamp }) + delta };
}

/** The code of `secret` at `at` (for tests and the local stack's sandbox). */
export function codeAt(secret: string, at: Date): string {
  return totpOf(secret, 'code').generate({ timestamp: at.getTime() });
}

/** The lockout window `now` falls in. */
export function lockoutWindow(now: Date): { readonly start: Date; readonly end: Date } {
  const length = LOCKOUT_WINDOW_MINUTES * 60_000;
  const start = Math.floor(now.getTime() / length) * length;
  return { start: new Date(start), end: new Date(start + length) };
}

export type CodeCheck =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'wrong'; readonly attemptsLeft: number }
  /** The code was right but used already (or an older one was given after a newer). */
  | { readonly kind: 'replayed'; readonly attemptsLeft: number }
  | { readonly kind: 'locked_out'; readonly until: Date }
  | { readonly kind: 'not_enrolled' };

/**
 * Checks `code` for `user`, once. The attempt is counted first, in one conditional write that
 * refuses past the limit (`countAttempt`): a lockout is checked and the code counted in the same
 * step, so codes sent in parallel cannot all be judged on one read of the counter, and a right
 * code in a lockout counts for nothing. A right code is then taken as the person's latest step and
 * its attempt taken back; a wrong or replayed one stays counted. `confirm`: the first code of a
 * pending enrollment, which makes it active.
 */
export async function checkCode(
  store: Pick<Store, 'stepUp' | 'now'>,
  team: string,
  user: string,
  code: string,
  confirm = false,
): Promise<CodeCheck> {
  const now = store.now();
  const window = lockoutWindow(now);
  const counted = await store.stepUp.countAttempt(team, user, window, MAX_WRONG_CODES);
  if (counted === undefined) return { kind: 'locked_out', until: window.end };
  // Taken back when the code was not wrong; a lost write leaves the count one higher (stricter).
  const uncount = () => store.stepUp.uncountAttempt(team, user, window.start).catch(() => undefined);
  const enrollment = await store.stepUp.enrollment(team, user);
  const secret =
    enrollment?.status === (confirm ? 'pending' : 'active')
      ? await store.stepUp.secret(team, user)
      : undefined;
  if (secret === undefined) {
    await uncount();
    return { kind: 'not_enrolled' };
  }
  const step = codeStep(secret, code, now);
  if (step.ok && (await store.stepUp.takeStep(team, user, step.step, confirm))) {
    await uncount();
    return { kind: 'accepted' };
  }
  if (counted >= MAX_WRONG_CODES) return { kind: 'locked_out', until: window.end };
  const attemptsLeft = MAX_WRONG_CODES - counted;
  return step.ok ? { kind: 'replayed', attemptsLeft } : { kind: 'wrong', attemptsLeft };
}

// ---------------------------------------------------------------------------------------------
// enrollment

export type EnrollmentStart =
  | { readonly kind: 'started'; readonly secret: string; readonly uri: string }
  | { readonly kind: 'already_enrolled' };

/**
 * A new secret for `user`, sealed at rest; it counts once the first code confirms it. The secret
 * and URI returned are for that person's eyes only (an ephemeral message or a modal).
 */
export async function startCodeEnrollment(
  store: Pick<Store, 'stepUp' | 'now'>,
  team: string,
  user: string,
  label: string,
): Promise<EnrollmentStart> {
  const secret = newCodeSecret();
  if (!(await store.stepUp.startEnrollment(team, user, secret))) return { kind: 'already_enrolled' };
  return { kind: 'started', secret, uri: enrollmentUri(secret, label) };
}

// ---------------------------------------------------------------------------------------------
// challenges

/** Who clicked what, for the challenge a step-up opens. */
export interface StepUpAsk {
  readonly team: string;
  readonly user: string;
  readonly approval: Pick<Approval, 'id'>;
  readonly decision: ChallengeDecision;
  readonly requirement: Exclude<StepUpRequirement, 'none'>;
}

/**
 * What a click that needs step-up is answered with. Nothing is counted by any of them: the
 * vote waits for a proof of the challenge.
 */
export type StepUpNeed =
  /** Ask the person for a current code; submitting it completes `challenge`. */
  | { readonly kind: 'code'; readonly challenge: StepUpChallenge }
  /** Ask for one of the person's passkeys; the passkey page completes `challenge`. */
  | { readonly kind: 'passkey'; readonly challenge: StepUpChallenge }
  | { readonly kind: 'not_enrolled'; readonly requirement: Exclude<StepUpRequirement, 'none'> }
  | { readonly kind: 'locked_out'; readonly until: Date };

/**
 * Opens a challenge for a click that needs step-up, or says why none can be. A rule that requires
 * a passkey asks for one of the person's passkeys; one that requires a code asks for a code only
 * (a passkey link under it could never count). With `any`, a person with an authenticator app is
 * asked for its code, and one with only passkeys (or locked out of codes) for a passkey: the
 * challenge takes either, so each proof is offered where it can succeed.
 */
export async function askForStepUp(
  store: Pick<Store, 'stepUp' | 'passkeys' | 'now'>,
  ask: StepUpAsk,
): Promise<StepUpNeed> {
  const now = store.now();
  const methods: ChallengeMethods = ask.requirement;
  const open = (kind: 'code' | 'passkey') =>
    store.stepUp
      .createChallenge({
        team: ask.team,
        user: ask.user,
        approvalId: ask.approval.id,
        decision: ask.decision,
        methods,
        expiresAt: new Date(now.getTime() + CHALLENGE_MINUTES * 60_000),
      })
      .then((challenge) => ({ kind, challenge }));
  const hasPasskey = async () => (await store.passkeys.list(ask.team, ask.user)).length > 0;
  if (ask.requirement === 'passkey')
    return (await hasPasskey()) ? open('passkey') : { kind: 'not_enrolled', requirement: 'passkey' };
  // Only `any` takes a passkey instead of a code.
  const passkeyInstead = async () => ask.requirement === 'any' && (await hasPasskey());
  const enrollment = await store.stepUp.enrollment(ask.team, ask.user);
  if (enrollment?.status !== 'active')
    return (await passkeyInstead())
      ? open('passkey')
      : { kind: 'not_enrolled', requirement: ask.requirement };
  const window = lockoutWindow(now);
  if ((await store.stepUp.failures(ask.team, ask.user, window.start)) >= MAX_WRONG_CODES) {
    return (await passkeyInstead()) ? open('passkey') : { kind: 'locked_out', until: window.end };
  }
  return open('code');
}

/** A proof offered for a challenge. */
export type StepUpProof =
  | { readonly method: 'code'; readonly code: string }
  /**
   * A passkey assertion that `lib/passkeys/` has verified (signature, origin, challenge bytes,
   * counter) for this person: the assertion itself never reaches the workflow.
   */
  | { readonly method: 'passkey'; readonly credentialId: string };

export type ProofCheck =
  | { readonly kind: 'proved'; readonly challenge: StepUpChallenge }
  | Exclude<CodeCheck, { kind: 'accepted' }>
  /** The proof is of a kind the rule does not take (a code where a passkey is required). */
  | { readonly kind: 'wrong_method' }
  /** No such challenge for this person, used already, or expired. */
  | { readonly kind: 'challenge_unusable' };

/**
 * Checks a proof and uses the challenge it is for, once. The challenge is read first (a proof
 * for someone else's or a spent one is not even checked), then the proof, then the challenge is
 * used with a conditional write, so two proofs racing cannot both count.
 */
export async function proveStepUp(
  store: Pick<Store, 'stepUp' | 'now'>,
  team: string,
  user: string,
  challengeId: string,
  proof: StepUpProof,
): Promise<ProofCheck> {
  const challenge = await store.stepUp.challenge(team, challengeId);
  const now = store.now();
  if (!challenge || challenge.user !== user || challenge.expiresAt.getTime() <= now.getTime()) {
    return { kind: 'challenge_unusable' };
  }
  if (challenge.methods !== 'any' && challenge.methods !== proof.method) return { kind: 'wrong_method' };
  if (proof.method === 'code') {
    const check = await checkCode(store, team, user, proof.code);
    if (check.kind !== 'accepted') return check;
  }
  const used = await store.stepUp.useChallenge(team, challengeId, user);
  return used.kind === 'used'
    ? { kind: 'proved', challenge: used.challenge }
    : { kind: 'challenge_unusable' };
}

// ---------------------------------------------------------------------------------------------
// proofs for changing one's own step-up methods

/**
 * What a change to the person's own methods needs: nothing when they have none yet (the first
 * method is bound as before), else a proof from one they have, as a vote under an `any` rule asks
 * for it: the code of their authenticator app, or one of their passkeys when they have no app (or
 * are locked out of codes).
 */
export type FactorProofNeed =
  | { readonly kind: 'none' }
  | { readonly kind: 'code'; readonly challenge: FactorChallenge }
  | { readonly kind: 'passkey'; readonly challenge: FactorChallenge }
  | { readonly kind: 'locked_out'; readonly until: Date };

export async function askForFactorProof(
  store: Pick<Store, 'stepUp' | 'passkeys' | 'now'>,
  ask: { readonly team: string; readonly user: string; readonly change: FactorChange },
): Promise<FactorProofNeed> {
  const now = store.now();
  const [enrollment, passkeys] = await Promise.all([
    store.stepUp.enrollment(ask.team, ask.user),
    store.passkeys.list(ask.team, ask.user),
  ]);
  const hasApp = enrollment?.status === 'active';
  if (!hasApp && passkeys.length === 0) return { kind: 'none' };
  const open = (kind: 'code' | 'passkey') =>
    store.stepUp
      .createFactorChallenge({
        team: ask.team,
        user: ask.user,
        change: ask.change,
        methods: 'any',
        expiresAt: new Date(now.getTime() + CHALLENGE_MINUTES * 60_000),
      })
      .then((challenge) => ({ kind, challenge }));
  if (!hasApp) return open('passkey');
  const window = lockoutWindow(now);
  if ((await store.stepUp.failures(ask.team, ask.user, window.start)) >= MAX_WRONG_CODES) {
    return passkeys.length > 0 ? open('passkey') : { kind: 'locked_out', until: window.end };
  }
  return open('code');
}

export type FactorProofCheck =
  | { readonly kind: 'proved'; readonly challenge: FactorChallenge }
  | Exclude<ProofCheck, { kind: 'proved' }>;

/**
 * Checks a proof for a factor challenge and uses the challenge once, as `proveStepUp` does for a
 * vote's: the challenge first (someone else's or a spent one is not even checked), then the proof,
 * then one conditional write that uses it.
 */
export async function proveFactorChange(
  store: Pick<Store, 'stepUp' | 'now'>,
  team: string,
  user: string,
  challengeId: string,
  proof: StepUpProof,
): Promise<FactorProofCheck> {
  const challenge = await store.stepUp.factorChallenge(team, challengeId);
  if (!challenge || challenge.user !== user || challenge.expiresAt.getTime() <= store.now().getTime()) {
    return { kind: 'challenge_unusable' };
  }
  if (challenge.methods !== 'any' && challenge.methods !== proof.method) return { kind: 'wrong_method' };
  if (proof.method === 'code') {
    const check = await checkCode(store, team, user, proof.code);
    if (check.kind !== 'accepted') return check;
  }
  const used = await store.stepUp.useFactorChallenge(team, challengeId, user);
  return used.kind === 'used'
    ? { kind: 'proved', challenge: used.challenge }
    : { kind: 'challenge_unusable' };
}

/**
 * Whether a passkey can still count for `challenge` under the rule in force now: the challenge
 * must take one, and so must the rule (a rule changed to ask for a code after the link was made
 * takes none). A rule that no longer asks for step-up at all asks less than a passkey proves.
 */
export function passkeyCounts(
  challenge: Pick<StepUpChallenge, 'methods'>,
  ruleNow: StepUpRequirement,
): boolean {
  if (challenge.methods === 'code') return false;
  return ruleNow === 'none' || ruleNow === 'passkey' || ruleNow === 'any';
}
