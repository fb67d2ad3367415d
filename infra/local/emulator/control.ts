import { createUser, issueToken, type NewUser, revokeToken } from './accounts.js';
import { hashToken } from './auth.js';
import { apiTime, type Clock, parseApiTime } from './clock.js';
import type { FaultInjector, FaultSpec, LatencySpec } from './faults.js';
import { renderIssue } from './handlers/managed.js';
import { newVolume } from './handlers/volumes.js';
import type { ListItems } from './listing.js';
import type { RateLimiter, RateLimitOptions } from './rate-limit.js';
import { type SeedOptions, type SeedTokens, seedWorld } from './seed.js';
import type {
  EntityKind,
  EventRecord,
  GlobalGrants,
  ManagedIssueRecord,
  Permission,
  SmsMessage,
  World,
} from './world.js';

/**
 * The test and benchmark handle on a running emulator: time, faults, latency, users and tokens,
 * the "SMS" outbox, request counts, rate limits and reset. The same calls are served over HTTP
 * under `/__control/` (see control-http.ts).
 */
export class EmulatorControl {
  #world: World;
  #tokens: SeedTokens;
  readonly #clock: Clock;
  readonly #seed: SeedOptions;
  readonly #faults: FaultInjector;
  readonly #limiter: RateLimiter;
  #requests: { operationId: string; pathParams: Record<string, string> }[] = [];
  #listItems = new Map<string, readonly Record<string, unknown>[]>();
  #withheldEvents = new Map<number, EventRecord>();

  constructor(init: { clock: Clock; seed: SeedOptions; faults: FaultInjector; limiter: RateLimiter }) {
    this.#clock = init.clock;
    this.#seed = init.seed;
    this.#faults = init.faults;
    this.#limiter = init.limiter;
    const seeded = seedWorld(init.clock, init.seed);
    this.#world = seeded.world;
    this.#tokens = seeded.tokens;
  }

  /** The state itself, for arranging situations no API call can reach (e.g. a migrating volume). */
  get world(): World {
    return this.#world;
  }

  /** Tokens of the seeded users (deterministic for a given seed). */
  get tokens(): SeedTokens {
    return this.#tokens;
  }

  now(): number {
    return this.#clock.now();
  }

  /** Moves the emulator's clock and runs the transitions that became due. */
  advance(ms: number): number {
    this.#clock.advance(ms);
    this.#world.settle();
    return this.now();
  }

  addLatency(spec: LatencySpec): void {
    this.#faults.addLatency(spec);
  }

  /** Replaces all latency with `ms` on every call (or on the named operations); 0 removes it. */
  setLatency(ms: number, operations?: readonly string[]): void {
    this.#faults.clearLatency();
    if (ms > 0) this.#faults.addLatency(operations ? { ms, operations } : { ms });
  }

  injectFault(spec: FaultSpec): number {
    return this.#faults.add(spec);
  }

  removeFault(id: number): void {
    this.#faults.remove(id);
  }

  /** Removes every fault and all latency. */
  clearFaults(): void {
    this.#faults.clear();
  }

  /** Messages "sent by SMS" (phone verification codes), oldest first. */
  smsMessages(username?: string): SmsMessage[] {
    return this.#world.sms.filter((m) => username === undefined || m.username === username);
  }

  lastSmsCode(username: string): string | undefined {
    return this.smsMessages(username).at(-1)?.code;
  }

  createUser(spec: NewUser): { uid: number; username: string; restricted: boolean } {
    const user = createUser(this.#world, spec);
    return { uid: user.uid, username: user.username, restricted: user.restricted };
  }

  /** A token that works at once; `expiry` as epoch ms or an API date-time. */
  createToken(
    username: string,
    spec: {
      scopes?: string | undefined;
      expiry?: number | string | null | undefined;
      label?: string | undefined;
    } = {},
  ): { token: string; id: number } {
    const user = this.#world.userByName(username);
    if (!user) throw new Error(`No user ${username}`);
    const expiry = typeof spec.expiry === 'string' ? parseApiTime(spec.expiry) : spec.expiry;
    const { token, record } = issueToken(this.#world, user, {
      ...(spec.scopes !== undefined && { scopes: spec.scopes }),
      ...(expiry !== undefined && { expiry }),
      label: spec.label ?? 'control',
    });
    return { token, id: record.id };
  }

