import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const post = <T = unknown>(session: Session, method: string, params?: object) =>
  new Promise<T>((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
  );

/**
 * Runs `work` under a V8 CPU profile of this process and writes it as
 * `<dir>/bench-<label>.cpuprofile`: the phases that run inside the bench (rebuilds, the
 * encryption cost) have their work here, not in a service the preloaded profiler samples.
 */
export async function profileThisProcess<T>(
  dir: string | null,
  label: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop');
    session.disconnect();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `bench-${label}.cpuprofile`), JSON.stringify(profile));
  }
}
