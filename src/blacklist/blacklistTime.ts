/**
 * The blacklist's time format (SPEC 2.4): `YYYY-MM-DD HH:MM:SS`, UTC. Written by hand from the
 * epoch milliseconds: every listed IP lookup formats one, and Date's toISOString costs ~10× more.
 */
const two = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

export function blacklistTime(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const days = Math.floor(seconds / 86400);
  let rest = seconds - days * 86400;
  const hh = Math.floor(rest / 3600);
  rest -= hh * 3600;
  const mm = Math.floor(rest / 60);
  const ss = rest - mm * 60;
  // Civil date of a day count (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y}-${two[m]}-${two[d]} ${two[hh]}:${two[mm]}:${two[ss]}`;
}
