import { randomUUID } from 'node:crypto';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretsDatabase } from '@shop/db';
import { createRedis, redisReady } from '@shop/redis';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { ServiceProcess } from '@shop/testing';
import { encryptionKeyFromHex, WalletKeyVault } from '@shop/wallets';
import {
  Client,
  depositSecret,
  devJwtSecret,
  eventually,
  figures,
  product,
  providerApiKey,
  readModelTables,
  Stack,
  walletEncryptionKey,
  dataEncryptionKeyHex,
  webhookSecret,
  writeFigures,
} from './harness';

/**
 * A full run (provider sign-in with refresh, onboarding and wallets, on-chain cart, checkout,
 * signed webhooks, the relayer's contract calls, deposits, dev login, chat, logout) against a
 * gateway and a projector running as processes with LOG_LEVEL=trace. Their whole output, every
 * message of the stream, the read model and the Redis keys are then searched for every secret
 * of the deployment and every token the run handled: none may appear anywhere.
 */
let sui: SuiSandbox;
let stack: Stack;
let gateway: { url: string; process: ServiceProcess };
let projector: ServiceProcess;
let USDC: string;
const seen = new Map<string, string>(); // secret value -> what it is

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  USDC = `${sui.paymentPackageId}::usdc::USDC`;
  stack = await Stack.start('secrets', {
    gateway: false,
    projector: false,
    vars: {
      LOG_LEVEL: 'trace',
      CART_SERVICE: 'onchain',
      CHAIN_RPC_URL: sui.url,
      CHAIN_CONTRACT_ADDRESS: sui.packageId,
      CHAIN_CART_REGISTRY_ID: sui.registryId,
      CHAIN_RELAYER_PRIVATE_KEY: sui.relayer.secretKey!,
      CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
      CHAIN_COIN_TYPE: USDC,
      INDEXER_POLL_INTERVAL_MS: '100',
    },
  });
  projector = stack.spawnProjector();
  gateway = await stack.spawnGateway();
  stack.provider.setWebhookTarget(`${gateway.url}/api/webhooks/provider`, webhookSecret);
}, 120_000);
afterAll(async () => {
  writeFigures('secrets');
  await stack?.stop();
  await sui?.close();
});

function remember(what: string, value: string | undefined | null): void {
  if (value && value.length >= 8) seen.set(value, what);
}

