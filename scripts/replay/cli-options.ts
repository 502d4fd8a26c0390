import { parseArgs } from 'node:util';

export const usage = `Usage: npm run replay -- <command> [options]

Rebuilds read-model projections from the event stream (sequence 1 onwards) beside the live
read model, which keeps serving.

Commands:
  rebuild   rebuild into <schema>_rebuild_<time>, follow the live read model until both are
            at the same stream position, compare every table, and swap the rebuild in
  verify    the same rebuild and comparison into a scratch schema that is then dropped;
            exits 1 when a table differs
  at        rebuild the read model as it was at --until into <schema>_at_<sequence>, for
            inspection only (never swapped)

Options:
  --projection <name>   only this projection (repeatable); default: all of them
  --batch-size <n>      stream messages per write batch (default 5000)
  --until <seq|time>    at: the last stream sequence, or an ISO-8601 time (the last
                        sequence whose events occurred at or before it)
  --drop-old            rebuild: drop the replaced schema or tables after the swap
                        (default: keep them in <schema>_old_<time> and print how to drop them)
  --force               rebuild: swap even when tables differ (to replace a live read model
                        known to be wrong); the differences are printed
  -h, --help            this text

Environment: NATS_URL, DATABASE_URL, EVENT_STREAM, EVENT_SUBJECT_PREFIX, READ_MODEL_SCHEMA.
Exit codes: 0 done, 1 tables differ (nothing swapped), 64 usage, 70 failure, 78 configuration.`;

export type Until = { sequence: number } | { time: Date };

interface Common {
  /** Empty: every projection. */
  projections: string[];
  batchSize: number;
}

export type ReplayCommand =
  | { name: 'help' }
  | ({ name: 'rebuild'; dropOld: boolean; force: boolean } & Common)
  | ({ name: 'verify' } & Common)
  | ({ name: 'at'; until: Until } & Common);

export class UsageError extends Error {
  override name = 'UsageError';
}

const commands = ['rebuild', 'verify', 'at'] as const;
const onlyFor: Record<string, (typeof commands)[number]> = {
  until: 'at',
  'drop-old': 'rebuild',
  force: 'rebuild',
};

export function parseReplayArgs(argv: readonly string[], knownProjections: readonly string[]): ReplayCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        projection: { type: 'string', multiple: true },
        'batch-size': { type: 'string' },
        until: { type: 'string' },
        'drop-old': { type: 'boolean' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { name: 'help' };
  const [name, ...extra] = positionals;
  if (!name) throw new UsageError('no command given');
  if (!commands.includes(name as (typeof commands)[number])) throw new UsageError(`unknown command ${name}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  for (const [option, command] of Object.entries(onlyFor)) {
    if (values[option as keyof typeof values] !== undefined && command !== name)
      throw new UsageError(`--${option} applies to ${command} only`);
  }

  const projections = [...new Set(values.projection ?? [])];
  const unknown = projections.filter((p) => !knownProjections.includes(p));
  if (unknown.length > 0)
    throw new UsageError(`unknown projection ${unknown.join(', ')} (known: ${knownProjections.join(', ')})`);
  const common: Common = { projections, batchSize: batchSize(values['batch-size']) };

  if (name === 'rebuild') return { name, ...common, dropOld: !!values['drop-old'], force: !!values.force };
  if (name === 'verify') return { name, ...common };
  if (values.until === undefined) throw new UsageError('at needs --until <sequence|time>');
  return { name: 'at', ...common, until: until(values.until) };
}

function batchSize(value: string | undefined): number {
  if (value === undefined) return 5000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 50_000)
    throw new UsageError(`--batch-size must be an integer from 1 to 50000, not ${value}`);
  return n;
}

function until(value: string): Until {
  if (/^\d+$/.test(value)) return { sequence: Number(value) };
  // Only full ISO-8601 times: Date.parse would take "5" or "May" and guess.
  const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
    ? new Date(value)
    : null;
  if (!time || Number.isNaN(time.getTime()))
    throw new UsageError(`--until must be a stream sequence or an ISO-8601 time with a zone, not ${value}`);
  return { time };
}
