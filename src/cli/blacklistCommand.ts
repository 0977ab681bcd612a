/**
 * `netlookup blacklist import <file…>`: bulk intake into the server's store (NETLOOKUP_DATA_DIR)
 * of fail2ban logs (ban events; restored bans are left out) and of bulk-report CSV files
 * (`IP,Categories,ReportDate,Comment`). Every row goes through the HTTP intake's checks
 * (src/blacklist/reportDraft.ts); saved rows are written in batched transactions, each refused
 * row is listed with its line and reason. A running server sees the import within a second.
 *
 * Exit codes: 0 every row saved; 1 some rows refused (the others are saved), a file missing or
 * the store failed; 2 bad usage.
 */
import { Option, type Command } from 'commander';
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { readBulkCsv } from '../blacklist/bulkCsv.js';
import { parseFail2banLine, threatTypeOfJail } from '../blacklist/fail2banLog.js';
import { draftReport, reportInputOf, type ReportFields } from '../blacklist/reportDraft.js';
import { loadEngine } from '../engine/node.js';
import type { LookupEngine } from '../engine/lookupEngine.js';
import { ApiError } from '../errors.js';
import type { ReportInput } from '../blacklist/listing.js';
import { ProgressDisplay } from './progressDisplay.js';
import { utcOffsetMinutes } from './optionValues.js';
import { CliError, runAdmin, withAdminOptions, type AdminFlags } from './storeAccess.js';

interface ImportFlags extends AdminFlags {
  format: 'auto' | 'fail2ban' | 'csv';
  reporter?: string;
  source?: string;
  /** minutes east of UTC */
  utcOffset: number;
  tables?: string;
}

interface Refusal {
  file: string;
  line: number;
  code: string;
  reason: string;
}

interface ImportSummary {
  saved: number;
  merged: number;
  refused: Refusal[];
  /** restored bans of fail2ban logs, left out (reported when first banned) */
  restored: number;
  /** lines that are no ban event */
  ignored: number;
}

const BATCH = 500;

/** One candidate row of an import: the report's fields, or a refusal found while reading. */
type Row =
  | { line: number; fields: ReportFields }
  | { line: number; refusal: { code: string; reason: string } }
  | { line: number; skip: 'restored' | 'ignored' };

async function* fail2banRows(input: Readable, offset: number, now: Date, source: string): AsyncGenerator<Row> {
  let line = 0;
  for await (const text of readline.createInterface({ input, crlfDelay: Infinity })) {
    line++;
    if (text.trim().length === 0) continue;
    const ban = parseFail2banLine(text, offset, now);
    if (ban === null) yield { line, skip: 'ignored' };
    else if (ban.restored) yield { line, skip: 'restored' };
    else if (ban.at === null) yield { line, refusal: { code: 'invalid_report', reason: 'the line has no readable time' } };
    else
      yield {
        line,
        fields: {
          ip: ban.ip,
          threat_type: threatTypeOfJail(ban.jail),
          comment: `fail2ban jail ${ban.jail}`,
          source,
          timestamp: ban.at.toISOString(),
        },
      };
  }
}

function formatOf(file: string, flag: ImportFlags['format']): 'fail2ban' | 'csv' {
  if (flag !== 'auto') return flag;
  return /\.csv$/i.test(file) ? 'csv' : 'fail2ban';
}

