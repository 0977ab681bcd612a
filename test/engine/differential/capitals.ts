/**
 * Addresses the DB-IP data places in capitals whose own IANA zone geo-tz's default data set
 * merged into another country's, with the UTC offsets of that zone in January and July 2026.
 */
export const CAPITAL_ADDRESSES = [
  { ip: '84.208.20.110', city: 'Oslo', country: 'NO', zone: 'Europe/Oslo', january: '+01:00', july: '+02:00' },
  { ip: '160.67.179.0', city: 'Oslo', country: 'NO', zone: 'Europe/Oslo', january: '+01:00', july: '+02:00' },
  { ip: '196.105.112.0', city: 'Nairobi', country: 'KE', zone: 'Africa/Nairobi', january: '+03:00', july: '+03:00' },
  { ip: '130.208.93.0', city: 'Reykjavik', country: 'IS', zone: 'Atlantic/Reykjavik', january: '+00:00', july: '+00:00' },
  { ip: '56.52.0.0', city: 'Dublin', country: 'IE', zone: 'Europe/Dublin', january: '+00:00', july: '+01:00' },
  { ip: '108.142.128.0', city: 'Amsterdam', country: 'NL', zone: 'Europe/Amsterdam', january: '+01:00', july: '+02:00' },
  { ip: '14.251.101.0', city: 'Hanoi', country: 'VN', zone: 'Asia/Ho_Chi_Minh', january: '+07:00', july: '+07:00' },
  { ip: '166.114.136.0', city: 'La Paz', country: 'BO', zone: 'America/La_Paz', january: '-04:00', july: '-04:00' },
] as const;
