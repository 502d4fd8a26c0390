import pg from 'pg';
import { ServerConnections } from './connection-budget';

/** How many connections the Postgres at `url` takes, keeps reserved, and has open now (this one aside). */
export async function readServerConnections(url: string): Promise<ServerConnections> {
  const client = new pg.Client({ connectionString: url, application_name: 'bench-budget' });
  await client.connect();
  try {
    const { rows } = await client.query<{
      max: string;
      superuser: string;
      reserved: string | null;
      open: string;
    }>(
      `SELECT current_setting('max_connections') AS max,
              current_setting('superuser_reserved_connections') AS superuser,
              current_setting('reserved_connections', true) AS reserved,
              (SELECT count(*) FROM pg_stat_activity
                WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()) AS open`,
    );
    const row = rows[0]!;
    return {
      maxConnections: Number(row.max),
      reserved: Number(row.superuser) + Number(row.reserved ?? 0),
      inUse: Number(row.open),
    };
  } finally {
    await client.end();
  }
}
