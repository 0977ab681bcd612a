/**
 * Progress of long jobs (table build, imports) on stderr: a live bar per phase on a terminal,
 * one line per finished phase elsewhere (CI logs, pipes).
 */
import cliProgress from 'cli-progress';

export class ProgressDisplay {
  private phase: string | null = null;
  private bar: cliProgress.SingleBar | null = null;
  private phaseStarted = 0;
  private readonly interactive = Boolean(process.stderr.isTTY);

  update(phase: string, done: number, total: number): void {
    if (phase !== this.phase) {
      this.finishPhase();
      this.phase = phase;
      this.phaseStarted = Date.now();
      if (this.interactive) {
        this.bar = new cliProgress.SingleBar(
          { format: '{phase} [{bar}] {percentage}% {value}/{total}', stream: process.stderr, hideCursor: true, clearOnComplete: false },
          cliProgress.Presets.shades_classic,
        );
        this.bar.start(total, done, { phase });
      }
    }
    this.bar?.setTotal(total);
    this.bar?.update(done, { phase });
    if (done >= total) this.finishPhase();
  }

  finishPhase(): void {
    if (this.phase === null) return;
    this.bar?.stop();
    this.bar = null;
    if (!this.interactive) process.stderr.write(`${this.phase}: done in ${((Date.now() - this.phaseStarted) / 1000).toFixed(1)} s\n`);
    this.phase = null;
  }
}