/** Imports the files into the store; the progress display counts bytes read. */
async function importFiles(
  files: string[],
  flags: ImportFlags,
  save: (inputs: ReportInput[]) => Promise<{ merged: boolean }[]>,
  engine: LookupEngine | null,
  retentionMs: number,
): Promise<ImportSummary> {
  const offset = flags.utcOffset;
  const reporter = flags.reporter ?? `import:${os.hostname()}`;
  const summary: ImportSummary = { saved: 0, merged: 0, refused: [], restored: 0, ignored: 0 };
  const progress = new ProgressDisplay();
  for (const file of files) {
    const now = new Date();
    const format = formatOf(file, flags.format);
    const source = flags.source ?? (format === 'csv' ? 'csv-import' : 'fail2ban');
    const total = file === '-' ? 0 : fs.statSync(file).size;
    const input = file === '-' ? process.stdin : fs.createReadStream(file);
    let read = 0;
    input.on('data', (chunk: string | Buffer) => {
      read += chunk.length;
      if (total > 0) progress.update(`import ${file}`, Math.min(read, total - 1), total);
    });
    const rows: AsyncIterable<Row> = format === 'csv' ? readBulkCsv(input, source) : fail2banRows(input, offset, now, source);
    let batch: ReportInput[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      for (const outcome of await save(batch)) {
        summary.saved++;
        if (outcome.merged) summary.merged++;
      }
      batch = [];
    };
    try {
      for await (const row of rows) {
        if ('skip' in row) summary[row.skip]++;
        else if ('refusal' in row) summary.refused.push({ file, line: row.line, ...row.refusal });
        else {
          try {
            const draft = draftReport(row.fields, now, retentionMs, source, 'claimed');
            batch.push(reportInputOf(draft, reporter, engine));
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            summary.refused.push({ file, line: row.line, code: error.code, reason: error.message });
          }
          if (batch.length >= BATCH) await flush();
        }
      }
      await flush();
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError('invalid_input', `${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (total > 0) progress.update(`import ${file}`, total, total);
  }
  return summary;
}

function summaryText(summary: ImportSummary): string {
  const lines = [
    `saved ${summary.saved} report${summary.saved === 1 ? '' : 's'} (${summary.merged} merged into a report of the same reporter within 15 minutes)`,
    `refused ${summary.refused.length}`,
    ...summary.refused.map((r) => `  ${r.file}:${r.line}: ${r.code}: ${r.reason}`),
  ];
  if (summary.restored > 0)
    lines.push(`left out ${summary.restored} restored ban${summary.restored === 1 ? '' : 's'} (reported when first banned)`);
  if (summary.ignored > 0)
    lines.push(
      summary.ignored === 1 ? 'ignored 1 line that is not a ban event' : `ignored ${summary.ignored} lines that are not ban events`,
    );
  return lines.join('\n');
}

/** Files that cannot be read are refused before any row is read: nothing is half imported. */
function checkReadable(files: string[]): void {
  for (const file of files) {
    if (file === '-') continue;
    try {
      fs.accessSync(file, fs.constants.R_OK);
      if (!fs.statSync(file).isFile()) throw new Error('not a file');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
      throw new CliError('invalid_input', `${file}: ${reason}`);
    }
  }
}

export function registerBlacklistCommand(program: Command): Command {
  const blacklist = program.command('blacklist').description("the service's own blacklist in the store (NETLOOKUP_DATA_DIR)");
  withAdminOptions(
    blacklist
      .command('import')
      .description('import fail2ban logs (ban events) or bulk-report CSV (IP,Categories,ReportDate,Comment); "-" reads stdin')
      .argument('<files...>', 'log or CSV files, or "-" for stdin')
      .addOption(
        new Option('--format <format>', 'how to read the files: auto (by extension: .csv is CSV, else fail2ban)')
          .choices(['auto', 'fail2ban', 'csv'])
          .default('auto'),
      )
      .option('--reporter <id>', 'who reports (an account id; default import:<hostname>)')
      .option('--source <name>', "the reports' source (default fail2ban or csv-import)")
      .addOption(
        new Option('--utc-offset <offset>', 'UTC offset of the times in fail2ban logs, which carry no zone (+01:00, -0500)')
          .argParser(utcOffsetMinutes)
          .default(0, '+00:00'),
      )
      .option('--tables <dir>', 'folder of the tables, for country and provider (default: $NETLOOKUP_TABLES or data/tables)'),
  ).action(async (files: string[], flags: ImportFlags) => {
    let refused = 0;
    await runAdmin(flags, { createIfMissing: true }, async ({ blacklist }) => {
      checkReadable(files);
      let engine: LookupEngine | null = null;
      try {
        engine = await loadEngine({ tablesDir: flags.tables });
      } catch (error) {
        process.stderr.write(
          `netlookup: no tables (${error instanceof Error ? error.message : String(error)}): country and provider stay unknown\n`,
        );
      }
      const summary = await importFiles(
        files,
        flags,
        (inputs) => blacklist.reportMany(inputs, new Date()),
        engine,
        blacklist.policy.retentionMs,
      );
      refused = summary.refused.length;
      return { json: { success: true, ...summary }, text: summaryText(summary) };
    });
    if (refused > 0 && !process.exitCode) process.exitCode = 1;
  });
  return blacklist;
}
