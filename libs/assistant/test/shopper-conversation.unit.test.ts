import { describe, expect, it } from 'vitest';
import { expectScriptFollowed, runScript, SHOPPER_SCRIPT, writeTranscript } from './shopper-script';

describe("a shopper's three chats with the offline model", () => {
  it('calls the right tools and states the facts, turn by turn: search, refine, compare, choose, cart, checkout, orders, memory, small talk', async () => {
    const scripted = await runScript();
    writeTranscript('shopper-conversation.offline.md', scripted);
    expect(scripted.length).toBeGreaterThanOrEqual(30);
    expect(new Set(scripted.map(({ chat }) => chat)).size).toBe(SHOPPER_SCRIPT.length);
    expectScriptFollowed(scripted);
  });
});
