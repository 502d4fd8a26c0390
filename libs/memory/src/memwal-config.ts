import type { MemwalMemoryStoreOptions } from './memwal-memory-store';

/** The MemWal variables as @shop/config parses them (MEMWAL_URL, key and account set together or not at all). */
export interface MemwalSettings {
  MEMWAL_URL?: string;
  MEMWAL_DELEGATE_KEY?: string;
  MEMWAL_ACCOUNT_ID?: string;
  MEMWAL_NAMESPACE_PREFIX: string;
  MEMWAL_TIMEOUT_MS: number;
}

/** The client's options for the configuration, or undefined when MemWal is not configured. */
export function memwalOptionsOf(config: MemwalSettings): MemwalMemoryStoreOptions | undefined {
  const { MEMWAL_URL: url, MEMWAL_DELEGATE_KEY: delegateKey, MEMWAL_ACCOUNT_ID: accountId } = config;
  if (!url || !delegateKey || !accountId) return undefined;
  return {
    url,
    delegateKey,
    accountId,
    namespacePrefix: config.MEMWAL_NAMESPACE_PREFIX,
    timeoutMs: config.MEMWAL_TIMEOUT_MS,
  };
}
