/**
 * The common bulk-report CSV layout: a header row `IP,Categories,ReportDate,Comment` (names
 * matched case-insensitively, Comment optional), Categories as comma-separated category numbers
 * in one quoted field, ReportDate in ISO 8601. Read as a stream by csv-parse, one record at a time.
 */
import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import type { ReportFields } from './reportDraft.js';

export interface CsvRow {
  /** 1-based line of the record in the file */
  line: number;
  fields: ReportFields;
}

class CsvLayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CsvLayoutError';
  }
}

export async function* readBulkCsv(input: Readable, source: string): AsyncGenerator<CsvRow> {
  const parser = input.pipe(
    parse({
      columns: (header: string[]) => {
        const names = header.map((h) => h.trim().toLowerCase());
        for (const required of ['ip', 'categories', 'reportdate']) {
          if (!names.includes(required))
            throw new CsvLayoutError(`the CSV header needs IP, Categories and ReportDate columns (found ${header.join(', ')})`);
        }
        return names;
      },
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      bom: true,
      info: true,
    }),
  );
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    yield {
      line: info.lines,
      fields: { ip: record.ip, categories: record.categories, timestamp: record.reportdate, comment: record.comment, source },
    };
  }
}
