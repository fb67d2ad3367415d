import { randomBytes } from 'node:crypto';

/**
 * Trigger ids the stand-in hands out with interactions (slash commands, clicks). Slack lets a
 * `trigger_id` open one view, within about three seconds; ids the stand-in did not issue (made
 * up by a test) are accepted as they come.
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
  | { readonly ok: true; readonly trigger?: IssuedTrigger }
  | { readonly ok: false; readonly error: 'expired_trigger_id' | 'trigger_exchanged' };

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
    if (!trigger) return { ok: true };
    if (trigger.used) return { ok: false, error: 'trigger_exchanged' };
    if (this.now() - trigger.issuedAt > TRIGGER_LIFETIME_MS)
      return { ok: false, error: 'expired_trigger_id' };
    trigger.used = true;
    return { ok: true, trigger };
  }

  reset(): void {
    this.issued = new Map();
  }
}
