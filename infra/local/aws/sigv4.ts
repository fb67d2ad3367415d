import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Checks a request's Signature Version 4 as AWS does (docs.aws.amazon.com/IAM/latest/UserGuide/
 * reference_sigv-create-signed-request.html): the `Authorization` header names the access key,
 * the scope (date, region, service) and the signed headers; the signature is computed again from
 * the request with that key's secret and must match.
 */

export interface SignedCaller {
  readonly accessKeyId: string;
  readonly region: string;
  readonly service: string;
}

export type SignatureCheck =
  | { readonly ok: true; readonly caller: SignedCaller }
  | {
      readonly ok: false;
      readonly type:
        | 'MissingAuthenticationToken'
        | 'UnrecognizedClientException'
        | 'InvalidSignatureException';
      readonly message: string;
    };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

export function checkSignature(
  request: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  secretOf: (accessKeyId: string) => string | undefined,
): SignatureCheck {
  const authorization = request.headers.authorization;
  const match = typeof authorization === 'string' ? AUTHORIZATION.exec(authorization) : null;
  if (!match) {
    return {
      ok: false,
      type: 'MissingAuthenticationToken',
      message: 'Request is missing Authentication Token',
    };
  }
  const [, accessKeyId = '', , region = '', service = '', signedHeaders = '', signature = ''] = match;
  const secretAccessKey = secretOf(accessKeyId);
  if (secretAccessKey === undefined) {
    return {
      ok: false,
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  const date = String(request.headers['x-amz-date'] ?? '');
  if (!/^\d{8}T\d{6}Z$/.test(date)) {
    return { ok: false, type: 'InvalidSignatureException', message: 'X-Amz-Date is missing or malformed.' };
  }
  const scope = `${date.slice(0, 8)}/${region}/${service}/aws4_request`;
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => {
      const value = request.headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const url = new URL(request.url, 'http://signed.invalid');
  const canonicalPath =
    url.pathname === '/'
      ? '/'
      : url.pathname
          .split('/')
          .map((segment) => rfc3986(decodeURIComponent(segment)))
          .join('/');
  const canonicalQuery = [...url.searchParams]
    .map(([key, value]) => `${rfc3986(key)}=${rfc3986(value)}`)
    .sort()
    .join('&');
  const canonicalRequest = [
    request.method,
    canonicalPath,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    createHash('sha256').update(request.body).digest('hex'),
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    date,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${secretAccessKey}`).update(date.slice(0, 8)).digest();
  for (const part of [region, service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
  if (
    expected.length !== signature.length ||
    !timingSafeEqual(Buffer.from(expected), Buffer.from(signature))
  ) {
    return {
      ok: false,
      type: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return { ok: true, caller: { accessKeyId, region, service } };
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
