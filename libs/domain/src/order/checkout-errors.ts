import { DomainError } from '../domain-error';

export const checkoutNoWallet = () =>
  new DomainError('invalid', 'CheckoutNoWalletError', 'Your EVM wallet is not provisioned yet');

export const checkoutMissingAddress = (what = 'shipping address') =>
  new DomainError(
    'invalid',
    'CheckoutMissingAddressError',
    `Your ${what} is incomplete; finish onboarding step 2`,
  );

export const insufficientFunds = () =>
  new DomainError(
    'unprocessable',
    'InsufficientFundsError',
    'Your wallet holds too little USDC for this item',
  );

export const checkoutOrderCreation = (detail: string) =>
  new DomainError(
    'upstream',
    'CheckoutOrderCreationError',
    `The payment provider could not create the order: ${detail}`,
  );

export const checkoutPayment = (detail: string) =>
  new DomainError(
    'upstream',
    'CheckoutPaymentError',
    `The payment provider could not prepare the payment: ${detail}`,
  );

export const checkoutInProgress = () =>
  new DomainError('conflict', 'CONFLICT', 'A checkout of this item is already in progress; retry shortly');
