import { Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { SuiClient } from '@mysten/sui/client';
import { z } from 'zod';
import { Aggregates } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import { ChainInputError, getTransaction, paymentReceiptsOf, sameAddress, sameStructType } from '@shop/chain';
import { DomainError } from '@shop/domain';
import { ApiRoute, apiSchema, ValidBody } from '@shop/http';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { CONFIG, SUI_CLIENT } from '../infrastructure/tokens';
import { CreditDepositCommand } from './credit-deposit.command';
import type { DepositResult } from './credit-deposit.command';
import { depositResultSchema } from './deposit-result.schema';

const verifyBody = apiSchema(
  'DepositVerifyRequest',
  z.object({
    txDigest: z
      .string()
      .min(32)
      .max(64)
      .regex(/^[1-9A-HJ-NP-Za-km-z]+$/, 'a base58 transaction digest'),
    nonce: z.string().min(1).max(200),
    amount: z.string().regex(/^\d{1,30}$/, 'an amount in MIST'),
    coinType: z.string().min(1).max(300),
  }),
);

/** The spec's deposit errors are told apart by their message; the code is the common one. */
const refused = (message: string) => new DomainError('invalid', 'BAD_REQUEST', message);

@Controller('api/deposit')
export class DepositVerifyController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(SUI_CLIENT) private readonly sui: SuiClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    private readonly aggregates: Aggregates,
  ) {}

  @Post('verify')
  @HttpCode(200)
  @ApiRoute({
    summary:
      "Verify an on-chain USDC payment to the user's Sui wallet (a PaymentReceipt event) and credit the EVM wallet with the USDMX equivalent, once per digest",
    tags: ['deposit'],
    access: 'session',
    body: verifyBody,
    responses: { 200: { description: 'Credited', schema: depositResultSchema } },
    errors: [
      {
        status: 400,
        code: 'BAD_REQUEST',
        description:
          'Wallet not provisioned | Invalid coin type | No PaymentReceipt event found | Transaction failed | Nonce mismatch | Amount mismatch | Receiver mismatch',
      },
      { status: 400, code: 'VALIDATION_ERROR', description: 'malformed body' },
      { status: 401, code: 'UNAUTHORIZED', description: 'missing, expired or invalid JWT cookie' },
      {
        status: 409,
        code: 'DEPOSIT_ALREADY_CREDITED',
        description: 'Deposit already processed: the transaction was credited',
      },
      {
        status: 409,
        code: 'DEPOSIT_IN_PROGRESS',
        description: 'the transaction is claimed and being credited; it will be, ask again later',
      },
      { status: 409, code: 'CONFLICT', description: 'Deposit already processed: claimed by another user' },
      {
        status: 500,
        code: 'INTERNAL_ERROR',
        description: 'Faucet failed: <detail>, the provider refused the funding (the digest stays retryable)',
      },
      { status: 502, code: 'UPSTREAM_ERROR', description: 'the chain could not be reached' },
      { status: 503, code: 'SERVICE_UNAVAILABLE', description: 'deposit verification is not configured' },
    ],
  })
  async verify(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() body: z.infer<typeof verifyBody>,
  ): Promise<DepositResult> {
    const usdc = this.config.CHAIN_COIN_TYPE;
    const paymentPackage = this.config.CHAIN_PAYMENT_PACKAGE_ID;
    if (!this.sui || !usdc || !paymentPackage) {
      throw new DomainError('unavailable', 'SERVICE_UNAVAILABLE', 'Deposit verification is not configured');
    }
    const { state: user } = await this.aggregates.user.state(identity.userId);
    if (user.walletStatus !== 'active' || !user.suiAddress || !user.evmAddress)
      throw refused('Wallet not provisioned');
    if (!sameStructType(body.coinType, usdc)) throw refused('Invalid coin type');

    let transaction;
    try {
      transaction = await getTransaction(this.sui, body.txDigest);
    } catch (error) {
      if (error instanceof ChainInputError) throw refused('No PaymentReceipt event found');
      throw new DomainError('upstream', 'UPSTREAM_ERROR', 'The chain could not be reached');
    }
    // Only a receipt of the configured payment package counts: a look-alike event from any
    // other package is exactly what a spoof would send.
    const receipts = transaction
      ? paymentReceiptsOf({ ...transaction, status: 'success' }, paymentPackage)
      : [];
    if (!transaction || receipts.length === 0) throw refused('No PaymentReceipt event found');
    if (transaction.status !== 'success') throw refused('Transaction failed');
    const receipt = receipts.find((r) => r.nonce === body.nonce);
    if (!receipt) throw refused('Nonce mismatch');
    if (receipt.amount !== BigInt(body.amount)) throw refused('Amount mismatch');
    if (!sameStructType(receipt.coinType, usdc)) throw refused('Invalid coin type');
    if (!sameAddress(receipt.receiver, user.suiAddress)) throw refused('Receiver mismatch');

    return this.commands.execute(
      new CreditDepositCommand({
        userId: identity.userId,
        txDigest: body.txDigest,
        // Who sent the transaction is the chain's fact; the receipt is not read for it.
        payerAddress: transaction.sender ?? receipt.receiver,
        userWallet: { address: receipt.receiver, mismatch: 'Receiver mismatch' },
        amountMist: receipt.amount.toString(),
        coinType: usdc,
        source: 'verify',
      }),
    );
  }
}
