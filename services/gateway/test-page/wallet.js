/* global crypto */
/**
 * The shopper's wallets, and a deposit of test USDC made as a wallet makes one. The page holds no
 * key: the Sui stand-in's faucet mints the coins and its test wallet signs for the shopper's
 * address, paying through the payment package; the gateway then verifies the receipt as it would
 * any wallet's payment (POST /api/deposit/verify), claims it and funds the provider wallet.
 */
import { ApiError, call } from './api.js';

/** The stand-in's USDC, like Circle's, has 6 decimals. */
const DECIMALS = 6;

export function toMist(amount) {
  const [whole, fraction = ''] = String(amount).trim().split('.');
  if (!/^\d+$/.test(whole) || !/^\d*$/.test(fraction)) throw new Error(`not an amount: ${amount}`);
  return (
    BigInt(whole) * 10n ** BigInt(DECIMALS) +
    BigInt(fraction.slice(0, DECIMALS).padEnd(DECIMALS, '0'))
  ).toString();
}

export function fromMist(mist) {
  const value = BigInt(mist);
  const unit = 10n ** BigInt(DECIMALS);
  const fraction = (value % unit).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return fraction ? `${value / unit}.${fraction}` : `${value / unit}`;
}

async function post(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error ?? `${url} answered ${response.status}`);
  return answer;
}

async function rpc(chain, method, params) {
  const answer = await post(chain.rpcUrl, { jsonrpc: '2.0', id: 1, method, params });
  if (answer.error) throw new Error(answer.error.message);
  return answer.result;
}

/** The gateway's view of the wallets, with the USDC the Sui address holds read from the chain. */
export async function loadWallet() {
  const wallet = await call('GET', '/api/dev/wallet');
  let suiUsdc = null;
  if (wallet.chain && wallet.suiAddress) {
    const balance = await rpc(wallet.chain, 'suix_getBalance', [
      wallet.suiAddress,
      wallet.chain.coinType,
    ]).catch(() => null);
    suiUsdc = balance ? fromMist(balance.totalBalance) : null;
  }
  return { ...wallet, suiUsdc };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every step a deposit takes, each reported through `step(name, text)` as it completes:
 * faucet, payment, receipt, verification (claim and funding), credited.
 */
export async function depositTestUsdc(wallet, amount, step) {
  const { chain, suiAddress } = wallet;
  if (!chain) throw new Error('deposits are not configured on this gateway (CHAIN_RPC_URL, CHAIN_COIN_TYPE)');
  if (!suiAddress) throw new Error('the Sui wallet is not provisioned yet');
  const amountMist = toMist(amount);

  const faucet = await post(`${chain.rpcUrl}/sandbox/faucet`, {
    address: suiAddress,
    coinType: chain.coinType,
    amountMist,
  });
  step('faucet', `Faucet: ${amount} test USDC to your Sui address`, faucet.digest);

  const nonce = crypto.randomUUID();
  const payment = await post(`${chain.rpcUrl}/sandbox/payments`, {
    payer: suiAddress,
    receiver: suiAddress,
    coinType: chain.coinType,
    amountMist,
    nonce,
  });
  step('payment', `Payment: ${amount} USDC from your Sui wallet through the payment package`, payment.digest);

  const transaction = await rpc(chain, 'sui_getTransactionBlock', [payment.digest, { showEvents: true }]);
  const receipt = transaction.events.find((event) => event.type.endsWith('::payment::PaymentReceipt'));
  if (!receipt) throw new Error('the payment left no PaymentReceipt on chain');
  step(
    'receipt',
    `Receipt on chain: ${fromMist(receipt.parsedJson.amount)} USDC, nonce ${nonce.slice(0, 8)}…`,
  );

  const body = { txDigest: payment.digest, nonce, amount: amountMist, coinType: chain.coinType };
  try {
    const credited = await call('POST', '/api/deposit/verify', body);
    step('verified', `Verified: claimed and funded at the provider with ${credited.usdmxAmount} USDC`);
  } catch (error) {
    // Claimed but still being funded: the crediting finishes on its own, the order shows when.
    if (!(error instanceof ApiError && error.code === 'DEPOSIT_IN_PROGRESS')) throw error;
    step('verified', 'Verified: claimed; funding at the provider is under way');
  }

  for (let tries = 0; ; tries++) {
    const { orders } = await call('GET', '/api/orders?type=deposit&limit=20');
    const order = orders.find((candidate) => candidate.providerOrderId === payment.digest);
    if (order?.status === 'delivered') break;
    if (order?.status === 'cancelled') throw new Error('the deposit could not be credited');
    if (tries >= 20) throw new Error('the deposit is not credited yet; see Orders');
    await pause(500);
  }
  step('credited', 'Credited: the deposit is credited to your provider wallet');
  return payment.digest;
}
