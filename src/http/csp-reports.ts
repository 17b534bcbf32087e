/**
 * Content-Security-Policy violations the dashboard's browsers report (`POST /1.0/csp-reports`). Each is
 * logged; the process keeps a count and the latest few, bounded, so a test (and an operator reading the
 * logs) sees that a page broke its own policy. The reports come from anyone: every field is cut short and
 * nothing of them is trusted.
 */

/** The dashboard's policy: nothing inline, nothing from elsewhere; reports go to the endpoint below. */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  'report-uri /1.0/csp-reports',
  'report-to csp',
].join('; ');

/** The Reporting API endpoint the policy's `report-to csp` names. */
export const REPORTING_ENDPOINTS = 'csp="/1.0/csp-reports"';

export interface CspViolation {
  documentUri: string;
  directive: string;
  blockedUri: string;
  sample: string;
}

/** How many recent violations are kept in memory; older ones are only in the log. */
const KEPT = 50;
/** The longest field kept or logged. */
const FIELD_MAX = 300;

const field = (value: unknown): string => (typeof value === 'string' ? value.slice(0, FIELD_MAX) : '');

/**
 * The violations in a report body: the legacy `report-uri` shape `{"csp-report": {...}}` (kebab-case
 * fields) or the Reporting API's array of `{type: "csp-violation", body: {...}}` (camelCase fields).
 */
export function parseCspReports(body: unknown): CspViolation[] {
  if (Array.isArray(body)) {
    return body
      .slice(0, KEPT)
      .filter((r): r is { type: string; url?: unknown; body: Record<string, unknown> } => {
        const report = r as { type?: unknown; body?: unknown } | null;
        return report?.type === 'csp-violation' && typeof report.body === 'object' && report.body !== null;
      })
      .map((r) => ({
        documentUri: field(r.body.documentURL ?? r.url),
        directive: field(r.body.effectiveDirective),
        blockedUri: field(r.body.blockedURL),
        sample: field(r.body.sample),
      }));
  }
  const legacy = (body as { 'csp-report'?: Record<string, unknown> } | null)?.['csp-report'];
  if (typeof legacy !== 'object' || legacy === null) return [];
  return [
    {
      documentUri: field(legacy['document-uri']),
      directive: field(legacy['effective-directive'] ?? legacy['violated-directive']),
      blockedUri: field(legacy['blocked-uri']),
      sample: field(legacy['script-sample']),
    },
  ];
}

export class CspReportLog {
  #count = 0;
  readonly #recent: CspViolation[] = [];

  /** Violations received since the process started. */
  get count(): number {
    return this.#count;
  }

  /** The latest violations, oldest first (at most 50). */
  get recent(): readonly CspViolation[] {
    return this.#recent;
  }

  add(violation: CspViolation): void {
    this.#count += 1;
    this.#recent.push(violation);
    if (this.#recent.length > KEPT) this.#recent.shift();
  }
}
