import { renderSVG } from 'uqr';
import { describe, expect, it } from 'vitest';
import { enrollmentUri, newCodeSecret } from '../../../lib/changes/step-up.js';
import { qrPage } from '../../../lib/passkeys/app-qr.js';

/**
 * The authenticator app's QR page as drawn: the code of exactly the otpauth URI it is given, as
 * inline SVG under a CSP that runs no script. (Which URI it is given, and when, is the core's
 * `pendingAppKey` and the browser test's.)
 */

const URI = enrollmentUri(newCodeSecret(), 'U0ADA@T0QR');

/** The page's `<svg>…</svg>`. */
function svgOf(html: string): string {
  const svg = /<svg[\s\S]*<\/svg>/.exec(html)?.[0];
  if (!svg) throw new Error('no svg on the page');
  return svg;
}

describe('the QR page', () => {
  it('draws the QR code of exactly the otpauth URI it is given, with the quiet zone scanners need', () => {
    const svg = svgOf(qrPage(URI).html);
    expect(svg).toBe(renderSVG(URI, { ecc: 'M', border: 4 }));
    // A URI one character off draws another code: the drawing depends on every character.
    expect(svg).not.toBe(renderSVG(`${URI.slice(0, -1)}7`, { ecc: 'M', border: 4 }));
  });

  it('runs no script, loads nothing, and lets no form post anywhere', () => {
    const { html, headers } = qrPage(URI);
    expect(html).not.toContain('<script');
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).toContain("form-action 'none'");
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');
  });
});
