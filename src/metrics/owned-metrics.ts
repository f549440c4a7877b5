import type { OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge, Histogram, register, Summary } from 'prom-client';

type Metric = Counter<string> | Gauge<string> | Histogram<string> | Summary<string>;

/**
 * Base of a provider whose prom-client metrics live as long as its module: {@link own} registers one in place of a
 * namesake (an earlier application of this process), and the module's end removes those still its own (`this.own(Gauge, { name, help })`).
 */
export abstract class OwnedMetrics implements OnModuleDestroy {
  private readonly owned = new Map<string, Metric>();

  /** Removes the registered metric named `config.name`, if any, then registers and keeps a new `Kind(config)`. */
  protected own<C extends { name: string }, T extends Metric>(Kind: new (config: C) => T, config: C): T {
    register.removeSingleMetric(config.name);
    const metric = new Kind(config);
    this.owned.set(config.name, metric);
    return metric;
  }

  onModuleDestroy(): void {
    // Only our own: another application of this process may have registered its metrics since.
    for (const [name, metric] of this.owned) {
      if (register.getSingleMetric(name) === metric) register.removeSingleMetric(name);
    }
    this.owned.clear();
    this.released();
  }

  /** Drops the subclass's references once its metrics are unregistered. */
  protected released(): void {}
}