  /** Revokes a token as `DELETE /profile/tokens/{id}` would; false when it was not valid. */
  revokeToken(token: string): boolean {
    const record = this.#world.tokensByHash.get(hashToken(token));
    if (!record) return false;
    revokeToken(this.#world, record);
    return true;
  }

  /** Full token strings handed out (seed, control and `POST /profile/tokens`) at or after `since` (clock ms). */
  tokensCreatedSince(since: number): string[] {
    return this.#world.issuedTokens.filter((t) => t.createdAt >= since).map((t) => t.token);
  }

  /** An active volume, ready for a test to act on. */
  createVolume(spec: { label: string; region?: string; size?: number; tags?: string[] }): {
    id: number;
    label: string;
  } {
    const volume = newVolume(this.#world, {
      label: spec.label,
      region: spec.region ?? 'us-east',
      size: spec.size ?? 20,
      tags: spec.tags ?? [],
      status: 'active',
    });
    return { id: volume.id, label: volume.label };
  }

  volumeExists(id: number): boolean {
    return this.#world.volumes.has(id);
  }

  grant(spec: {
    username: string;
    kind: EntityKind;
    id: number | string;
    permission: Permission | null;
  }): void {
    const user = this.#world.userByName(spec.username);
    if (!user) throw new Error(`No user ${spec.username}`);
    if (spec.permission === null) user.grants.entities[spec.kind].delete(String(spec.id));
    else user.grants.entities[spec.kind].set(String(spec.id), spec.permission);
  }

  setGlobalGrants(username: string, grants: Partial<GlobalGrants>): void {
    const user = this.#world.userByName(username);
    if (!user) throw new Error(`No user ${username}`);
    user.grants.global = { ...user.grants.global, ...grants };
  }

  /** A new managed issue, as monitoring would open it (for alert tests). */
  createManagedIssue(
    spec: { services?: number[] | undefined; label?: string | undefined } = {},
  ): ReturnType<typeof renderIssue> {
    const world = this.#world;
    const services = spec.services ?? [...world.services.keys()].slice(0, 1);
    const unknown = services.filter((serviceId) => !world.services.has(serviceId));
    if (unknown.length > 0) throw new Error(`No managed service ${unknown.join(', ')}`);
    const id = world.nextId('issue', 823);
    const ticket = 98000 + id;
    const issue: ManagedIssueRecord = {
      id,
      created: world.now(),
      services,
      entity: {
        id: ticket,
        label: spec.label ?? `Service ${services.join(', ')} is not responding`,
        type: 'ticket',
        url: `https://cloud.example.com/support/tickets/${ticket}`,
      },
    };
    world.issues.set(id, issue);
    for (const serviceId of services) {
      const service = world.services.get(serviceId);
      if (service && service.status !== 'disabled') service.status = 'problem';
    }
    return renderIssue(issue);
  }

  /**
   * Makes a list operation answer with `items` (response objects) instead of the records its
   * handler finds, for tests of lists of any length; `undefined` goes back to the records. The
   * items still go through the same scopes, filter and paging as any list.
   */
  setListItems(operationId: string, items: readonly Record<string, unknown>[] | undefined): void {
    if (items === undefined) this.#listItems.delete(operationId);
    else this.#listItems.set(operationId, [...items]);
  }

  /** The items set for a list operation, as the server pages them. */
  listItemsOf(operationId: string): ListItems | undefined {
    const items = this.#listItems.get(operationId);
    if (!items) return undefined;
    return {
      length: items.length,
      slice: (start, end) => items.slice(start, end).map((item) => ({ ...item })),
    };
  }

