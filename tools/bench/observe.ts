import { writeFileSync, mkdirSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * Watches this process (the server's) during a measured phase: the time its garbage collector took,
 * and, with BENCH_PROFILE set to a folder, a CPU profile of the phase (`<case>.cpuprofile`, for Chrome
 * DevTools or `node --cpu-prof`'s usual readers).
 */
export class PhaseObserver {
  private gcMs = 0;
  private readonly gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) this.gcMs += entry.duration;
  });
  private session?: Session;

  constructor(private readonly profileDir: string | undefined) {}

  async start(): Promise<void> {
    this.gcMs = 0;
    this.gc.observe({ entryTypes: ['gc'] });
    if (!this.profileDir) return;
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.start');
  }

  /** Milliseconds of garbage collection since `start`; the profile is written under `name`. */
  async stop(name: string): Promise<number> {
    this.gc.disconnect();
    if (this.session) {
      const { profile } = await this.session.post('Profiler.stop');
      mkdirSync(this.profileDir!, { recursive: true });
      writeFileSync(join(this.profileDir!, `${name}.cpuprofile`), JSON.stringify(profile));
      this.session.disconnect();
      this.session = undefined;
    }
    return this.gcMs;
  }
}
