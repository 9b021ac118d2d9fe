import type { Dataset } from './dataset.js';
import type { NimbusProcess } from './nimbus.js';

/** What every scenario gets: the data, the running daemon and the run's settings. */
export interface Bench {
  ds: Dataset;
  /** The run's temp directory (data, baselines' files). */
  root: string;
  nimbus: NimbusProcess;
  /** Seconds per HTTP load run. */
  seconds: number;
  /** Alternating rounds per scenario. */
  rounds: number;
  log: (line: string) => void;
}
