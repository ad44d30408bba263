/** What one run (one case against one target) measured. */
export interface Measured {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statementsPerRequest: number;
  /** Share of the measured time the server process spent collecting garbage (server side only). */
  gcShare?: number;
}

export interface CaseResult {
  id: string;
  request: string;
  server: Measured;
  baseline: Measured;
}

export interface PeakRss {
  serverMb: number;
  baselineMb: number;
}

/** Nearest-rank percentile of latencies in milliseconds. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const HEADINGS = ['case', 'req/s', 'base req/s', 'ratio', 'p50 ms', 'p99 ms', 'base p50', 'base p99', 'SQL/req', 'base SQL/req', 'GC %'];

function cells(result: CaseResult): string[] {
  const { server, baseline } = result;
  return [
    result.id,
    server.requestsPerSecond.toFixed(0),
    baseline.requestsPerSecond.toFixed(0),
    (server.requestsPerSecond / baseline.requestsPerSecond).toFixed(2),
    server.p50.toFixed(1),
    server.p99.toFixed(1),
    baseline.p50.toFixed(1),
    baseline.p99.toFixed(1),
    server.statementsPerRequest.toFixed(1),
    baseline.statementsPerRequest.toFixed(1),
    server.gcShare === undefined ? '-' : (100 * server.gcShare).toFixed(1),
  ];
}

/** A plain-text table for the terminal, the requests listed under it. */
export function textTable(results: CaseResult[], rss: PeakRss): string {
  const rows = [HEADINGS, ...results.map(cells)];
  const widths = HEADINGS.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [
    line(HEADINGS),
    ...results.map((r) => line(cells(r))),
    '',
    ...results.map((r) => `${r.id.padEnd(widths[0])}  ${r.request}`),
    '',
    peakRssLine(rss),
  ].join('\n');
}

/** The same figures as a Markdown table, ready for docs/benchmarks.md. */
export function markdownTable(results: CaseResult[], rss: PeakRss): string {
  const headings = ['case', 'req/s', 'baseline req/s', 'ratio', 'p50 / p99 ms', 'baseline p50 / p99 ms', 'SQL/req', 'baseline SQL/req', 'server GC %'];
  const rows = results.map((r) => {
    const c = cells(r);
    return [`${r.id} \`${r.request}\``, c[1], c[2], c[3], `${c[4]} / ${c[5]}`, `${c[6]} / ${c[7]}`, c[8], c[9], c[10]];
  });
  return [
    `| ${headings.join(' | ')} |`,
    `|${headings.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    peakRssLine(rss),
  ].join('\n');
}

function peakRssLine(rss: PeakRss): string {
  return `Peak RSS: server process ${rss.serverMb.toFixed(0)} MB (it also hosts the load thread and did the seeding), baseline process ${rss.baselineMb.toFixed(0)} MB.`;
}
