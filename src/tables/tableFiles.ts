/** File names of the built tables inside a tables folder (NETLOOKUP_TABLES, default data/tables). */
export const TABLE_FILES = { ip4: 'ip4.nlt', ip6: 'ip6.nlt', mac: 'mac.nlt' } as const;
export type TableFileKind = keyof typeof TABLE_FILES;
export const MANIFEST_FILE = 'manifest.json';
