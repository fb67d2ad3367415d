/**
 * The IAM of a packaged CloudFormation template, enforced locally: each function's role
 * statements with their intrinsics (`Ref`, `Fn::GetAtt`, `Fn::Sub`, `Fn::Join`) resolved against
 * the local resources, and a check of one call's action and resource against them. As in AWS, a
 * call is allowed only when an `Allow` statement names its action and its resource (with `*` and
 * `?` wildcards) and no `Deny` does (docs.aws.amazon.com/IAM/latest/UserGuide/
 * reference_policies_evaluation-logic.html: an implicit deny unless something allows it).
 */

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

export interface PackagedTemplate {
  readonly Resources: Record<string, TemplateResource>;
}

/** What `Ref` and `Fn::GetAtt` give for the local stand-ins of the template's resources. */
export interface LocalResources {
  readonly region: string;
  readonly accountId: string;
  readonly stackName: string;
  /** Logical id → the value of `Ref`. */
  readonly refs: Readonly<Record<string, string>>;
  /** `LogicalId.Attribute` → the value of `Fn::GetAtt`. */
  readonly attributes: Readonly<Record<string, string>>;
}

export interface PolicyStatement {
  readonly effect: 'Allow' | 'Deny';
  readonly actions: readonly string[];
  readonly resources: readonly string[];
}

export class UnresolvedIntrinsicError extends Error {
  override readonly name = 'UnresolvedIntrinsicError';
}

/** Resolves the intrinsics a role policy uses; anything else is refused by name, never guessed. */
export function resolveIntrinsics(value: unknown, local: LocalResources): unknown {
  const pseudo: Record<string, string> = {
    'AWS::Region': local.region,
    'AWS::AccountId': local.accountId,
    'AWS::Partition': 'aws',
    'AWS::StackName': local.stackName,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const ref = (name: string): string => {
    const found = pseudo[name] ?? local.refs[name];
    if (found === undefined) throw new UnresolvedIntrinsicError(`no local value for Ref ${name}`);
    return found;
  };
  const getAtt = (logicalId: string, attribute: string): string => {
    const found = local.attributes[`${logicalId}.${attribute}`];
    if (found === undefined)
      throw new UnresolvedIntrinsicError(`no local value for ${logicalId}.${attribute}`);
    return found;
  };
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node !== 'object' || node === null) return node;
    const entries = Object.entries(node);
    const [only] = entries;
    if (entries.length === 1 && only) {
      const [key, argument] = only;
      if (key === 'Ref') return ref(String(argument));
      if (key === 'Fn::GetAtt') {
        const [logicalId, attribute] = Array.isArray(argument) ? argument : String(argument).split('.');
        return getAtt(String(logicalId), String(attribute));
      }
      if (key === 'Fn::Sub') {
        const [text, variables] = Array.isArray(argument) ? argument : [argument, {}];
        const own = Object.fromEntries(
          Object.entries((variables ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(visit(v))]),
        );
        return String(text).replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
          if (own[name] !== undefined) return own[name];
          const dot = name.indexOf('.');
          return dot > 0 && !name.startsWith('AWS::')
            ? getAtt(name.slice(0, dot), name.slice(dot + 1))
            : ref(name);
        });
      }
      if (key === 'Fn::Join') {
        const [separator, parts] = argument as [string, unknown[]];
        return (visit(parts) as unknown[]).map(String).join(separator);
      }
      if (key.startsWith('Fn::')) throw new UnresolvedIntrinsicError(`${key} is not resolved locally`);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, visit(v)]));
  };
  return visit(value);
}

/** The statements of the role a function resource names (`Role: !GetAtt XRole.Arn`). */
export function roleStatementsOf(
  template: PackagedTemplate,
  functionLogicalId: string,
  local: LocalResources,
): PolicyStatement[] {
  const fn = template.Resources[functionLogicalId];
  const role = fn?.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
  const roleId = role?.['Fn::GetAtt']?.[0];
  const roleResource = roleId ? template.Resources[roleId] : undefined;
  if (roleResource?.Type !== 'AWS::IAM::Role') {
    throw new UnresolvedIntrinsicError(`${functionLogicalId} names no role of the template`);
  }
  const policies = (roleResource.Properties?.Policies ?? []) as {
    PolicyDocument: { Statement: unknown[] };
  }[];
  const managed = roleResource.Properties?.ManagedPolicyArns;
  if (Array.isArray(managed) && managed.length > 0) {
    throw new UnresolvedIntrinsicError(`${roleId} has managed policies, which are not enforced locally`);
  }
  return policies.flatMap((policy) =>
    policy.PolicyDocument.Statement.map((raw) => {
      const statement = resolveIntrinsics(raw, local) as Record<string, unknown>;
      if (statement.NotAction !== undefined || statement.NotResource !== undefined || statement.Condition) {
        throw new UnresolvedIntrinsicError(
          `${roleId}: NotAction, NotResource and Condition are not enforced locally`,
        );
      }
      return {
        effect: statement.Effect === 'Deny' ? 'Deny' : 'Allow',
        actions: [statement.Action ?? []].flat().map(String),
        resources: [statement.Resource ?? []].flat().map(String),
      } satisfies PolicyStatement;
    }),
  );
}

function wildcard(pattern: string, caseInsensitive: boolean): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, caseInsensitive ? 'i' : '');
}

/** IAM's decision for one action on one resource: actions match case-insensitively, ARNs exactly. */
export function isAllowed(statements: readonly PolicyStatement[], action: string, resource: string): boolean {
  const matches = (statement: PolicyStatement) =>
    statement.actions.some((a) => wildcard(a, true).test(action)) &&
    statement.resources.some((r) => wildcard(r, false).test(resource));
  if (statements.some((s) => s.effect === 'Deny' && matches(s))) return false;
  return statements.some((s) => s.effect === 'Allow' && matches(s));
}
