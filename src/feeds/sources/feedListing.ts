/**
 * What a reader of a security feed (Tor exits, VPN servers, open proxies) returns: the listed
 * addresses as inclusive ranges of one family each, with the provider a list names (a VPN
 * provider's own server list names itself; an aggregate list names nobody), and the date the
 * publisher gives the listing. The feed builder (src/feeds/build) merges the listings of all feeds
 * into one table; bogons and CDN anycast are taken out there, not by the readers.
 */
export interface ListedRange {
  family: 4 | 6;
  /** first and last address, inclusive (IPv4 in the low 32 bits) */
  start: bigint;
  end: bigint;
  /** the service the range belongs to (a VPN provider's name), null when the list does not say */
  provider: string | null;
}

export interface FeedListing {
  ranges: ListedRange[];
  /** the publisher's date of the listing (an ISO time or YYYY-MM-DD); null when the file states none */
  date: string | null;
}
