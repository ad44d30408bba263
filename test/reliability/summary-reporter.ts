import { basename } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node' with { 'resolution-mode': 'import' };
import type { Figures } from './support/figures';

/**
 * Prints, at the end of a run, what the reliability suite counted: per test its cases, answers by
 * status and writes acknowledged and lost, then the totals. Silent when no test of the suite ran.
 */
export default class ReliabilitySummary implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows: { file: string; name: string; figures: Figures }[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const figures = test.meta().reliability;
        if (figures) rows.push({ file: basename(module.moduleId).replace(/\.test\.ts$/, ''), name: test.name, figures });
      }
    }
    if (!rows.length) return;

    const lines = ['', ' Reliability summary'];
    const refusals: Record<string, number> = {};
    let cases = 0;
    let acknowledged: number | undefined;
    let lost = 0;
    for (const { file, name, figures } of rows) {
      cases += figures.cases;
      if (figures.acknowledged !== undefined) acknowledged = (acknowledged ?? 0) + figures.acknowledged;
      lost += figures.lost ?? 0;
      for (const [status, count] of Object.entries(figures.statuses)) if (Number(status) >= 400) refusals[status] = (refusals[status] ?? 0) + count;
      const parts = [`${count(figures.cases)} cases`, statuses(figures.statuses)];
      if (figures.acknowledged !== undefined) {
        parts.push(
          `acknowledged ${count(figures.acknowledged)}, found ${count(figures.found ?? 0)}, lost ${count(figures.lost ?? 0)}, in flight (unknown) ${count(figures.inFlightUnknown ?? 0)}`,
        );
      }
      lines.push(`   ${file} > ${name}`, `      ${parts.filter(Boolean).join('; ')}`);
      for (const note of figures.notes) lines.push(`      ${note}`);
    }
    const writes = acknowledged === undefined ? '' : `; writes acknowledged ${count(acknowledged)}, lost ${count(lost)}`;
    lines.push(`   total: ${count(cases)} cases; refusals ${statuses(refusals) || 'none'}${writes}`, '');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** `200×1 409×99`, statuses in order. */
function statuses(byStatus: Record<string, number>): string {
  return Object.entries(byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}×${count(n)}`)
    .join(' ');
}