  /**
   * Monitoring sees the issue's services answer again: those reporting a problem return to `ok`
   * (a disabled one stays disabled), unless another issue still open names them. The issue stays
   * in `GET /managed/issues`, which lists "recent and ongoing issues"; the API's ManagedIssue has
   * no field that says which (its fields: id, created, entity, services), so whether it is over is
   * the emulator's own record, set here and nowhere else: a later issue on the same service is a
   * new issue and leaves this one over.
   */
  resolveManagedIssue(id: number): ReturnType<typeof renderIssue> {
    const world = this.#world;
    const issue = world.issues.get(id);
    if (!issue) throw new Error(`No managed issue ${id}`);
    if (issue.resolved === undefined) {
      issue.resolved = world.now();
      const stillOpen = new Set(
        [...world.issues.values()]
          .filter((other) => other.resolved === undefined)
          .flatMap((other) => other.services),
      );
      for (const serviceId of issue.services) {
        const service = world.services.get(serviceId);
        if (service && service.status === 'problem' && !stillOpen.has(serviceId)) {
          service.status = 'ok';
          service.updated = world.now();
        }
      }
    }
    return renderIssue(issue);
  }

  /** The managed services and issues, newest issue first, with whether each issue is over. */
  managedMonitoring(): {
    services: { id: number; label: string; status: string }[];
    issues: { id: number; label: string; services: number[]; resolved: boolean }[];
  } {
    const world = this.#world;
    return {
      services: [...world.services.values()].map((s) => ({ id: s.id, label: s.label, status: s.status })),
      issues: [...world.issues.values()]
        .sort((a, b) => b.created - a.created || b.id - a.id)
        .map((issue) => ({
          id: issue.id,
          label: issue.entity.label,
          services: [...issue.services],
          resolved: issue.resolved !== undefined,
        })),
    };
  }

  /**
   * Takes an account event out of the list until `releaseEvent`: an event whose id was given when
   * its work began but that the list shows only later, after events with higher ids.
   */
  withholdEvent(id: number): void {
    const event = this.#world.events.get(id);
    if (!event) throw new Error(`No account event ${id}`);
    this.#withheldEvents.set(id, event);
    this.#world.events.delete(id);
  }

  /** Lists a withheld event again, with its own id and date. */
  releaseEvent(id: number): void {
    const event = this.#withheldEvents.get(id);
    if (!event) throw new Error(`Account event ${id} is not withheld`);
    this.#withheldEvents.delete(id);
    this.#world.events.set(id, event);
  }

  recordRequest(operationId: string, pathParams: Record<string, string>): void {
    this.#requests.push({ operationId, pathParams });
  }

  /**
   * Requests received since the start or the last reset: all of them, those of one operation, or
   * those of one operation on given path parameters (`requestCount('volumes.delete', {volumeId: 12})`).
   */
  requestCount(operationId?: string, pathParams: Record<string, string | number> = {}): number {
    return this.#requests.filter(
      (r) =>
        (operationId === undefined || r.operationId === operationId) &&
        Object.entries(pathParams).every(([name, value]) => r.pathParams[name] === String(value)),
    ).length;
  }

  /** Requests received per operation id since the start or the last reset. */
  requestCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.#requests) counts[r.operationId] = (counts[r.operationId] ?? 0) + 1;
    return counts;
  }

  resetRequestCounts(): void {
    this.#requests = [];
  }

  setRateLimit(options: RateLimitOptions | false): void {
    this.#limiter.configure(options);
  }

  resetRateLimits(): void {
    this.#limiter.reset();
  }

  /** Fresh seed data (same ids and tokens), no faults, no latency, no counts, fresh rate windows. */
  reset(): void {
    const seeded = seedWorld(this.#clock, this.#seed);
    this.#world = seeded.world;
    this.#tokens = seeded.tokens;
    this.#faults.clear();
    this.#limiter.reset();
    this.#requests = [];
    this.#listItems.clear();
    this.#withheldEvents.clear();
  }

  describe() {
    return { now: this.now(), time: apiTime(this.now()), pendingTransitions: this.#world.pendingTransitions };
  }
}
