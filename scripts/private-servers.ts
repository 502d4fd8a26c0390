import { addressOf, type Dependency, type StartedServer } from './preflight';

const loopback = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface PrivateServers {
  /** Stops them, last started first. */
  stop(): Promise<void>;
}

/**
 * Starts a private server for each backing service that did not answer, on the port its URL
 * names and with its data under `dataDir`. Nothing is started unless every one can be: a
 * service on another host, or whose server is not installed, is reported (with the Debian
 * package that installs it) and the returned value is null.
 */
export async function startPrivateServers(
  missing: Dependency[],
  dataDir: string,
  say: (line: string) => void,
): Promise<PrivateServers | null> {
  const problems = missing.flatMap((dependency) => {
    const { host } = addressOf(dependency);
    if (!loopback.has(host))
      return [`${dependency.name} is not reachable at ${dependency.url}, on another host: start it there.`];
    if (!dependency.installed())
      return [
        `${dependency.name} is not reachable at ${dependency.url}, and ${dependency.server} is not installed: apt-get install ${dependency.debianPackage}`,
      ];
    return [];
  });
  if (problems.length > 0) {
    for (const problem of problems) say(problem);
    return null;
  }
  const started: { name: string; server: StartedServer }[] = [];
  const stop = async () => {
    for (const { name, server } of started.reverse()) {
      await server.stop().catch(() => undefined);
      say(`stopped the private ${name}`);
    }
  };
  try {
    for (const dependency of missing) {
      const { port } = addressOf(dependency);
      started.push({ name: dependency.name, server: await dependency.startPrivate(port, dataDir) });
      say(`started a private ${dependency.name} on port ${port} (data under ${dataDir})`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}
