import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './private-process';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries on the machine (PG_BIN_DIR overrides). */
export function postgresBinDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return join(root, versions[0]!, 'bin');
}

export type PostgresStopMode = 'smart' | 'fast' | 'immediate';

/**
 * A PostgreSQL cluster of one test's own: a temporary data directory, a loopback port, trust
 * auth and a socket directory in /tmp (never the machine's shared server); or `npm start`'s own
 * when none answers, kept under a folder. Postgres refuses to run as root, so as root it runs as
 * the `postgres` OS user (runuser).
 */
export interface PrivatePostgres {
  readonly port: number;
  /** Superuser `postgres` on database `postgres`. */
  readonly url: string;
  readonly dataDir: string;
  readonly running: boolean;
  start(): Promise<void>;
  /** `fast` is a clean shutdown that disconnects clients; `immediate` is a crash (recovery on start). */
  stop(mode?: PostgresStopMode): Promise<void>;
  log(): string;
  /** Stops it (immediately) and deletes the cluster. */
  close(): Promise<void>;
}

interface OsUser {
  uid: number;
  gid: number;
}

function postgresUser(): OsUser | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

const live = new Set<() => void>();
let exitHookInstalled = false;

export interface PrivatePostgresOptions {
  port?: number;
  /**
   * A cluster kept across runs under this folder (created on the first start), synced to disk
   * as usual; a temporary one without fsync, deleted on `close`, when unset.
   */
  baseDir?: string;
  /**
   * A login role besides `postgres`, as a DATABASE_URL naming another user expects: created (able
   * to create its database) on start when missing, and given this password.
   */
  role?: { name: string; password?: string };
}

const sqlIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
const sqlLiteral = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** The statements that make `role` exist with its password, whether or not it did before. */
export function roleStatements(role: { name: string; password?: string }): string[] {
  const name = sqlIdentifier(role.name);
  return [
    `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${sqlLiteral(role.name)}) THEN CREATE ROLE ${name} LOGIN CREATEDB; END IF; END $$`,
    `ALTER ROLE ${name} LOGIN CREATEDB PASSWORD ${role.password === undefined ? 'NULL' : sqlLiteral(role.password)}`,
  ];
}

export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const user = postgresUser();
  const port = options.port ?? (await freePort());
  const kept = options.baseDir !== undefined;
  const base = options.baseDir ?? mkdtempSync('/tmp/pg-private-');
  mkdirSync(base, { recursive: true });
  const dataDir = join(base, 'data');
  const logFile = join(base, 'server.log');
  if (user) chownSync(base, user.uid, user.gid);

  const asPostgres = (binary: string, args: string[]) =>
    user
      ? run('runuser', ['-u', 'postgres', '--', join(bin, binary), ...args], { cwd: base })
      : run(join(bin, binary), args, { cwd: base });

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await asPostgres('initdb', [
      '-D',
      dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  }
  let running = false;
  const serverOptions = [
    `-p ${port}`,
    `-k ${base}`,
    '-c listen_addresses=127.0.0.1',
    ...(kept ? [] : ['-c fsync=off', '-c full_page_writes=off']),
    '-c max_connections=200',
  ].join(' ');

  const pgCtl = (args: string[]) => asPostgres('pg_ctl', ['-D', dataDir, ...args]);
  const stopNow = () => {
    try {
      const args = ['-D', dataDir, '-m', 'immediate', '-w', 'stop'];
      if (user) execFileSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args]);
      else execFileSync(join(bin, 'pg_ctl'), args);
    } catch {
      // not running
    }
  };
  live.add(stopNow);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const stop of live) stop();
    });
  }

  const handle: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    get running() {
      return running;
    },
    async start() {
      if (running) return;
      await pgCtl(['-l', logFile, '-o', serverOptions, '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      if (!running) return;
      await pgCtl(['-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async close() {
      stopNow();
      running = false;
      live.delete(stopNow);
      if (!kept) rmSync(base, { recursive: true, force: true });
    },
  };
  await handle.start();
  if (options.role && options.role.name !== 'postgres') {
    const statements = roleStatements(options.role).flatMap((statement) => ['-c', statement]);
    await asPostgres('psql', [
      '-h',
      base,
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-v',
      'ON_ERROR_STOP=1',
      '-q',
      ...statements,
    ]);
  }
  return handle;
}
