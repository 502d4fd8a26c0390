import { it } from 'vitest';
it('dbg', async () => {
  const m = await import('../libs/wallets/test/account-erasure.unit.test.ts');
});
