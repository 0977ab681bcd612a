/** What the HTTP layer needs from the rest of the service, passed in (tests inject their own). */
import type { Logger } from 'pino';
import type { LiveEngine } from '../engine/liveEngine.js';
import type { FeedSet } from '../feeds/feedSet.js';
import type { RdapAbuse } from '../enrichment/rdapAbuse.js';
import type { ReverseDns } from '../enrichment/reverseDns.js';
import type { PlanTable } from '../plans/plans.js';
import type { Store } from '../store/store.js';
import type { ServiceConfig } from '../config/config.js';
import type { ServiceMetrics } from './operations/metrics.js';

export interface ServiceDeps {
  engine: LiveEngine;
  /** the feed set in force (Tor, VPN, proxy, RPKI, abuse), replaced when `feeds/current` changes */
  feeds: { current: FeedSet };
  /** network.hostname: PTR lookups bounded by a deadline, cached, one per address in flight */
  reverseDns: ReverseDns;
  /** abuse.email where no registry dump answers: RDAP queries bounded by a deadline and a rate limit, cached on disk */
  rdap: RdapAbuse;
  store: Store;
  plans: PlanTable;
  config: ServiceConfig;
  logger: Logger;
  metrics: ServiceMetrics;
  /** how this process takes its connections (set when it listens; /health shows it) */
  transport?: TransportMode;
  /** the clock of quotas, rate windows and time zones (tests move it) */
  now: () => Date;
}

/** Whether single lookups are answered on the socket, and how the sockets are read (null: node:http reads them). */
interface TransportMode {
  direct_connections: boolean;
  socket_reads: 'shared' | 'events' | null;
}
