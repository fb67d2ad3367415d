import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiTime, createClock, MINUTE, SECOND } from '../../infra/local/emulator/clock.js';
import { DATABASE_PROVISION_MS } from '../../infra/local/emulator/handlers/databases.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { clientFor, op, startTestEmulator } from './support.js';

/**
 * The sandbox's emulator keeps one clock a person sees: real time. Its created/updated times and
 * expiries agree with Slack's message times, and a code from a real authenticator app (which
 * reads real time) confirms 2FA. Only emulated work finishes sooner. Real time is the machine's
 * clock here, moved by hand (`vi.setSystemTime`); nothing waits.
 */

const PROGRESS_SPEED = 60;
const START = Date.parse('2026-11-26T20:00:00Z');

let emulator: RunningEmulator;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(START);
  emulator = await startTestEmulator({
    clock: createClock({ mode: 'real-time', progressSpeed: PROGRESS_SPEED }),
  });
});

afterAll(async () => {
  vi.useRealTimers();
  await emulator?.close();
});

beforeEach(() => {
  // Ten minutes in the sandbox: a clock running 60 times real time would be ten hours ahead.
  vi.setSystemTime(Date.now() + 10 * MINUTE);
});

afterEach(() => {
  vi.setSystemTime(Date.now() + SECOND);
});

describe('the sandbox clock', () => {
  it('regression: stamped a database created 10 minutes in as 10 hours later; now as created at real time', async () => {
    const demo = clientFor(emulator, emulator.control.tokens.demo);
    const created = (await demo.call(op('POST /databases/mysql/instances'), {
      label: 'clock-db',
      region: 'us-east',
      type: 'g6-dedicated-2',
      engine: 'mysql/8.0.26',
    })) as { id: number; created: string; status: string };
    expect(created.created).toBe(apiTime(Date.now()));
    expect(created.status).toBe('provisioning');

    // Emulated work finishes 60 times sooner: 20 minutes of provisioning in 20 real seconds.
    vi.setSystemTime(Date.now() + Math.ceil(DATABASE_PROVISION_MS / PROGRESS_SPEED));
    const ready = (await demo.call(op('GET /databases/mysql/instances/{instanceId}'), {
      instanceId: created.id,
    })) as { status: string; updated: string };
    expect(ready.status).toBe('active');
    expect(ready.updated).toBe(apiTime(Date.now()));
  });

  it('regression: refused a code from an authenticator app (real time); now confirms 2FA with it', async () => {
    emulator.control.createUser({ username: 'clock-tfa', restricted: false });
    const { token } = emulator.control.createToken('clock-tfa', { scopes: '*' });
    const client = clientFor(emulator, token);
    await client.call(op('POST /profile/security-questions'), {
      security_questions: [1, 2, 3].map((question_id) => ({
        question_id,
        response: `answer ${question_id}`,
      })),
    });
    const issued = (await client.call(op('POST /profile/tfa-enable'), {})) as {
      secret: string;
      expiry: string;
    };
    // The secret's expiry is ten real minutes away, as the person reads it.
    expect(issued.expiry).toBe(apiTime(Date.now() + 10 * MINUTE));
    const fromApp = TOTP.generate({ secret: Secret.fromBase32(issued.secret), timestamp: Date.now() });
    const confirmed = (await client.call(op('POST /profile/tfa-enable-confirm'), { tfa_code: fromApp })) as {
      scratch: string;
    };
    expect(confirmed.scratch).toMatch(/\S{8,}/);
  });
});
