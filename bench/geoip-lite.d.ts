// The part of geoip-lite (no bundled types) that bench/engine.ts uses.
declare module 'geoip-lite' {
  export interface Lookup {
    range: [number, number];
    country: string;
    region: string;
    eu: '0' | '1';
    timezone: string;
    city: string;
    ll: [number, number];
    metro: number;
    area: number;
  }
  const geoip: { lookup(ip: string | number): Lookup | null };
  export default geoip;
}
