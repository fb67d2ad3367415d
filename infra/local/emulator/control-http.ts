import * as z from 'zod';
import type { EmulatorControl } from './control.js';
import type { GlobalGrants } from './world.js';

/**
 * The control interface over HTTP (`/__control/...`, JSON in and out), for a stack where tests
 * and benchmarks run in another process than the emulator.
 *
 *   GET    /__control/clock              {now, time, pendingTransitions}
 *   POST   /__control/clock/advance      {ms}
 *   POST   /__control/latency            {ms, operations?}
 *   POST   /__control/faults             {kind, status?, retryAfterSeconds?, bodyDurationMs?, operations?, share?, times?}
 *   DELETE /__control/faults             removes every fault and all latency
 *   GET    /__control/sms?username=      {messages}
 *   POST   /__control/users              {username, restricted?, email?, globalGrants?, entityGrants?}
 *   POST   /__control/tokens             {username, scopes?, expiry?, label?} → {token, id}
 *   DELETE /__control/tokens             {token} revokes it
 *   POST   /__control/grants             {username, kind, id, permission}
 *   POST   /__control/managed/issues     {services?, label?} → issue
 *   POST   /__control/managed/issues/{id}/resolve   the services check out again → issue
 *   GET    /__control/requests           counts per operation id; DELETE resets them
 *   GET    /__control/process            {cpuMicros}: CPU time of the process the emulator runs in
 *   PUT    /__control/rate-limit         rate-limit options, or false
 *   POST   /__control/reset
 */

const PermissionSchema = z.enum(['read_only', 'read_write']);
const EntityKindSchema = z.enum(['node', 'volume', 'image', 'database']);
const OperationsSchema = z.array(z.string()).optional();

const AdvanceSchema = z.object({ ms: z.number().nonnegative() });
const LatencySchema = z.object({ ms: z.number().nonnegative(), operations: OperationsSchema });
const FaultSchema = z.object({
  kind: z.enum(['status', 'rate-limit', 'drop', 'slow-body']),
  status: z.union([z.literal(500), z.literal(502), z.literal(503)]).optional(),
  retryAfterSeconds: z.number().nonnegative().optional(),
  bodyDurationMs: z.number().nonnegative().optional(),
  operations: OperationsSchema,
  share: z.number().min(0).max(1).optional(),
  times: z.number().int().positive().optional(),
  afterActing: z.boolean().optional(),
});
const UserSchema = z.object({
  username: z.string().min(1),
  restricted: z.boolean().optional(),
  email: z.string().optional(),
  globalGrants: z.record(z.string(), z.union([z.boolean(), PermissionSchema, z.null()])).optional(),
  entityGrants: z
    .array(
      z.object({
        kind: EntityKindSchema,
        id: z.union([z.number(), z.string()]),
        permission: PermissionSchema,
      }),
    )
    .optional(),
});
const TokenSchema = z.object({
  username: z.string(),
  scopes: z.string().optional(),
  expiry: z.union([z.number(), z.string(), z.null()]).optional(),
  label: z.string().optional(),
});
const GrantSchema = z.object({
  username: z.string(),
  kind: EntityKindSchema,
  id: z.union([z.number(), z.string()]),
  permission: PermissionSchema.nullable(),
});
const IssueSchema = z.object({
  services: z.array(z.number().int()).optional(),
  label: z.string().optional(),
});
const RuleSchema = z.object({ limit: z.number().int().positive(), windowMs: z.number().int().positive() });
const RateLimitSchema = z.union([
  z.literal(false),
  z.object({
    general: z.union([RuleSchema, z.literal(false)]).optional(),
    perOperation: z.union([RuleSchema, z.literal(false)]).optional(),
    paginated: z.union([RuleSchema, z.literal(false)]).optional(),
    dedicated: z.union([z.boolean(), z.record(z.string(), RuleSchema)]).optional(),
  }),
]);

export interface ControlResponse {
  status: number;
  body: unknown;
}

export function handleControl(
  control: EmulatorControl,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): ControlResponse {
  const ok = (result: unknown = { ok: true }): ControlResponse => ({ status: 200, body: result });
  const route = `${method} ${path.replace(/\/+$/, '')}`;
  try {
    const resolve = /^POST \/__control\/managed\/issues\/(\d+)\/resolve$/.exec(route);
    if (resolve) return ok(control.resolveManagedIssue(Number(resolve[1])));
    switch (route) {
      case 'GET /__control/clock':
        return ok(control.describe());
      case 'POST /__control/clock/advance':
        control.advance(AdvanceSchema.parse(body).ms);
        return ok(control.describe());
      case 'POST /__control/latency':
        control.addLatency(LatencySchema.parse(body));
        return ok();
      case 'POST /__control/faults':
        return ok({ id: control.injectFault(FaultSchema.parse(body)) });
      case 'DELETE /__control/faults':
        control.clearFaults();
        return ok();
      case 'GET /__control/sms':
        return ok({ messages: control.smsMessages(query.get('username') ?? undefined) });
      case 'POST /__control/users': {
        const spec = UserSchema.parse(body);
        return ok(
          control.createUser({
            ...spec,
            globalGrants: spec.globalGrants as Partial<GlobalGrants> | undefined,
          }),
        );
      }
      case 'POST /__control/tokens': {
        const { username, ...spec } = TokenSchema.parse(body);
        return ok(control.createToken(username, spec));
      }
      case 'DELETE /__control/tokens':
        return ok({ revoked: control.revokeToken(z.object({ token: z.string() }).parse(body).token) });
      case 'POST /__control/grants':
        control.grant(GrantSchema.parse(body));
        return ok();
      case 'POST /__control/managed/issues':
        return ok(control.createManagedIssue(IssueSchema.parse(body ?? {})));
      case 'GET /__control/requests':
        return ok(control.requestCounts());
      case 'DELETE /__control/requests':
        control.resetRequestCounts();
        return ok();
      case 'GET /__control/process': {
        // Benchmarks charge the emulator's own work to it, apart from the client's, by this.
        const { user, system } = process.cpuUsage();
        return ok({ cpuMicros: user + system });
      }
      case 'PUT /__control/rate-limit': {
        const options = RateLimitSchema.parse(body);
        control.setRateLimit(options);
        return ok();
      }
      case 'POST /__control/reset':
        control.reset();
        return ok();
      default:
        return { status: 404, body: { errors: [{ reason: `No control endpoint ${route}` }] } };
    }
  } catch (error) {
    const reason =
      error instanceof z.ZodError
        ? error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')
        : error instanceof Error
          ? error.message
          : String(error);
    return { status: 400, body: { errors: [{ reason }] } };
  }
}
