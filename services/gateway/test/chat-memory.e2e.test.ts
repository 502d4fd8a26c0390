import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OfflineChatModel } from '@shop/assistant';
import { startFakeRelayer } from '../../../libs/memory/test/fake-relayer';
import {
  chat,
  scriptedModel,
  SwitchableModel,
  textOf,
  textStep,
  toolCallsOf,
  userMessage,
} from './chat-harness';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/** RFC 8032's first test vector: a delegate key whose public key the fake relayer registers. */
const DELEGATE_KEY = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const PUBLIC_KEY = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const ACCOUNT_ID = '0x5e1f';
const SIZES = 'Clothing sizes: tops M, bottoms 32, footwear 42.';

const model = new SwitchableModel();
let stack: TestStack;
let relayer: Awaited<ReturnType<typeof startFakeRelayer>>;
let memwalGateway: string;

beforeAll(async () => {
  stack = await startTestStack('chatmemory', {}, { chatModel: model });
  relayer = await startFakeRelayer({ registeredKey: PUBLIC_KEY, accountId: ACCOUNT_ID });
  memwalGateway = await stack.startGateway({
    MEMWAL_URL: relayer.url,
    MEMWAL_DELEGATE_KEY: DELEGATE_KEY,
    MEMWAL_ACCOUNT_ID: ACCOUNT_ID,
  });
});
afterAll(async () => {
  await stack?.stop();
  await relayer?.close();
});
afterEach(() => {
  model.current = new OfflineChatModel();
  relayer.behaviour.failWith = undefined;
});

const email = () => `${randomUUID().slice(0, 8)}@example.com`;
async function shopper(url = stack.url): Promise<{ client: TestClient; userId: string }> {
  const client = new TestClient(url);
  const userId = await client.onboard(email());
  return { client, userId };
}

type Activity = { type: string; id?: string; data: Record<string, unknown> };
const activitiesOf = (chunks: { type: string }[]) =>
  chunks.filter((chunk): chunk is Activity => chunk.type === 'data-memwal-activity');

