import { describe, expect, it } from 'vitest';
import { ceremonyPage, type ProofSubject, timeIn } from '../../../lib/passkeys/page.js';

/**
 * The approval page's account of what a passkey confirms: outside text (a label, a reason, a
 * Slack name) is shown as text, never as markup, and times are in the person's own zone.
 */

const SUBJECT: ProofSubject = {
  decision: 'deny',
  action: 'delete volume',
  target: '<img src=x onerror=alert(1)> (12)',
  requester: 'Mallory </dd><script>alert(2)</script>',
  reason: '"quoted" & <b>bold</b>',
  requestId: '3f1c2a9e-0000-4000-8000-000000000000',
  requestExpires: new Date(Date.UTC(2030, 0, 15, 9, 30)),
  timeZone: 'Asia/Kolkata',
};
const LINK_UNTIL = new Date(Date.UTC(2030, 0, 15, 9, 5));

describe('the approval page', () => {
  it('shows the request’s outside text escaped: no tag of it reaches the page', () => {
    const { html } = ceremonyPage({ kind: 'approve', subject: SUBJECT, linkUntil: LINK_UNTIL });
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62; (12)');
    expect(html).toContain('Mallory &#60;/dd&#62;&#60;script&#62;alert(2)&#60;/script&#62;');
    expect(html).toContain('&#34;quoted&#34; &#38; &#60;b&#62;bold&#60;/b&#62;');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('alert(2)</script>');
  });

  it('names the decision the passkey confirms, on the page and its button', () => {
    const { html } = ceremonyPage({ kind: 'approve', subject: SUBJECT, linkUntil: LINK_UNTIL });
    expect(html).toContain('data-decision="deny"><strong>You are denying:</strong> delete volume');
    expect(html).toContain('>Deny with passkey</button>');
  });

  it('gives times in the person’s own zone, named, and in UTC where the zone is unknown', () => {
    expect(timeIn(SUBJECT.requestExpires, 'Asia/Kolkata')).toBe('15 Jan 2030, 15:00 (Asia/Kolkata)');
    expect(timeIn(SUBJECT.requestExpires, 'Not/AZone')).toBe('15 Jan 2030, 09:30 (UTC)');
  });

  it('where a passkey cannot count, says why and offers no button or script', () => {
    const { html } = ceremonyPage({
      kind: 'approve',
      subject: { ...SUBJECT, passkeyRefused: 'The rule changed.' },
      linkUntil: LINK_UNTIL,
    });
    expect(html).toContain('data-state="refused">The rule changed.</p>');
    expect(html).not.toContain('passkey-start');
    expect(html).not.toContain('<script');
  });
});
