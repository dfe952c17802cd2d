// What each process of a bench run costs: CPU time used between start() and stop(), and the
// largest resident set seen (VmRSS read every `everyMs`), for the bench's services and APy's tree.
import { processCpuMs, processTreeCpuMs, rssMiB } from './bench-support.js';

export interface WatchedProcess {
  readonly name: string;
  readonly pid: number;
  /** CPU and RSS of the process and its descendants (APy forks its pipelines). */
  readonly tree?: boolean;
}

export interface ProcessFigures {
  readonly name: string;
  readonly cpuMs: number;
  readonly startRssMiB: number;
  readonly peakRssMiB: number;
}

export class ProcessWatch {
  private readonly cpuFrom: number[];
  private readonly startRss: number[];
  private readonly peak: number[];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly processes: readonly WatchedProcess[],
    everyMs = 250,
  ) {
    this.cpuFrom = processes.map(cpuOf);
    this.startRss = processes.map((p) => rssMiB(p.pid));
    this.peak = [...this.startRss];
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    this.processes.forEach((p, i) => {
      const rss = rssMiB(p.pid);
      if (rss > (this.peak[i] ?? 0)) this.peak[i] = rss;
    });
  }

  stop(): ProcessFigures[] {
    clearInterval(this.timer);
    this.sample();
    return this.processes.map((p, i) => ({
      name: p.name,
      cpuMs: cpuOf(p) - (this.cpuFrom[i] ?? 0),
      startRssMiB: this.startRss[i] ?? Number.NaN,
      peakRssMiB: this.peak[i] ?? Number.NaN,
    }));
  }
}

const cpuOf = (p: WatchedProcess) => (p.tree ? processTreeCpuMs(p.pid) : processCpuMs(p.pid));
