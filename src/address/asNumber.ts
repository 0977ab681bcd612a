/**
 * AS numbers as clients write them: `AS15169`, `as15169` or `15169` (asplain, RFC 5396), from 1 to
 * 4294967295. AS 0 is reserved (RFC 7607) and announces nothing. The asdot form (`1.10`) is not read.
 */

const MAX_ASN = 0xffffffff;

const AS_NUMBER = /^(?:as)?(\d{1,10})$/i;

/** The AS number of the text, or -1 when it is not one. */
export function parseAsn(text: string): number {
  const match = AS_NUMBER.exec(text);
  if (match === null) return -1;
  const asn = Number(match[1]);
  return asn >= 1 && asn <= MAX_ASN ? asn : -1;
}
