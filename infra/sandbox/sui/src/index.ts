export { startSuiSandbox } from './sandbox';
export { TESTNET_USDC } from './coin-metadata';
export type { SandboxCart, SandboxCartItem, SuiSandbox, SuiSandboxOptions } from './sandbox';
export type { CreatePaymentInput, FixtureEvent, TransactionFixture } from './fixtures';
export type { FaultMode, FaultOptions } from './faults';
export type { WalletPaymentInput } from './test-wallets';
