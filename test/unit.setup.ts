/** The unit project reads no built tables (test/builtTablesGuard.ts). */
import { guardBuiltTables } from './builtTablesGuard.js';

guardBuiltTables();
