/**
 * A DNS server for the reverse DNS tests: dns2 (devDependency) on a random UDP port of 127.0.0.1.
 * It answers each query by the zone entry of its name (lowercased, no trailing dot), which the
 * test may change while it runs, and counts the queries every name receives. A name with no entry
 * is NXDOMAIN.
 *
 * Entries: PTR names answered (after `delayMs`, if given); a bare RCODE; silence (a server that
 * never answers); or PTR records whose RDATA are given as wire-format bytes (`wireName`), for the
 * answers dns2's encoder would refuse or clean up: labels of control bytes, invalid UTF-8, names
 * past 255 octets. Those messages are built here byte by byte (RFC 1035 4.1).
 */
import dgram from 'node:dgram';
import dns2, { type Packet as DnsPacket } from 'dns2';

const { Packet } = dns2;

export type ZoneEntry =
  | { names: string[]; ttl?: number; delayMs?: number }
  | { rcode: 'NOERROR' | 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED' }
  | { silent: true }
  | { wireNames: Buffer[] };

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as Resolver.setServers takes it */
  readonly address: string;
  /** the zone, by query name: change it freely */
  readonly zone: Map<string, ZoneEntry>;
  /** queries received for `name`, or for all names */
  queries(name?: string): number;
  close(): Promise<void>;
}

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

/** A name in wire format: each label as its length byte and bytes (a string's characters are taken as bytes), then the root. */
export function wireName(labels: readonly (string | Buffer)[]): Buffer {
  const parts = labels.map((label) => (typeof label === 'string' ? Buffer.from(label, 'latin1') : label));
  return Buffer.concat([...parts.flatMap((bytes) => [Buffer.of(bytes.length), bytes]), Buffer.of(0)]);
}

/** A response to `request` holding one PTR record per RDATA, each owned by the question's name (a pointer to offset 12). */
function rawPtrResponse(request: DnsPacket, rdatas: readonly Buffer[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(request.header.id, 0);
  header.writeUInt16BE(0x8180, 2); // QR, RD, RA, NOERROR
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(rdatas.length, 6);
  const records = rdatas.map((rdata) => {
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0);
    fixed.writeUInt16BE(Packet.TYPE.PTR, 2);
    fixed.writeUInt16BE(Packet.CLASS.IN, 4);
    fixed.writeUInt32BE(300, 6);
    fixed.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([fixed, rdata]);
  });
  return Buffer.concat([header, request.questions[0].toBuffer(), ...records]);
}

export async function startDnsServer(zone: Record<string, ZoneEntry> = {}): Promise<TestDnsServer> {
  const entries = new Map(Object.entries(zone));
  const counts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const question = request.questions[0];
      const name = question.name.toLowerCase().replace(/\.$/, '');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      const entry = entries.get(name);
      // the socket may close before a delayed answer leaves: that answer is dropped
      const reply = (message: DnsPacket | Buffer) => void send(message).catch(() => undefined);
      if (entry === undefined || 'rcode' in entry) {
        const response = Packet.createResponseFromRequest(request);
        response.header.rcode = RCODES[entry?.rcode ?? 'NXDOMAIN'];
        return reply(response);
      }
      if ('silent' in entry) return;
      if ('wireNames' in entry) return reply(rawPtrResponse(request, entry.wireNames));
      const response = Packet.createResponseFromRequest(request);
      for (const domain of entry.names) {
        response.answers.push(
          Packet.createResourceFromQuestion(question, { type: Packet.TYPE.PTR, class: Packet.CLASS.IN, ttl: entry.ttl ?? 300, domain }),
        );
      }
      if (!entry.delayMs) return reply(response);
      const timer = setTimeout(() => {
        timers.delete(timer);
        reply(response);
      }, entry.delayMs);
      timers.add(timer);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp?.port;
  if (port === undefined) throw new Error('the test DNS server has no UDP port');
  return {
    address: `127.0.0.1:${port}`,
    zone: entries,
    queries: (name) => (name === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(name) ?? 0)),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await server.close();
    },
  };
}

/** `127.0.0.1:<port>` where nothing listens (a port bound, then released): queries there are refused (ICMP). */
export async function closedUdpAddress(): Promise<string> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return `127.0.0.1:${port}`;
}
