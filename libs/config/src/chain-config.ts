import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { fromBase64 } from '@mysten/sui/utils';
import { z } from 'zod';
import { url } from './env-types';

/*
 * Field schemas for the chain variables, for a service's env schema to pick from (and mark
 * optional or required as its mode demands). Ids and addresses come out normalized, so they can
 * be compared with what the chain returns.
 */

const SHORT_OR_FULL_HEX = /^0x[0-9a-fA-F]{1,64}$/;
const normalizeHex = (value: string) => `0x${value.slice(2).toLowerCase().padStart(64, '0')}`;

/** A 0x-prefixed Sui address, package id or object id, normalized to 0x + 64 lower-case hex. */
export const suiAddress = z
  .string()
  .regex(SHORT_OR_FULL_HEX, 'must be a 0x-prefixed Sui address or object id')
  .transform(normalizeHex);

/** A Move coin type such as 0x…::usdc::USDC (address normalized). */
export const suiCoinType = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}::[A-Za-z_]\w*::[A-Za-z_]\w*$/, 'must be a coin type like 0x…::usdc::USDC')
  .transform((value) => {
    const [address = '', module, name] = value.split('::');
    return `${normalizeHex(address)}::${module}::${name}`;
  });

/**
 * How often the reconcilers drive open deposits and payments to a final state, and how long one
 * has to stay open before they touch it (so they do not race the request still handling it).
 */
export const reconcileIntervalMs = z.coerce.number().int().min(100).max(3_600_000).default(30_000);

export const chainNetwork = z.enum(['mainnet', 'testnet', 'devnet', 'localnet']);

/**
 * Whether `value` is an ED25519 secret in one of the forms @shop/chain's decodeRelayerSecretKey
 * accepts: `suiprivkey1…`, 32 bytes of hex, or base64 of the 32 bytes or of the keystore's
 * `0x00 ‖ 32 bytes`. Kept here rather than imported so configuration does not depend on the
 * chain client; a test in libs/chain holds the two to the same answers.
 */
function isEd25519Secret(value: string): boolean {
  const text = value.trim();
  try {
    if (text.startsWith('suiprivkey')) return decodeSuiPrivateKey(text).schema === 'ED25519';
    if (/^(0x)?[0-9a-fA-F]{64}$/.test(text)) return true;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return false;
    const bytes = fromBase64(text);
    return bytes.length === 32 || (bytes.length === 33 && bytes[0] === 0);
  } catch {
    return false;
  }
}

/**
 * The relayer's ED25519 secret key, checked at start-up so a bad key stops the process before
 * the first transaction. The value stays the string; error messages never repeat it.
 */
export const relayerPrivateKey = z
  .string()
  .refine(
    isEd25519Secret,
    'must be an ED25519 key: suiprivkey1…, 32 bytes of hex, or base64 of the 32-byte secret',
  );

export const chainEnvFields = {
  CHAIN_RPC_URL: url,
  CHAIN_NETWORK: chainNetwork.default('testnet'),
  /** Package that publishes the cart module. */
  CHAIN_CONTRACT_ADDRESS: suiAddress,
  /** The shared CartRegistry object. */
  CHAIN_CART_REGISTRY_ID: suiAddress,
  CHAIN_RELAYER_PRIVATE_KEY: relayerPrivateKey,
  /** The one coin deposits are paid in (USDC), for every service that verifies or credits them. */
  CHAIN_COIN_TYPE: suiCoinType,
  /** Package whose payment::PaymentReceipt events deposits are verified against. */
  CHAIN_PAYMENT_PACKAGE_ID: suiAddress,
};
