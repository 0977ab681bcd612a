/**
 * Ban events of fail2ban's log (`/var/log/fail2ban.log`, or the same lines through syslog):
 *
 *   2026-11-20 10:15:32,123 fail2ban.actions [1234]: NOTICE  [sshd] Ban 203.0.113.5
 *   2026-11-20 10:15:32,123 fail2ban.actions [1234]: NOTICE  [sshd] Restore Ban 203.0.113.5
 *   Nov 20 10:15:32 host fail2ban.actions[1234]: NOTICE [sshd] Ban 203.0.113.5
 *
 * `Restore Ban` lines are bans fail2ban re-applies at a restart (already reported when first
 * made): they are recognised so that the import can leave them out. Every other line (Found,
 * Unban, already banned, other loggers) is no ban event. fail2ban writes local time without a
 * zone: the caller says the log's UTC offset.
 */
import type { ThreatType } from './threatTypes.js';

export interface Fail2banBan {
  jail: string;
  ip: string;
  /** null when the line's time cannot be read */
  at: Date | null;
  restored: boolean;
}

const ISO_LINE =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[,.]\d+)?\s+fail2ban\.actions\s*(?:\[\d+\])?:\s*[A-Z]+\s+\[([^\]]+)\]\s+(Restore\s+)?Ban\s+(\S+)\s*$/;
const SYSLOG_LINE =
  /^([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+\S+\s+fail2ban\.actions\s*(?:\[\d+\])?:\s*[A-Z]+\s+\[([^\]]+)\]\s+(Restore\s+)?Ban\s+(\S+)\s*$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A ban event of one log line, or null; `utcOffsetMinutes` of the log's local time, `now` for syslog's missing year. */
export function parseFail2banLine(line: string, utcOffsetMinutes: number, now: Date): Fail2banBan | null {
  const offsetMs = utcOffsetMinutes * 60_000;
  const iso = ISO_LINE.exec(line);
  if (iso) {
    const [, y, mo, d, h, mi, s, jail, restored, ip] = iso;
    const at = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s) - offsetMs;
    return { jail, ip, at: Number.isNaN(at) ? null : new Date(at), restored: restored !== undefined };
  }
  const sys = SYSLOG_LINE.exec(line);
  if (sys) {
    const [, mon, d, h, mi, s, jail, restored, ip] = sys;
    const month = MONTHS.indexOf(mon);
    let at = Date.UTC(now.getUTCFullYear(), month, +d, +h, +mi, +s) - offsetMs;
    // No year in syslog: a date after now belongs to last year.
    if (at > now.getTime() + 86_400_000) at = Date.UTC(now.getUTCFullYear() - 1, month, +d, +h, +mi, +s) - offsetMs;
    return { jail, ip, at: month < 0 ? null : new Date(at), restored: restored !== undefined };
  }
  return null;
}

/** The threat type a jail guards against, by the names of fail2ban's stock jails. */
export function threatTypeOfJail(jail: string): ThreatType {
  const name = jail.toLowerCase();
  if (/ddos|dos|limit-req|flood/.test(name)) return 'ddos';
  if (/bot|crawler|badbots/.test(name)) return 'bot';
  if (/scan|portscan|probe|recon/.test(name)) return 'scanner';
  if (/postfix|exim|sendmail|spam|smtp|qmail|rbl/.test(name) && !/sasl|auth/.test(name)) return 'spam';
  if (
    /ssh|ftp|sasl|auth|login|dovecot|courier|imap|pop3|mysql|asterisk|freeswitch|wordpress|recidive|drupal|roundcube|sogo|monit|webmin|vnc|rdp|openvpn/.test(
      name,
    )
  ) {
    return name.includes('recidive') ? 'other' : 'brute-force';
  }
  if (/apache|nginx|http|php|web|lighttpd|modsec|noscript|overflows|shellshock|nextcloud/.test(name)) return 'web-attack';
  return 'other';
}
