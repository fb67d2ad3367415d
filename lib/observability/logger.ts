import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Keys whose values never reach a log line, whatever object they sit in. Redaction happens in the
 * serializer, so a careless `logger.info('x', { body })` cannot leak a token or a password.
 */
const SECRET_KEY =
  /^(authorization|token|access_token|bot_token|api_token|.*_token|password|root_pass|secret|signing_secret|scratch|tfa_code|otp_code|ca_certificate|token_ciphertext|plaintext)$/i;

export const REDACTED = '[redacted]';

export function redactSecrets(key: string, value: unknown): unknown {
  if (key && SECRET_KEY.test(key) && value !== null && value !== undefined && value !== '') return REDACTED;
  return value;
}

export function createLogger(serviceName: string): Logger {
  return new Logger({ serviceName, jsonReplacerFn: redactSecrets });
}
