/**
 * The compact sets' files and their manifest.json (FORMAT.md): what the builder writes and what
 * the browser build and the demo read, so it lives with the formats rather than the builder.
 */
import type { TableMeta } from './tableMeta.js';

export const COMPACT_FILES = { ip4c: 'ip4c.nlt', ip6c: 'ip6c.nlt', macc: 'macc.nlt' } as const;
export type CompactKind = keyof typeof COMPACT_FILES;
/** The two sets the compact manifest sizes: what a MAC-only or an IP-only host loads. */
export const COMPACT_SETS = { mac: ['macc'], ip: ['ip4c', 'ip6c'] } as const satisfies Record<string, readonly CompactKind[]>;

export interface CompactTable {
  file: string;
  bytes: number;
  gzip_file: string;
  gzip_bytes: number;
  sha256: string;
  counts: Record<string, number>;
}

export interface CompactManifest {
  built_at: string;
  /** the manifest.json of the full tables these were derived from */
  derived_from: { built_at: string; tables: Record<string, { file: string; sha256: string }> };
  sources: TableMeta['sources'];
  tables: Record<CompactKind, CompactTable>;
  sets: Record<keyof typeof COMPACT_SETS, { tables: CompactKind[]; bytes: number; gzip_bytes: number }>;
}
