import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import {
  deleteExisting,
  getParsed,
  isConditionFailure,
  parseItem,
  putNew,
  updateIf,
  updateReturning,
} from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import { EnvelopeSchema, type TokenCipher } from './token-cipher.js';
import '../zod-settings.js';

/**
 * Step-up approval state of the people of a workspace: each person's authenticator-app
 * enrollment (its secret sealed like an API token, bound to team and person), the last code time
 * step they used (so a code counts once), their wrong codes per window (for the lockout), and the
 * pending challenges a click opens and a proof closes. Every change is one conditional write.
 */

export type CodeEnrollmentStatus = 'pending' | 'active';

export interface CodeEnrollment {
  readonly status: CodeEnrollmentStatus;
  readonly createdAt: Date;
  readonly confirmedAt: Date | null;
}

/** What a challenge asks a proof to complete: a vote, or a break-glass run. */
export type ChallengeDecision = 'approve' | 'deny' | 'break_glass';
/** Which proofs a challenge takes. */
export type ChallengeMethods = 'passkey' | 'code' | 'any';

export interface StepUpChallenge {
  readonly id: string;
  readonly team: string;
  readonly user: string;
  readonly approvalId: string;
  readonly decision: ChallengeDecision;
  readonly methods: ChallengeMethods;
  readonly expiresAt: Date;
}

/**
 * A change to the person's own step-up methods that a proof from one they have already must
 * allow (NIST SP 800-63B §6.1.2.3: binding another authenticator takes authentication at the
 * level of one already bound): adding a passkey, adding an authenticator app, removing them all.
 */
export type FactorChange = 'add_passkey' | 'add_app' | 'remove_own';

/** A challenge that allows one `change` to `user`'s own methods once proved; single-use like a vote's. */
export interface FactorChallenge {
  readonly id: string;
  readonly team: string;
  readonly user: string;
  readonly change: FactorChange;
  readonly methods: ChallengeMethods;
  readonly expiresAt: Date;
}

export type ChallengeUse =
  | { readonly kind: 'used'; readonly challenge: StepUpChallenge }
  /** No such challenge, someone else's, already used, or past its expiry: all refused alike. */
  | { readonly kind: 'unusable' };

const EnrollmentItemSchema = z.object({
  kind: z.literal('step_up_code'),
  status: z.enum(['pending', 'active']),
  secret_ciphertext: EnvelopeSchema,
  created_at: z.iso.datetime(),
  confirmed_at: z.iso.datetime().optional(),
  last_step: z.number().int().optional(),
});

const FailuresItemSchema = z.object({ kind: z.literal('step_up_failures'), failures: z.number().int() });

const ChallengeItemSchema = z.object({
  kind: z.literal('step_up_challenge'),
  id: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  approval_id: z.string(),
  decision: z.enum(['approve', 'deny', 'break_glass']),
  methods: z.enum(['passkey', 'code', 'any']),
  expires_at_iso: z.iso.datetime(),
  used: z.boolean(),
});
type ChallengeItem = z.infer<typeof ChallengeItemSchema>;

const FactorChallengeItemSchema = z.object({
  kind: z.literal('step_up_factor_challenge'),
  id: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  change: z.enum(['add_passkey', 'add_app', 'remove_own']),
  methods: z.enum(['passkey', 'code', 'any']),
  expires_at_iso: z.iso.datetime(),
  used: z.boolean(),
});
type FactorChallengeItem = z.infer<typeof FactorChallengeItemSchema>;

/** Either kind of challenge, as read by id: each reader takes only its own kind. */
const AnyChallengeItemSchema = z.discriminatedUnion('kind', [ChallengeItemSchema, FactorChallengeItemSchema]);

export class StepUpRepository {
  readonly #ctx: StoreContext;
  readonly #cipher: TokenCipher;

  constructor(ctx: StoreContext, cipher: TokenCipher) {
    this.#ctx = ctx;
    this.#cipher = cipher;
  }

  async enrollment(team: string, user: string): Promise<CodeEnrollment | undefined> {
    const item = await this.#enrollmentItem(team, user);
    return (
      item && {
        status: item.status,
        createdAt: new Date(item.created_at),
        confirmedAt: item.confirmed_at ? new Date(item.confirmed_at) : null,
      }
    );
  }

