import { randomBytes } from 'node:crypto';

/**
 * Trigger ids the stand-in hands out with interactions (slash commands, clicks). Slack lets a
 * `trigger_id` open one view, within about three seconds (rule `trigger-id`): a second use answers
 * `exchanged_trigger_id`, a late one `expired_trigger_id`, and an id Slack never issued
 * `invalid_trigger_id`. Tests take their ids from `triggerIdFor` like the bot takes them from
 * Slack's payloads.
 */

export const TRIGGER_LIFETIME_MS = 3000;

export interface IssuedTrigger {
  readonly user: string;
  /** The open view the interaction came from, so `views.push` knows which stack to grow. */
  readonly viewId?: string;
  readonly issuedAt: number;
  used: boolean;
}

export type TriggerCheck =
  | { readonly ok: true; readonly trigger: IssuedTrigger }
  | {
      readonly ok: false;
      readonly error: 'invalid_trigger_id' | 'expired_trigger_id' | 'exchanged_trigger_id';
    };

export class TriggerRegistry {
  private issued = new Map<string, IssuedTrigger>();
  private counter = 0;

  constructor(
    private readonly teamId: string,
    private readonly now: () => number,
  ) {}

  issue(user: string, viewId?: string): string {
    this.counter += 1;
    const id = `${this.counter}.${this.teamId}.${randomBytes(16).toString('hex')}`;
    this.issued.set(id, {
      user,
      issuedAt: this.now(),
      used: false,
      ...(viewId === undefined ? {} : { viewId }),
    });
    return id;
  }

  /** Uses up a trigger id, as opening or pushing a view does. */
  exchange(id: string): TriggerCheck {
    const trigger = this.issued.get(id);
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (this.now() - trigger.issuedAt > TRIGGER_LIFETIME_MS)
      return { ok: false, error: 'expired_trigger_id' };
    trigger.used = true;
    return { ok: true, trigger };
  }

  reset(): void {
    this.issued = new Map();
  }
}
