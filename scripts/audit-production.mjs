// CI step: `npm audit --omit=dev --audit-level=high` — fails (exit 1) when a production
// dependency has a high or critical advisory, listing them. npm exits non-zero both for findings
// and when the advisory service cannot be asked (e.g. a registry mirror without the audit
// endpoint); the two are told apart from the JSON report. An unreachable service is reported as
// such and does not fail the build, unless AUDIT_REQUIRED=true.
// AUDIT_REPORT=<file> reads a saved `npm audit --json` report instead (to check this script).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const run = process.env.AUDIT_REPORT
  ? { stdout: readFileSync(process.env.AUDIT_REPORT, 'utf8'), stderr: '', status: 1 }
  : spawnSync('npm', ['audit', '--omit=dev', '--audit-level=high', '--json'], { encoding: 'utf8' });
let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  report = undefined;
}

const counts = report?.metadata?.vulnerabilities;
if (counts === undefined) {
  const reason =
    report?.message ?? report?.error?.summary ?? (run.stderr.trim().split('\n').pop() || `exit ${run.status}`);
  console.log(`npm audit: the advisory service could not be asked (${reason}); production dependencies NOT audited`);
  process.exit(process.env.AUDIT_REQUIRED === 'true' ? 1 : 0);
}

const serious = Object.entries(report.vulnerabilities ?? {}).filter(
  ([, v]) => v.severity === 'high' || v.severity === 'critical',
);
console.log(
  `npm audit (production dependencies): ${counts.critical} critical, ${counts.high} high, ${counts.moderate} moderate, ${counts.low} low`,
);
for (const [name, v] of serious) console.log(`  ${v.severity}: ${name} ${v.range ?? ''}`);
process.exit(serious.length > 0 ? 1 : 0);