describe('secrets never reach logs or events', () => {
  it('runs the whole product at LOG_LEVEL=trace and finds no secret in any output, event, row or key', async () => {
    // Sign in through the provider, with a refresh token (rotated on exchange).
    const email = `secret-${randomUUID().slice(0, 8)}@example.com`;
    const issued = await stack.provider.issueToken(email);
    remember('provider JWT', issued.jwt);
    remember('provider refresh token', issued.refresh.secret);
    const client = new Client(gateway.url);
    // Failures are logged with their errors: make the provider and the chain fail once each.
    stack.provider.failNext('wallets.create', { times: 1, status: 500 });
    const signIn = await client.request('POST', '/api/auth/session', {
      jwt: issued.jwt,
      refreshToken: issued.refresh.secret,
      email,
    });
    expect(signIn.status).toBe(200);
    remember('session cookie JWT', client.cookie('provider-jwt'));
    remember('rotated refresh token', client.cookie('provider-refresh-token'));
    await client.request('POST', '/api/onboarding/step-1', { displayName: 'Secretive' });
    await client.request('POST', '/api/onboarding/step-2', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      street: '1 Main Street',
      country: 'US',
      city: 'Austin',
      state: 'TX',
      zip: '78701',
    });
    expect(
      (
        await client.request('POST', '/api/onboarding/step-3', {
          topsSize: 'M',
          bottomsSize: '32',
          footwearSize: '42',
        })
      ).status,
    ).toBe(200);
    const profile = await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'active',
      20_000,
    );
    const userId = profile.json.userId as string;
    const suiAddress = profile.json.walletAddress as string;
    stack.provider.fund(profile.json.evmAddress as string, '200');

    // The on-chain cart: the relayer signs every contract call.
    expect((await client.request('POST', '/api/cart/init')).status).toBe(200);
    const added = await client.request('POST', '/api/cart', product('secret-1'));
    expect(added.status).toBe(201);
    await eventually(
      async () =>
        (
          await sql<{ id: string | null }>`SELECT on_chain_object_id AS id FROM ${sql.table(
            `${stack.env.schema}.cart_items`,
          )} WHERE item_id = ${added.json.id as string}`.execute(stack.database.db)
        ).rows[0]?.id ?? null,
      (id) => id !== null,
      20_000,
    );
    // Checkout, approval, signed webhooks, the contract's checkout call.
    const order = await client.request('POST', '/api/checkout', { cartItemId: added.json.id });
    expect(order.status).toBe(201);
    sui.failNext(3, { method: 'sui_executeTransactionBlock', mode: 'unavailable' });
    stack.provider.approve(order.json.providerOrderId as string);
    await eventually(
      () => client.request('GET', `/api/orders/${order.json.orderId}`),
      (r) => r.json.status === 'delivered',
      20_000,
    );
    // Deposits: the search service's confirmation (shared secret) and a verified receipt.
    const confirm = await new Client(gateway.url).request(
      'POST',
      `/api/deposit/${userId}/${suiAddress}/confirm`,
      {
        amount: '1000000',
        transactionHash: `Sec${randomUUID().replace(/-/g, '')}`,
        network: 'testnet',
        currency: USDC,
      },
      { 'x-webhook-secret': depositSecret },
    );
    expect(confirm.status).toBe(200);
    const nonce = randomUUID();
    const digest = sui.createPayment({
      payer: Ed25519Keypair.generate().toSuiAddress(),
      receiver: suiAddress,
      amountMist: 2_000_000n,
      coinType: USDC,
      nonce,
    });
    expect(
      (
        await client.request('POST', '/api/deposit/verify', {
          txDigest: digest,
          nonce,
          amount: '2000000',
          coinType: USDC,
        })
      ).status,
    ).toBe(200);
    // A refused secret and a refused token must not be logged either.
    await new Client(gateway.url).request(
      'POST',
      `/api/deposit/${userId}/${suiAddress}/confirm`,
      { amount: '1', transactionHash: 'abc', network: 'testnet', currency: USDC },
      { 'x-webhook-secret': `${depositSecret}-wrong` },
    );
    remember('a wrong deposit secret', `${depositSecret}-wrong`);
    // Chat, dev login, logout.
    const chat = await client.request('POST', '/api/chat', {
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'show me socks' }] }],
    });
    expect(chat.status).toBe(200);
    const dev = new Client(gateway.url);
    expect(
      (await dev.request('POST', '/api/dev/login', { email: `dev-${randomUUID().slice(0, 8)}@example.com` }))
        .status,
    ).toBe(200);
    remember('dev JWT', dev.cookie('provider-jwt'));
    expect((await dev.request('GET', '/api/auth/profile')).status).toBe(200);
    expect((await client.request('POST', '/api/auth/logout')).status).toBe(200);
    await stack.provider.waitForDeliveries();
    await stack.quietSequence(500);

    // Every secret of the deployment, in the forms it could leak in.
    remember('WALLET_ENCRYPTION_KEY', walletEncryptionKey);
    remember('WALLET_ENCRYPTION_KEY (upper case)', walletEncryptionKey.toUpperCase());
    remember('WALLET_ENCRYPTION_KEY (base64)', Buffer.from(walletEncryptionKey, 'hex').toString('base64'));
    remember('DATA_ENCRYPTION_KEY', dataEncryptionKeyHex);
    remember('DATA_ENCRYPTION_KEY (upper case)', dataEncryptionKeyHex.toUpperCase());
    remember('DATA_ENCRYPTION_KEY (base64)', Buffer.from(dataEncryptionKeyHex, 'hex').toString('base64'));
    remember('PROVIDER_API_KEY', providerApiKey);
    remember('PROVIDER_WEBHOOK_SECRET', webhookSecret);
    remember('PROVIDER_WEBHOOK_SECRET (key)', webhookSecret.replace(/^whsec_/, ''));
    remember('DEPOSIT_WEBHOOK_SECRET', depositSecret);
    remember('DEV_JWT_SECRET', devJwtSecret);
    const relayer = sui.relayer.secretKey!;
    const relayerBytes = Buffer.from(decodeSuiPrivateKey(relayer).secretKey);
    remember('CHAIN_RELAYER_PRIVATE_KEY', relayer);
    remember('relayer key (hex)', relayerBytes.toString('hex'));
    remember('relayer key (base64)', relayerBytes.toString('base64'));
    for (const token of [...seen.keys()].filter((v) => v.split('.').length === 3)) {
      remember('a JWT signature', token.split('.')[2]);
    }
    // The users' own wallet keys, decrypted from the vault the way the gateway does.
    const vault = new WalletKeyVault(
      stack.database.db.withSchema(stack.vars.SECRETS_SCHEMA!) as unknown as Kysely<SecretsDatabase>,
      encryptionKeyFromHex(walletEncryptionKey),
    );
    const { rows: owners } = await sql<{ user_id: string }>`
      SELECT user_id FROM ${sql.table(`${stack.vars.SECRETS_SCHEMA}.wallet_keys`)}`.execute(
      stack.database.db,
    );
    expect(owners.length).toBeGreaterThanOrEqual(2);
    for (const { user_id } of owners) {
      const keypair = await vault.keypairFor(user_id);
      remember(`wallet key of ${user_id}`, keypair!.getSecretKey());
      remember(
        `wallet key of ${user_id} (hex)`,
        Buffer.from(decodeSuiPrivateKey(keypair!.getSecretKey()).secretKey).toString('hex'),
      );
    }

    // The data keys personal fields are sealed under, unwrapped the way the services do.
    const { rows: subjects } = await sql<{ key_id: string }>`
      SELECT key_id FROM ${sql.table(`${stack.vars.SECRETS_SCHEMA}.data_keys`)}`.execute(stack.database.db);
    expect(subjects.length).toBeGreaterThanOrEqual(3);
    const dataKeys = await (await stack.dataKeys()).keysForReading(new Set(subjects.map((s) => s.key_id)));
    for (const [keyId, key] of dataKeys) {
      remember(`data key of ${keyId} (hex)`, key!.toString('hex'));
      remember(`data key of ${keyId} (base64)`, key!.toString('base64'));
    }

    // Everything the run left behind.
    const outputs: [string, string][] = [
      ['gateway output', gateway.process.output()],
      ['projector output', projector.output()],
    ];
    const store = await stack.store();
    let streamText = '';
    let events = 0;
    for await (const raw of store.readRaw()) {
      streamText += `${Buffer.from(raw.data).toString('utf8')}\n`;
      events++;
    }
    outputs.push(['the stream', streamText]);
    let rows = '';
    for (const table of readModelTables()) {
      const { rows: found } = await sql<{ row: string }>`
        SELECT row_to_json(t)::text AS row FROM ${sql.table(`${stack.env.schema}.${table}`)} t`.execute(
        stack.database.db,
      );
      rows += found.map((r) => r.row).join('\n');
    }
    outputs.push(['the read model', rows]);
    const redis = createRedis(stack.env.redisUrl, '');
    await redisReady(redis);
    let cached = '';
    for (const key of await redis.keys(`${stack.env.redisKeyPrefix}*`)) {
      cached += `${key} ${(await redis.getBuffer(key).catch(() => null))?.toString('utf8') ?? ''}\n`;
    }
    redis.disconnect();
    outputs.push(['Redis', cached]);

    // The run was real: trace logs of requests, and events of every kind of flow.
    expect(gateway.process.output().match(/"msg":"request"/g)?.length ?? 0).toBeGreaterThan(20);
    expect(gateway.process.output()).toMatch(/"level":(40|50)/);
    expect(events).toBeGreaterThan(20);
    // The search reads real content: personal data is in the read model, and only sealed in the stream.
    expect(rows).toContain(email);
    expect(streamText).not.toContain(email);
    expect(streamText).toMatch(/"personalData":\{"kid":"user:/);
    expect(rows).toContain(suiAddress);
    const leaks: string[] = [];
    for (const [value, what] of seen) {
      figures.attacksTried++;
      for (const [where, text] of outputs) if (text.includes(value)) leaks.push(`${what} in ${where}`);
    }
    figures.invariantsBroken += leaks.length;
    expect(leaks).toEqual([]);
    console.info(
      `secrets: ${seen.size} values searched in ${outputs.reduce((n, [, t]) => n + t.length, 0)} characters of logs, events, rows and keys`,
    );
  }, 150_000);
});
