/**
 * The blacklist's facts of an address as the IP record shows them (SPEC 2.2 security.is_threat,
 * threat_*): the stores compute them and the records render them, so both import them from here.
 */
/** Blacklist facts of an address (SPEC 2.2 security.is_threat...), filled by the blacklist. */
export interface ThreatFacts {
  is_threat: boolean;
  threat_type: string | null;
  /** 0 to 100 */
  threat_confidence: number;
  threat_reports: number;
  /** time of the last report (the blacklist's format), null when never reported */
  threat_last_seen: string | null;
}

/**
 * The threat fields while the blacklist cannot be read (a shared store's outage): no data, so
 * null (SPEC 1, rule 5) rather than a refused lookup or a guessed "not listed".
 */
export interface UnknownThreatFacts {
  is_threat: null;
  threat_type: null;
  threat_confidence: null;
  threat_reports: null;
  threat_last_seen: null;
}

/** An address that is not listed. */
export const NO_THREAT_FACTS: Readonly<ThreatFacts> = Object.freeze({
  is_threat: false,
  threat_type: null,
  threat_confidence: 0,
  threat_reports: 0,
  threat_last_seen: null,
});

/** The blacklist could not be read. */
export const UNKNOWN_THREAT_FACTS: Readonly<UnknownThreatFacts> = Object.freeze({
  is_threat: null,
  threat_type: null,
  threat_confidence: null,
  threat_reports: null,
  threat_last_seen: null,
});