describe("the project's own memory store (default)", () => {
  it('remembers a preference from the chat and injects it, with the onboarding sizes, into later turns', async () => {
    const { client } = await shopper();
    const remember = await chat(client, { messages: [userMessage('remember that I prefer slim fit')] });
    expect(toolCallsOf(remember.chunks)).toEqual([
      { toolName: 'rememberMemory', input: { fact: 'I prefer slim fit' } },
    ]);
    expect(remember.chunks.find((chunk) => chunk.type === 'tool-output-available')).toMatchObject({
      output: { success: true, text: 'I prefer slim fit', message: expect.any(String) },
    });

    const scripted = scriptedModel([textStep('Here are some slim fit shirts.')]);
    model.current = scripted;
    const next = await chat(client, { messages: [userMessage('show me slim fit shirts')] });
    const system = scripted.doStreamCalls[0]!.prompt[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain('- I prefer slim fit');
    expect(system.content).toContain(`- ${SIZES}`);

    const [loading, recalled] = activitiesOf(next.chunks);
    expect(loading).toEqual({
      type: 'data-memwal-activity',
      id: 'memwal-recall',
      data: {
        source: 'memwal',
        status: 'loading',
        message: 'Looking up your saved preferences',
        namespace: 'preferences',
        query: 'show me slim fit shirts',
        memories: [],
        injectedIntoPrompt: false,
      },
    });
    expect(recalled).toMatchObject({
      id: 'memwal-recall',
      data: {
        source: 'memwal',
        status: 'success',
        message: 'Using 2 saved preferences',
        namespace: 'preferences',
        query: 'show me slim fit shirts',
        injectedIntoPrompt: true,
      },
    });
    // The closest memory first: it shares the query's words.
    expect(recalled!.data.memories).toEqual([
      { blobId: expect.any(String), text: 'I prefer slim fit', distance: expect.any(Number) },
      { blobId: expect.any(String), text: SIZES, distance: 1 },
    ]);
    // The reader keeps one record per id: the outcome replaced the loading state.
    expect(next.message?.parts.filter((part) => part.type === 'data-memwal-activity')).toHaveLength(1);
  });

  it("stores the fact of the frontend's /remember command with the offline model, and searches for nothing", async () => {
    const { client } = await shopper();
    const remember = await chat(client, { messages: [userMessage('/remember keep me under $150')] });
    expect(toolCallsOf(remember.chunks)).toEqual([
      { toolName: 'rememberMemory', input: { fact: 'Keep me under $150' } },
    ]);
    expect(remember.chunks.find((chunk) => chunk.type === 'tool-output-available')).toMatchObject({
      output: { success: true, text: 'Keep me under $150' },
    });
    expect(textOf(remember.message)).toBe('Got it, I\'ll remember: "Keep me under $150".');

    // Stored: the next turn recalls it into the prompt.
    const scripted = scriptedModel([textStep('Noted.')]);
    model.current = scripted;
    await chat(client, { messages: [userMessage('show me sneakers under $150')] });
    expect(scripted.doStreamCalls[0]!.prompt[0]!.content).toContain('- Keep me under $150');
  });

  it("keeps each user's memories to that user and stores a repeated fact once", async () => {
    const { client } = await shopper();
    await chat(client, { messages: [userMessage('remember that I love green')] });
    await chat(client, { messages: [userMessage('remember that I love green')] });
    const { client: other } = await shopper();

    model.current = scriptedModel([textStep('Ok.')]);
    const own = activitiesOf((await chat(client, { messages: [userMessage('green jackets')] })).chunks)[1];
    expect((own!.data.memories as { text: string }[]).map(({ text }) => text)).toEqual([
      'I love green',
      SIZES,
    ]);
    model.current = scriptedModel([textStep('Ok.')]);
    const theirs = activitiesOf((await chat(other, { messages: [userMessage('green jackets')] })).chunks)[1];
    expect((theirs!.data.memories as { text: string }[]).map(({ text }) => text)).toEqual([SIZES]);
  });
});

describe('MemWal as the memory store (MEMWAL_URL set)', () => {
  it('receives the onboarding sizes and remembered preferences, and its recall reaches the prompt', async () => {
    const { client, userId } = await shopper(memwalGateway);
    const namespace = `shop-user-${userId}`;
    const texts = () => (relayer.memories.get(namespace) ?? []).map(({ text }) => text);
    expect(
      await eventually(
        async () => texts(),
        (stored) => stored.includes(SIZES),
      ),
    ).toEqual([SIZES]);

    await chat(client, { messages: [userMessage('remember that I prefer merino wool')] });
    expect(texts()).toEqual([SIZES, 'I prefer merino wool']);

    const scripted = scriptedModel([textStep('Merino socks, coming up.')]);
    model.current = scripted;
    const reply = await chat(client, { messages: [userMessage('merino wool socks')] });
    const recalled = activitiesOf(reply.chunks)[1];
    expect(recalled).toMatchObject({
      data: {
        source: 'memwal',
        status: 'success',
        namespace,
        query: 'merino wool socks',
        injectedIntoPrompt: true,
      },
    });
    expect((recalled!.data.memories as { text: string }[])[0]).toMatchObject({
      text: 'I prefer merino wool',
      blobId: expect.stringMatching(/^blob-/),
    });
    expect(scripted.doStreamCalls[0]!.prompt[0]!.content).toContain('- I prefer merino wool');
  });

  it("forgets the user's namespace at the relayer when the account is closed", async () => {
    const { client, userId } = await shopper(memwalGateway);
    const namespace = `shop-user-${userId}`;
    const stored = () => Promise.resolve(relayer.memories.get(namespace) ?? []);
    expect(await eventually(stored, (memories) => memories.length > 0)).not.toEqual([]);

    expect((await client.request('DELETE', '/api/auth/account')).status).toBe(200);

    expect(await eventually(stored, (memories) => memories.length === 0)).toEqual([]);
    expect(relayer.requests.filter((r) => r.path === '/api/forget').map((r) => r.body)).toContainEqual({
      namespace,
    });
  });

  it('answers without memories when the relayer fails, and says so in the activity record', async () => {
    const { client } = await shopper(memwalGateway);
    relayer.behaviour.failWith = { status: 500, body: '{"message":"relayer down"}' };
    model.current = scriptedModel([textStep('Here is what I found.')]);
    const reply = await chat(client, { messages: [userMessage('wool socks')] });

    expect(activitiesOf(reply.chunks)[1]).toMatchObject({
      data: { status: 'error', memories: [], injectedIntoPrompt: false },
    });
    expect(textOf(reply.message)).toBe('Here is what I found.');
    expect(reply.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it("answers a remember the relayer refuses as a failure result the frontend's card shows, and says so", async () => {
    const { client } = await shopper(memwalGateway);
    relayer.behaviour.failWith = { status: 500, body: '{"message":"relayer down"}' };
    const reply = await chat(client, { messages: [userMessage('/remember I prefer slim fit')] });

    expect(reply.chunks.filter((chunk) => chunk.type === 'tool-output-error')).toEqual([]);
    expect(reply.chunks.find((chunk) => chunk.type === 'tool-output-available')).toEqual({
      type: 'tool-output-available',
      toolCallId: expect.any(String),
      output: {
        success: false,
        code: 'UPSTREAM_ERROR',
        message: 'The memory service is unavailable right now',
        text: 'I prefer slim fit',
      },
    });
    // With the next step after a failure (issue 43).
    expect(textOf(reply.message)).toBe(
      "Sorry, I couldn't save that preference: The memory service is unavailable right now. Try again in a moment; I can still help you shop meanwhile.",
    );
  });
});
