import { loadConfigOrExit, productionRules, sharedEnv } from '@shop/config';
import { readModelProjections } from '@shop/read-models';
import { atCommand } from './replay/at-command';
import { parseReplayArgs, ReplayCommand, usage, UsageError } from './replay/cli-options';
import { rebuildCommand, verifyCommand } from './replay/live-commands';
import { openReplayContext, ReplayContext } from './replay/replay-context';

/** `npm run replay -- <rebuild|verify|at> ...`: see the usage text in replay/cli-options.ts. */
async function main(argv: readonly string[]): Promise<number> {
  const projections = readModelProjections();
  const command = parseReplayArgs(
    argv,
    projections.map((p) => p.name),
  );
  if (command.name === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const config = loadConfigOrExit(sharedEnv.check(productionRules()), 'replay');
  const ctx = await openReplayContext(config, projections);
  try {
    return await run(ctx, command);
  } finally {
    // Clears a half-drawn progress line, so an error message starts on a line of its own.
    ctx.progress.finish();
    await ctx.close();
  }
}

function run(ctx: ReplayContext, command: Exclude<ReplayCommand, { name: 'help' }>): Promise<number> {
  switch (command.name) {
    case 'rebuild':
      return rebuildCommand(ctx, command);
    case 'verify':
      return verifyCommand(ctx, command);
    case 'at':
      return atCommand(ctx, command);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`replay: ${error.message}\n\n${usage}\n`);
      process.exitCode = 64;
      return;
    }
    process.stderr.write(`replay failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 70;
  },
);
