/** How the provider names an email user as a wallet owner. */
export function emailOwner(email: string): string {
  return `email:${email}`;
}

/** Locator of that owner's EVM wallet, usable wherever a wallet address is. */
export function emailWalletLocator(email: string): string {
  return `email:${email}:evm`;
}
