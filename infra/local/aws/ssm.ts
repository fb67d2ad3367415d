/**
 * SSM Parameter Store's reads, as the functions make them at cold start (AWS JSON 1.1,
 * `X-Amz-Target: AmazonSSM.<Operation>`; docs.aws.amazon.com/systems-manager/latest/APIReference):
 * `GetParameters` (up to 10 names; the missing ones listed in `InvalidParameters`, not an error)
 * and `GetParameter` (`ParameterNotFound` for a missing one). A SecureString's value is shown only
 * `WithDecryption`.
 */

export class SsmError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export interface LocalSsm {
  /** The ARN IAM checks for a parameter name (`/a/b` → `…:parameter/a/b`). */
  arnOf(name: string): string;
  /** The names a request reads, for the IAM check before it is answered. */
  namesOf(operation: string, input: Record<string, unknown>): string[];
  handle(operation: string, input: Record<string, unknown>): Record<string, unknown>;
}

export function createLocalSsm(
  region: string,
  accountId: string,
  secureStrings: Readonly<Record<string, string>>,
): LocalSsm {
  const arnOf = (name: string) => `arn:aws:ssm:${region}:${accountId}:parameter/${name.replace(/^\//, '')}`;
  const parameter = (name: string, decrypt: boolean) => ({
    Name: name,
    Type: 'SecureString',
    Value: decrypt ? secureStrings[name] : 'AQICAHh-encrypted-value',
    Version: 1,
    ARN: arnOf(name),
    DataType: 'text',
  });
  return {
    arnOf,
    namesOf(operation, input) {
      if (operation === 'GetParameter') return [String(input.Name ?? '')];
      if (operation === 'GetParameters') return Array.isArray(input.Names) ? input.Names.map(String) : [];
      return [];
    },
    handle(operation, input) {
      const decrypt = input.WithDecryption === true;
      if (operation === 'GetParameter') {
        const name = String(input.Name ?? '');
        if (!(name in secureStrings)) throw new SsmError('ParameterNotFound', '');
        return { Parameter: parameter(name, decrypt) };
      }
      if (operation === 'GetParameters') {
        const names = Array.isArray(input.Names) ? input.Names.map(String) : [];
        if (names.length < 1 || names.length > 10) {
          throw new SsmError('ValidationException', 'Names must have between 1 and 10 items.');
        }
        return {
          Parameters: names.filter((n) => n in secureStrings).map((n) => parameter(n, decrypt)),
          InvalidParameters: names.filter((n) => !(n in secureStrings)),
        };
      }
      throw new SsmError('InvalidAction', `${operation} is not answered here`);
    },
  };
}
