/** What one run (one case against one side) measured. */
export interface Measured {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statementsPerRequest: number;
  /** Share of the measured time the server process spent collecting garbage (server side only). */
  gcShare?: number;
}

/** The sides of a case: the server, then what it is compared with. */
export const BASELINES = ['least', 'postgraphile', 'same'] as const;
export type Baseline = (typeof BASELINES)[number];

/** How the report names each baseline. */
export const BASELINE_NAMES: Record<Baseline, string> = { least: 'least SQL', postgraphile: 'PostGraphile', same: 'same SQL' };

export interface CaseResult {
  id: string;
  request: string;
  caller: string;
  server: Measured;
  /** A baseline that does not take part in the case (PostGraphile for writes) is absent. */
  baselines: Partial<Record<Baseline, Measured>>;
  /** Whether the same-SQL baseline sent the server's statements for one request: undefined when unchecked. */
  sameStatements?: boolean;
}

/** Peak RSS of each process, in MB. */
export type PeakRss = { server: number } & Partial<Record<Baseline, number>>;

/** Nearest-rank percentile of latencies in milliseconds. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const SHORT: Record<Baseline, string> = { least: 'least', postgraphile: 'PG', same: 'same' };

const rate = (m?: Measured) => (m ? m.requestsPerSecond.toFixed(0) : '-');
const ratio = (server: Measured, m?: Measured) => (m ? (server.requestsPerSecond / m.requestsPerSecond).toFixed(2) : '-');
const latency = (m?: Measured) => (m ? `${m.p50.toFixed(1)}/${m.p99.toFixed(1)}` : '-');
const statements = (m?: Measured) => (m ? m.statementsPerRequest.toFixed(1) : '-');

/** The headings and cells shared by both tables: rates, ratios server/baseline, p50/p99, SQL per request. */
function columns(): { heading: string; cell: (r: CaseResult) => string }[] {
  return [
    { heading: 'caller', cell: (r) => r.caller },
    { heading: 'req/s', cell: (r) => rate(r.server) },
    ...BASELINES.map((b) => ({ heading: `${SHORT[b]} req/s`, cell: (r: CaseResult) => rate(r.baselines[b]) })),
    ...BASELINES.map((b) => ({ heading: `÷${SHORT[b]}`, cell: (r: CaseResult) => ratio(r.server, r.baselines[b]) })),
    { heading: 'p50/p99 ms', cell: (r) => latency(r.server) },
    ...BASELINES.map((b) => ({ heading: `${SHORT[b]} p50/p99`, cell: (r: CaseResult) => latency(r.baselines[b]) })),
    { heading: 'SQL/req', cell: (r) => [r.server, ...BASELINES.map((b) => r.baselines[b])].map(statements).join(' ') },
    { heading: 'same text', cell: (r) => (r.sameStatements === undefined ? '-' : r.sameStatements ? 'yes' : 'NO') },
    { heading: 'GC %', cell: (r) => (r.server.gcShare === undefined ? '-' : (100 * r.server.gcShare).toFixed(1)) },
  ];
}

const LEGEND = [
  'req/s: requests per second answered (2xx); least, PG, same: the least-SQL baseline, PostGraphile, the same-SQL baseline.',
  "÷least, ÷PG, ÷same: server req/s divided by that baseline's (below 1: the server is slower).",
  'p50/p99: latency percentiles in ms. SQL/req: statements per request, server least PG same.',
  "same text: whether the same-SQL baseline sent the server's statement texts for one request of the case.",
  "GC %: share of the server's measured time spent collecting garbage. -: the side does not take part.",
];

/** A plain-text table for the terminal, the legend and the requests listed under it. */
export function textTable(results: CaseResult[], rss: PeakRss): string {
  const cols = columns();
  const headings = ['case', ...cols.map((c) => c.heading)];
  const rows = results.map((r) => [r.id, ...cols.map((c) => c.cell(r))]);
  const widths = headings.map((_, i) => Math.max(...[headings, ...rows].map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i <= 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(headings), ...rows.map(line), '', ...LEGEND, '', ...results.map((r) => `${r.id.padEnd(widths[0])}  ${r.request}`), '', peakRssLine(rss)].join(
    '\n',
  );
}

/** The same figures as a Markdown table, ready for docs/benchmarks.md. */
export function markdownTable(results: CaseResult[], rss: PeakRss): string {
  const cols = columns();
  const headings = ['case', ...cols.map((c) => c.heading)];
  const rows = results.map((r) => [`${r.id} \`${r.request}\``, ...cols.map((c) => c.cell(r))]);
  return [
    `| ${headings.join(' | ')} |`,
    `|${headings.map((_, i) => (i <= 1 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    peakRssLine(rss),
  ].join('\n');
}

function peakRssLine(rss: PeakRss): string {
  const others = BASELINES.filter((b) => rss[b] !== undefined).map((b) => `${BASELINE_NAMES[b]} ${rss[b]!.toFixed(0)} MB`);
  return `Peak RSS: server process ${rss.server.toFixed(0)} MB (it also hosts the load thread and did the seeding)${others.length ? `, ${others.join(', ')}` : ''}.`;
}
