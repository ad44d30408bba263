import type { RunnerTestCase } from 'vitest';

/** What one test of the reliability suite counted; the summary reporter adds them up at the end of the run. */
export interface Figures {
  /** Property cases run, or requests sent. */
  cases: number;
  /** Answers by HTTP status (GraphQL: by the status of its first error, or 200 without errors). */
  statuses: Record<string, number>;
  /** Writes the server answered with a 2xx. */
  acknowledged?: number;
  /** Of those, the ones found afterwards. */
  found?: number;
  lost?: number;
  /** Writes sent but never answered (the process was killed): in the database or not, both are correct. */
  inFlightUnknown?: number;
  /** One-line results of their own (memory growth, timings). */
  notes: string[];
}

declare module 'vitest' {
  interface TaskMeta {
    reliability?: Figures;
  }
}

/** Whether the heavy variants run (`npm run test:stress`). */
export const STRESS = process.env.STRESS === '1';

/** `light` under `npm test`, `heavy` under `npm run test:stress`. */
export function byLoad(light: number, heavy: number): number {
  return STRESS ? heavy : light;
}

/**
 * fast-check's run parameters: `light` or `heavy` cases, and FUZZ_SEED when set, to replay the run a
 * failure reports (`{ seed: …, path: … }`).
 */
export function runs(light: number, heavy: number): { numRuns: number; seed?: number } {
  const seed = process.env.FUZZ_SEED;
  return { numRuns: byLoad(light, heavy), ...(seed ? { seed: Number(seed) } : {}) };
}

/**
 * The figures of `task`, kept in its metadata (reported even when the test fails half-way):
 * `answered(status)` for each answer, `note(text)` for other results.
 */
export function tally(task: Readonly<RunnerTestCase>) {
  const figures: Figures = (task.meta.reliability ??= { cases: 0, statuses: {}, notes: [] });
  return {
    figures,
    /** One property case (or request) run. */
    ran(cases = 1): void {
      figures.cases += cases;
    },
    answered(status: number | string): void {
      figures.statuses[status] = (figures.statuses[status] ?? 0) + 1;
    },
    note(text: string): void {
      figures.notes.push(text);
    },
  };
}

export type Tally = ReturnType<typeof tally>;