  /**
   * Starts (or restarts) an enrollment with a new secret; an active one is never replaced (reset
   * it first). False when one is active.
   */
  async startEnrollment(team: string, user: string, secret: string): Promise<boolean> {
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: {
          pk: keys.team(team),
          sk: keys.stepUpCode(user),
          kind: 'step_up_code',
          status: 'pending',
          secret_ciphertext: await this.#cipher.encrypt(secret, { team, user }),
          created_at: this.#ctx.now().toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending' },
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The enrollment's secret, for checking a code; undefined when there is no enrollment. */
  async secret(team: string, user: string): Promise<string | undefined> {
    const item = await this.#enrollmentItem(team, user);
    return item && this.#cipher.decrypt(item.secret_ciphertext, { team, user });
  }

  /**
   * Takes `step` as the person's latest used code time step: only a step later than every step
   * taken before is taken, so a code (or an older one) counts once. Makes a pending enrollment
   * active when `confirm`. False when the step was used already (or the enrollment is gone).
   */
  async takeStep(team: string, user: string, step: number, confirm: boolean): Promise<boolean> {
    const now = this.#ctx.now().toISOString();
    return updateIf(
      this.#ctx,
      { pk: keys.team(team), sk: keys.stepUpCode(user) },
      {
        UpdateExpression: confirm
          ? 'SET last_step = :step, #status = :active, confirmed_at = :now'
          : 'SET last_step = :step',
        ConditionExpression: `#status = :expected AND (attribute_not_exists(last_step) OR last_step < :step)`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':step': step,
          ':expected': confirm ? 'pending' : 'active',
          ...(confirm ? { ':active': 'active', ':now': now } : {}),
        },
      },
    );
  }

  /** Removes the person's enrollment; false when there was none. */
  async reset(team: string, user: string): Promise<boolean> {
    return deleteExisting(this.#ctx, { pk: keys.team(team), sk: keys.stepUpCode(user) });
  }

  /** Wrong codes of `user` in the window that starts at `windowStart`. */
  async failures(team: string, user: string, windowStart: Date): Promise<number> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.stepUpFailures(user, windowStart.toISOString()) },
      FailuresItemSchema,
      'step-up failures',
    );
    return item?.failures ?? 0;
  }

  /**
   * Counts one code attempt in the window that starts at `windowStart`, if fewer than `max` are
   * counted there: one `UpdateItem` that adds under that condition, so however many codes arrive
   * at once, at most `max` of a window are ever judged. Returns the window's count with this
   * attempt, or undefined when it is full (locked out). A code that turns out right is taken back
   * (`uncountAttempt`), so the count is of wrong codes and of codes still being judged.
   */
  async countAttempt(
    team: string,
    user: string,
    window: { readonly start: Date; readonly end: Date },
    max: number,
  ): Promise<number | undefined> {
    const result = await updateReturning(
      this.#ctx,
      { pk: keys.team(team), sk: keys.stepUpFailures(user, window.start.toISOString()) },
      {
        UpdateExpression: 'SET kind = :kind, expires_at = :expires ADD failures :one',
        ConditionExpression: 'attribute_not_exists(failures) OR failures < :max',
        ExpressionAttributeValues: {
          ':kind': 'step_up_failures',
          ':expires': epochSeconds(window.end) + 3600,
          ':one': 1,
          ':max': max,
        },
      },
    );
    return result.ok ? parseItem(FailuresItemSchema, result.item, 'step-up failures').failures : undefined;
  }

  /** Takes back an attempt `countAttempt` counted whose code was right (or found nothing to judge). */
  async uncountAttempt(team: string, user: string, windowStart: Date): Promise<void> {
    await updateIf(
      this.#ctx,
      { pk: keys.team(team), sk: keys.stepUpFailures(user, windowStart.toISOString()) },
      {
        UpdateExpression: 'ADD failures :minusOne',
        ConditionExpression: 'failures > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      },
    );
  }

  async createChallenge(challenge: Omit<StepUpChallenge, 'id'>): Promise<StepUpChallenge> {
    const id = randomUUID();
    await putNew(this.#ctx, {
      pk: keys.team(challenge.team),
      sk: keys.stepUpChallenge(id),
      kind: 'step_up_challenge',
      id,
      team_id: challenge.team,
      user_id: challenge.user,
      approval_id: challenge.approvalId,
      decision: challenge.decision,
      methods: challenge.methods,
      expires_at_iso: challenge.expiresAt.toISOString(),
      expires_at: epochSeconds(challenge.expiresAt) + 3600,
      used: false,
    } satisfies ChallengeItem & Record<string, unknown>);
    return { ...challenge, id };
  }

  /** A challenge as stored, unused and unexpired or not: for the passkey page to show what it is for. */
  async challenge(team: string, id: string): Promise<StepUpChallenge | undefined> {
    const item = await this.#challengeItem(team, id);
    return item?.kind === 'step_up_challenge' ? toChallenge(item) : undefined;
  }

  /**
   * Uses the challenge once, for `user`, before it expires: one conditional write, so two proofs
   * racing for it cannot both complete it.
   */
  async useChallenge(team: string, id: string, user: string): Promise<ChallengeUse> {
    const item = await this.#useChallengeItem(team, id, user, 'step_up_challenge');
    return item?.kind === 'step_up_challenge'
      ? { kind: 'used', challenge: toChallenge(item) }
      : { kind: 'unusable' };
  }

  async createFactorChallenge(challenge: Omit<FactorChallenge, 'id'>): Promise<FactorChallenge> {
    const id = randomUUID();
    await putNew(this.#ctx, {
      pk: keys.team(challenge.team),
      sk: keys.stepUpChallenge(id),
      kind: 'step_up_factor_challenge',
      id,
      team_id: challenge.team,
      user_id: challenge.user,
      change: challenge.change,
      methods: challenge.methods,
      expires_at_iso: challenge.expiresAt.toISOString(),
      expires_at: epochSeconds(challenge.expiresAt) + 3600,
      used: false,
    } satisfies FactorChallengeItem & Record<string, unknown>);
    return { ...challenge, id };
  }

  /** A factor challenge as stored, used or not (a vote's challenge is not one). */
  async factorChallenge(team: string, id: string): Promise<FactorChallenge | undefined> {
    const item = await this.#challengeItem(team, id);
    return item?.kind === 'step_up_factor_challenge' ? toFactorChallenge(item) : undefined;
  }

  /** Uses a factor challenge once, for `user`, before it expires (as `useChallenge`). */
  async useFactorChallenge(
    team: string,
    id: string,
    user: string,
  ): Promise<{ readonly kind: 'used'; readonly challenge: FactorChallenge } | { readonly kind: 'unusable' }> {
    const item = await this.#useChallengeItem(team, id, user, 'step_up_factor_challenge');
    return item?.kind === 'step_up_factor_challenge'
      ? { kind: 'used', challenge: toFactorChallenge(item) }
      : { kind: 'unusable' };
  }

  async #challengeItem(team: string, id: string) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    return getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.stepUpChallenge(id) },
      AnyChallengeItemSchema,
      'step-up challenge',
    );
  }

  /** One conditional write that uses a challenge of `kind`; the item as used, or undefined. */
  async #useChallengeItem(
    team: string,
    id: string,
    user: string,
    kind: 'step_up_challenge' | 'step_up_factor_challenge',
  ) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    // Named: a resend after a lost answer finds the challenge used by this call, not another proof.
    const result = await updateReturning(
      this.#ctx,
      { pk: keys.team(team), sk: keys.stepUpChallenge(id) },
      {
        UpdateExpression: 'SET used = :true',
        ConditionExpression: 'kind = :kind AND used = :false AND user_id = :user AND expires_at_iso > :now',
        ExpressionAttributeValues: {
          ':true': true,
          ':false': false,
          ':kind': kind,
          ':user': user,
          ':now': this.#ctx.now().toISOString(),
        },
      },
    );
    return result.ok ? parseItem(AnyChallengeItemSchema, result.item, 'step-up challenge') : undefined;
  }

  /**
   * Removes every step-up item of the workspace (enrollments with their sealed secrets, counters,
   * challenges) when it removes the app; returns how many enrollments went.
   */
  async deleteTeam(team: string): Promise<number> {
    let enrollments = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.team(team), ':prefix': keys.stepUpPrefix },
        ProjectionExpression: 'pk, sk',
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      for (const item of page.Items ?? []) {
        const key = { pk: String(item.pk), sk: String(item.sk) };
        await this.#ctx.table.delete({ TableName: this.#ctx.tableName, Key: key });
        if (key.sk.startsWith('STEPUP#CODE#')) enrollments++;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return enrollments;
  }

  async #enrollmentItem(team: string, user: string) {
    return getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.stepUpCode(user) },
      EnrollmentItemSchema,
      'step-up enrollment',
    );
  }
}

function toFactorChallenge(item: FactorChallengeItem): FactorChallenge {
  return {
    id: item.id,
    team: item.team_id,
    user: item.user_id,
    change: item.change,
    methods: item.methods,
    expiresAt: new Date(item.expires_at_iso),
  };
}

function toChallenge(item: ChallengeItem): StepUpChallenge {
  return {
    id: item.id,
    team: item.team_id,
    user: item.user_id,
    approvalId: item.approval_id,
    decision: item.decision,
    methods: item.methods,
    expiresAt: new Date(item.expires_at_iso),
  };
}
