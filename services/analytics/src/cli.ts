import { writeFileSync } from 'node:fs';
import { Kysely, sql } from 'kysely';
import { analyticsEnv, AnalyticsConfig, loadConfigOrExit } from '@shop/config';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { rebuildAgainstLive } from '@shop/projections';
import { analyticsProjections } from './analytics-projections';
import { readAnalyticsReport } from './report/analytics-report';
import { renderHtmlReport } from './report/html-report';
import { renderTextReport } from './report/text-report';
import { AnalyticsDatabase } from './schema/analytics-database';
import { analyticsMigrations } from './schema/analytics-migrations';

const usage = `usage: npm run analytics -- <command>

  report [--html <file>] [--json]   print the funnel, revenue, deposits, top products and
                                    sessions tables; --html also writes a page with SVG charts
                                    of the funnel and daily revenue; --json prints JSON instead
  rebuild                           rebuild ANALYTICS_SCHEMA from the stream beside the live
                                    one, compare, swap it in and drop the old one
  help                              this text`;

class UsageError extends Error {}

async function report(config: AnalyticsConfig, args: string[]): Promise<number> {
  const htmlAt = args.indexOf('--html');
  const htmlFile = htmlAt >= 0 ? args[htmlAt + 1] : undefined;
  if (htmlAt >= 0 && !htmlFile) throw new UsageError('--html needs a file name');
  const unknown = args.filter((a, i) => a !== '--json' && a !== '--html' && i !== htmlAt + 1);
  if (unknown.length > 0) throw new UsageError(`unknown argument: ${unknown[0]}`);
  const database = createDatabase(config.DATABASE_URL, { max: 6, applicationName: 'analytics-cli' });
  try {
    const db = database.db.withSchema(config.ANALYTICS_SCHEMA) as unknown as Kysely<AnalyticsDatabase>;
    const result = await readAnalyticsReport(db);
    process.stdout.write(
      args.includes('--json') ? `${JSON.stringify(result, null, 2)}\n` : renderTextReport(result),
    );
    if (htmlFile) {
      writeFileSync(htmlFile, renderHtmlReport(result));
      process.stderr.write(`wrote ${htmlFile}\n`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

async function rebuild(config: AnalyticsConfig): Promise<number> {
  const nc = await connectNats(config, 'analytics-rebuild');
  const database = createDatabase(config.DATABASE_URL, { max: 6, applicationName: 'analytics-rebuild' });
  try {
    const store = await EventStore.create(nc, {
      stream: config.EVENT_STREAM,
      subjectPrefix: config.EVENT_SUBJECT_PREFIX,
      catalogue: eventCatalogue,
      owner: 'analytics',
    });
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', 't').slice(0, 15);
    const scratch = `${config.ANALYTICS_SCHEMA}_rebuild_${stamp}`;
    const aside = `${config.ANALYTICS_SCHEMA}_old_${stamp}`;
    const result = await rebuildAgainstLive({
      store,
      db: database.db,
      liveSchema: config.ANALYTICS_SCHEMA,
      scratchSchema: scratch,
      projections: analyticsProjections,
      migrations: analyticsMigrations,
      swap: { wholeSchema: true, asideSchema: aside },
    });
    for (const table of result.tables) {
      process.stdout.write(`${table.equal ? 'equal  ' : 'DIFFERS'} ${JSON.stringify(table)}\n`);
    }
    if (!result.swapped) {
      process.stdout.write(`Tables differ: nothing swapped; the rebuild is kept in ${scratch}.\n`);
      return 1;
    }
    await sql`DROP SCHEMA ${sql.id(aside)} CASCADE`.execute(database.db);
    process.stdout.write(
      `Rebuilt ${result.events} events and swapped them in as ${config.ANALYTICS_SCHEMA}.\n`,
    );
    return 0;
  } finally {
    await database.close();
    await nc.drain();
  }
}

async function main([command, ...args]: string[]): Promise<number> {
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${usage}\n`);
    return command ? 0 : 64;
  }
  if (command !== 'report' && command !== 'rebuild') throw new UsageError(`unknown command: ${command}`);
  const config = loadConfigOrExit(analyticsEnv, 'analytics');
  return command === 'report' ? report(config, args) : rebuild(config);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`analytics: ${error.message}\n\n${usage}\n`);
      process.exitCode = 64;
      return;
    }
    process.stderr.write(`analytics failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 70;
  },
);
