import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CartContractClient, createSuiClient } from '@shop/chain';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { ChainIndexer } from '../src/chain-indexer';
import { startChainIndexer } from '../src/start-chain-indexer';

const env = testEnvironment('indexer');
let sui: SuiSandbox;
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 4 });
});
afterAll(async () => {
  await database.close();
  await t.close();
  await sui.close();
  const pg = createDatabase(env.databaseUrl, { max: 1 });
  await pg.pool.query(`DROP SCHEMA IF EXISTS ${env.schema}_indexer CASCADE`);
  await pg.close();
});

describe('ChainIndexer', () => {
  it('records every contract event once, with exactly one of two indexers active', async () => {
    const messages: string[] = [];
    const logger = { info: (_: object, msg: string) => messages.push(msg), warn() {}, error() {} };
    const settings = {
      CHAIN_RPC_URL: sui.url,
      CHAIN_CONTRACT_ADDRESS: sui.packageId,
      DATABASE_URL: env.databaseUrl,
      INDEXER_SCHEMA: `${env.schema}_indexer`,
      INDEXER_POLL_INTERVAL_MS: 50,
    };
    const indexers: ChainIndexer[] = await Promise.all([
      startChainIndexer(settings, t.store, database, logger),
      startChainIndexer(settings, t.store, database, logger),
    ]);

    const contract = new CartContractClient({
      client: createSuiClient({ url: sui.url }),
      packageId: sui.packageId,
      registryId: sui.registryId,
      relayer: sui.relayer.secretKey!,
    });
    const user = Ed25519Keypair.generate().toSuiAddress();
    await contract.initCart(user);
    const product = {
      productName: 'Tee',
      priceCents: 1500,
      imageUrl: 'https://i.example.com/t.jpg',
      productUrl: 'https://s.example.com/t',
      size: 'M',
      color: 'Blue',
      retailer: 'Example',
    };
    const added = await contract.addItem(user, { ...product, productId: 'P1' });
    await contract.addItem(user, { ...product, productId: 'P2' });
    await contract.removeItem(user, added.itemId);

    const recorded = async () => {
      const types: string[] = [];
      for await (const commit of t.store.read(1)) for (const e of commit) types.push(e.subject);
      return types;
    };
    const deadline = Date.now() + 10_000;
    let subjects = await recorded();
    while (subjects.length < 4 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      subjects = await recorded();
    }
    await Promise.all(indexers.map((i) => i.stop()));

    expect(subjects).toHaveLength(4);
    expect(new Set(subjects).size).toBe(4);
    expect(subjects.every((s) => s.startsWith(`${env.subjectPrefix}.chain.`))).toBe(true);
    expect(messages.filter((m) => m === 'chain indexer is the active one')).toHaveLength(1);
  });
});
