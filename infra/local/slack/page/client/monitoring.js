// @ts-check
// The cloud side of the demo, outside Slack, in the sidebar: the emulator's managed services and
// their issues, raising one and resolving it.

import { node } from './dom.js';
import { els, post, setStatus } from './session.js';

/** @typedef {import('../client-api.js').ClientMonitoring} ClientMonitoring */

export async function loadMonitoring() {
  /** @type {ClientMonitoring} */
  let monitoring;
  try {
    const response = await fetch('/api/monitoring');
    // A sandbox without the emulator has none: the section stays hidden.
    if (!response.ok) return;
    monitoring = await response.json();
  } catch {
    return;
  }
  renderMonitoring(monitoring);
}

/** @param {ClientMonitoring} monitoring */
function renderMonitoring(monitoring) {
  els.monitoring.hidden = false;
  const chosen = els.issueService.value;
  els.issueService.replaceChildren(
    ...monitoring.services.map((service) => {
      const option = node('option', '', `${service.label} (${service.status})`);
      option.value = String(service.id);
      option.selected = option.value === chosen;
      return option;
    }),
  );
  const labels = new Map(monitoring.services.map((service) => [service.id, service.label]));
  els.issues.replaceChildren(
    ...monitoring.issues.slice(0, 5).map((issue) => {
      const row = node('li');
      row.dataset.testid = 'issue';
      row.dataset.issue = String(issue.id);
      const where = issue.services.map((id) => labels.get(id) ?? `service ${id}`).join(', ');
      const label = node('span', 'issue-label', `${issue.id} ${issue.label}`);
      label.title = `Issue ${issue.id} on ${where}: ${issue.label}${issue.resolved ? ' (resolved)' : ''}`;
      label.classList.toggle('resolved', issue.resolved);
      row.append(label);
      if (!issue.resolved) {
        const resolve = node('button', '', 'Resolve');
        resolve.type = 'button';
        resolve.dataset.testid = 'issue-resolve';
        resolve.addEventListener('click', () => resolveIssue(issue.id));
        row.append(resolve);
      }
      return row;
    }),
  );
}

async function raiseIssue() {
  const service = Number(els.issueService.value);
  if (!Number.isInteger(service) || service <= 0) return;
  els.issueRaise.disabled = true;
  const summary = els.issueSummary.value.trim();
  const result = await post('/api/monitoring/issue', summary ? { service, summary } : { service });
  els.issueRaise.disabled = false;
  if (result.ok) {
    els.issueSummary.value = '';
    setStatus(
      'Issue raised. Channels subscribed with /cloud reports add alerts get it when the subscription next runs (or now with /cloud reports run ID).',
    );
  } else setStatus(`Raise issue: ${result.error}`, 'error');
  loadMonitoring();
}

/** @param {number} issue */
async function resolveIssue(issue) {
  const result = await post('/api/monitoring/resolve', { issue });
  if (result.ok) setStatus(`Issue ${issue} resolved: its services check out again.`);
  else setStatus(`Resolve issue ${issue}: ${result.error}`, 'error');
  loadMonitoring();
}

/** Raising an issue from the sidebar's form. */
export function wireMonitoring() {
  els.issueForm.addEventListener('submit', (event) => {
    event.preventDefault();
    raiseIssue();
  });
}
