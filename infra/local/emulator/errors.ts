/** The API's error body, `{errors: [{field, reason}]}`, with the HTTP status it travels with. */
export interface FieldError {
  field?: string;
  reason: string;
}

export class EmulatorError extends Error {
  readonly status: number;
  readonly errors: readonly FieldError[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, errors: readonly FieldError[], headers: Record<string, string> = {}) {
    super(errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; '));
    this.status = status;
    this.errors = errors;
    this.headers = headers;
  }
}

function fieldError(reason: string, field: string | undefined): FieldError {
  return field === undefined ? { reason } : { field, reason };
}

export function badRequest(reason: string, field?: string): EmulatorError {
  return new EmulatorError(400, [fieldError(reason, field)]);
}

export function unauthorized(reason = 'Invalid Token'): EmulatorError {
  return new EmulatorError(401, [{ reason }]);
}

export function forbidden(reason = 'Unauthorized', field?: string): EmulatorError {
  return new EmulatorError(403, [fieldError(reason, field)]);
}

export function notFound(reason = 'Not found'): EmulatorError {
  return new EmulatorError(404, [{ reason }]);
}
