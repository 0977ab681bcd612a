/**
 * Reader of the ip-location-db ASN CSV (`start,end,asn,organisation`, no header, inclusive
 * ranges, IP text form). Rows must be ascending; where a row starts inside the previous one, the
 * later row wins from its start (it is the more specific announcement) and the earlier is clipped.
 */
import { parseIPv4, parseIPv6, ipv6Value } from '../../address/ipAddress.js';
import { csvLineFields } from './csv.js';
import { SourceFormatError } from './textLines.js';

export interface AsnRange {
  start: bigint;
  end: bigint;
  asn: number;
  /** the registered organisation (this CSV: its fourth field, sometimes a registry handle such as TE-AS) */
  organization: string | null;
  /** the AS name as registered, where the source gives one apart from the organisation (CAIDA's) */
  asName?: string | null;
  /** the source's id of the organisation (CAIDA's organizationId) */
  organizationId?: string | null;
  /** the organisation that holds several ASNs, where the source groups them (CAIDA: one organisation id, two or more ASNs) */
  holding?: string | null;
}

export interface AsnReadResult {
  ranges: AsnRange[];
  clipped: number;
}

export function readAsnCsv(text: string, family: 4 | 6, file: string): AsnReadResult {
  const ranges: AsnRange[] = [];
  const words = new Uint32Array(4);
  let clipped = 0;
  let lineNo = 0;
  const address = (field: string): bigint => {
    if (family === 4) {
      const n = parseIPv4(field);
      if (n < 0) throw new SourceFormatError(file, lineNo, `not an IPv4 address: ${field}`);
      return BigInt(n);
    }
    if (!parseIPv6(field, words)) throw new SourceFormatError(file, lineNo, `not an IPv6 address: ${field}`);
    return ipv6Value(words);
  };
  for (const line of text.split('\n')) {
    lineNo++;
    if (line.length === 0) continue;
    const fields = csvLineFields(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (typeof fields === 'string') throw new SourceFormatError(file, lineNo, fields);
    if (fields.length !== 4) throw new SourceFormatError(file, lineNo, `expected 4 fields, found ${fields.length}`);
    const start = address(fields[0]);
    const end = address(fields[1]);
    const asn = Number(fields[2]);
    if (end < start) throw new SourceFormatError(file, lineNo, 'range ends before it starts');
    if (!Number.isInteger(asn) || asn < 0 || asn > 0xffffffff) throw new SourceFormatError(file, lineNo, `bad AS number ${fields[2]}`);
    const previous = ranges[ranges.length - 1];
    if (previous && start <= previous.end) {
      if (start <= previous.start) throw new SourceFormatError(file, lineNo, 'rows are not in ascending order');
      previous.end = start - 1n;
      clipped++;
    }
    ranges.push({ start, end, asn, organization: fields[3].length > 0 ? fields[3] : null });
  }
  return { ranges, clipped };
}
