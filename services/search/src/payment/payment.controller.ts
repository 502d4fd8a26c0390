import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ValidBody, ValidParams } from '@shop/http';
import { Envelope, ok, okEnvelopeSchema } from '../http/envelope';
import { PaymentVerifyRateLimitGuard } from '../http/rate-limit.guard';
import { GetPaymentRecordQuery } from './get-payment-record.query';
import {
  paymentIdParamsSchema,
  paymentRecordSchema,
  txHashParamsSchema,
  verificationResultSchema,
  verifyBodySchema,
} from './payment-schemas';
import type { PaymentRecord, VerificationResult, VerifyBody } from './payment-schemas';
import { VerifyPaymentCommand } from './verify-payment.command';

@Controller('api/payment')
export class PaymentController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post('verify')
  @HttpCode(200)
  @UseGuards(PaymentVerifyRateLimitGuard)
  @ApiRoute({
    summary:
      'Verify a chain payment to the merchant and confirm the deposit to the backend. Idempotent per txHash: a recorded transaction is never read from the chain again, and a confirmed one is answered from its record.',
    tags: ['payment'],
    access: 'public',
    body: verifyBodySchema,
    responses: {
      200: {
        description: 'Verified and acknowledged by the backend (status SUCCESS)',
        schema: okEnvelopeSchema(verificationResultSchema),
      },
    },
    errors: [
      { status: 400, code: 'BAD_REQUEST', description: 'txHash or userId failed validation' },
      {
        status: 404,
        code: 'TRANSACTION_NOT_FOUND',
        description: 'the chain does not know the digest (yet); nothing recorded',
      },
      {
        status: 409,
        code: 'TX_HASH_CLAIMED',
        description:
          "the transaction was credited to another user (a claim not acknowledged yet is no one's: another user's verification takes it over)",
      },
      {
        status: 409,
        code: 'VERIFICATION_IN_PROGRESS',
        description:
          'requests that came before this one kept verifying it for the whole 60 s this one waited its turn; retry',
      },
      {
        status: 429,
        code: 'TOO_MANY_REQUESTS',
        description:
          'more than PAYMENT_VERIFY_RATE_LIMIT_RPM (default 10) verifications a minute from this address (Retry-After and RateLimit-* headers)',
      },
      {
        status: 422,
        code: 'TRANSACTION_FAILED',
        description: 'data: the FAILED record; the transaction failed on chain',
      },
      {
        status: 422,
        code: 'NO_PAYMENT_TO_MERCHANT',
        description: 'data: the FAILED record; nothing paid to the merchant address',
      },
      {
        status: 422,
        code: 'WRONG_COIN_TYPE',
        description: 'data: the FAILED record; paid in another coin than CHAIN_COIN_TYPE',
      },
      {
        status: 422,
        code: 'AMOUNT_TOO_SMALL',
        description: 'data: the FAILED record; less than CHAIN_PAYMENT_AMOUNT_MIST',
      },
      { status: 422, code: 'UNKNOWN_PAYER', description: 'data: the FAILED record; no address paid it' },
      {
        status: 422,
        code: 'DEPOSIT_REFUSED',
        description:
          "data: the FAILED record; the backend refused the deposit for this user (not the payer's wallet); the digest is released for whoever paid it",
      },
      {
        status: 502,
        code: 'DEPOSIT_CONFIRMATION_FAILED',
        description:
          'data: the PENDING record; verified, but the backend has not acknowledged it yet (or is still crediting it); it is delivered again by the reconciler, or by verifying again',
      },
      { status: 502, code: 'CHAIN_ERROR', description: 'the chain RPC answered with an error' },
      {
        status: 503,
        code: 'CHAIN_UNAVAILABLE',
        description: 'the chain RPC could not be reached; nothing recorded',
      },
      {
        status: 503,
        code: 'VERIFICATION_DISABLED',
        description: 'CHAIN_MERCHANT_ADDRESS or DEPOSIT_WEBHOOK_SECRET is not configured',
      },
      {
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        description: 'the lock store or the event store is unavailable',
      },
    ],
  })
  async verify(@ValidBody() body: VerifyBody): Promise<Envelope<VerificationResult>> {
    const result = await this.commands.execute(new VerifyPaymentCommand(body.txHash, body.userId));
    return ok(result, 'Payment verified and deposit confirmed');
  }

  @Get('transaction/:txHash')
  @ApiRoute({
    summary: 'The transaction record of a digest (a projection of its payment events)',
    tags: ['payment'],
    access: 'public',
    params: txHashParamsSchema,
    responses: { 200: { description: 'The record', schema: okEnvelopeSchema(paymentRecordSchema) } },
    errors: [
      { status: 400, code: 'BAD_REQUEST', description: 'txHash is not 1 to 200 letters or digits' },
      { status: 404, code: 'NOT_FOUND', description: 'no payment was recorded for this digest' },
    ],
  })
  async transaction(
    @ValidParams() { txHash }: z.infer<typeof txHashParamsSchema>,
  ): Promise<Envelope<PaymentRecord>> {
    return ok(await this.queries.execute(new GetPaymentRecordQuery({ txHash })), 'Transaction record found');
  }

  @Get(':paymentId')
  @ApiRoute({
    summary: 'The current status of a payment, by the paymentId the verify route returned',
    tags: ['payment'],
    access: 'public',
    params: paymentIdParamsSchema,
    responses: { 200: { description: 'The record', schema: okEnvelopeSchema(paymentRecordSchema) } },
    errors: [
      { status: 400, code: 'BAD_REQUEST', description: 'paymentId is not a UUID' },
      { status: 404, code: 'NOT_FOUND', description: 'no payment has this id' },
    ],
  })
  async payment(
    @ValidParams() { paymentId }: z.infer<typeof paymentIdParamsSchema>,
  ): Promise<Envelope<PaymentRecord>> {
    return ok(await this.queries.execute(new GetPaymentRecordQuery({ paymentId })), 'Payment found');
  }
}
