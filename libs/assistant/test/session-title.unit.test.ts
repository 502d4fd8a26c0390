import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  buildTitlePrompt,
  cleanTitle,
  OfflineChatModel,
  TITLE_MAX_LENGTH,
  TITLE_PROMPT_MARKER,
  titleFor,
} from '../src';

describe('the title prompt', () => {
  it('starts with the marker and carries the first message as the prompt', () => {
    const { system, prompt } = buildTitlePrompt('show me red running shoes');
    expect(system.startsWith(TITLE_PROMPT_MARKER)).toBe(true);
    expect(system).toContain(`at most ${TITLE_MAX_LENGTH} characters`);
    expect(prompt).toBe('show me red running shoes');
  });
});

describe('the offline model asked for a title', () => {
  it.each([
    ['Show me red running shoes under $80', 'Red running shoes under $80'],
    ['Can you find me a black hoodie in M?', 'A black hoodie in M'],
    [
      "I'm looking for waterproof hiking boots for a trip to the Scottish Highlands next month",
      'Waterproof hiking boots for a trip to the Scottish',
    ],
    ['hi there, I need a warm winter jacket for hiking', 'A warm winter jacket for hiking'],
    ['Good morning everyone! Show me wool socks', 'Wool socks'],
    ['Hi, there! I need a warm jacket', 'A warm jacket'],
    ['hey guys, show me boots', 'Boots'],
    ['Hello! Hi there, could you find me a yoga mat', 'A yoga mat'],
    ['yoga mats under $40', 'Yoga mats under $40'],
    ['Hey folks. Looking for a raincoat', 'Looking for a raincoat'],
    ['hello!', 'Shopping chat'],
    ['What is the capital of France?', 'Shopping chat'],
  ])('titles "%s" as "%s"', async (first, title) => {
    const { system, prompt } = buildTitlePrompt(first);
    const result = await generateText({ model: new OfflineChatModel(), system, prompt });
    expect(result.text).toBe(title);
    expect(result.text.length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(titleFor(first)).toBe(title);
  });

  it('streams the title too, without calling tools', async () => {
    const { system, prompt } = buildTitlePrompt('empty my cart');
    const result = streamText({ model: new OfflineChatModel(), system, prompt });
    expect(await result.text).toBe('Empty my cart');
    expect(await result.toolCalls).toEqual([]);
  });
});

describe('cleanTitle', () => {
  it.each([
    ['"Red Running Shoes"', 'Red Running Shoes'],
    ['Title: Winter jackets.', 'Winter jackets'],
    ['**Cart cleanup**\nextra line', 'Cart cleanup'],
    ["'Men's hoodies'", "Men's hoodies"],
    ['  \n  ', 'New chat'],
    ['“Socks”!', 'Socks'],
  ])('cleans %j to %j', (raw, clean) => {
    expect(cleanTitle(raw)).toBe(clean);
  });

  it('cuts a long title at a word boundary within the limit', () => {
    const title = cleanTitle('Comparing lightweight waterproof trail running shoes for muddy autumn races');
    expect(title).toBe('Comparing lightweight waterproof trail running');
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
  });

  it('cuts a title without spaces hard at the limit', () => {
    expect(cleanTitle('x'.repeat(80))).toBe('x'.repeat(TITLE_MAX_LENGTH));
  });

  it('counts characters, not UTF-16 units', () => {
    const title = cleanTitle('👟'.repeat(60));
    expect(Array.from(title)).toHaveLength(TITLE_MAX_LENGTH);
  });
});
