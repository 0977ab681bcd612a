/** cluster-key-slot (the slot function of ioredis's Cluster client) ships no types. */
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string | Buffer): number;
}
