import { describe, expect, it } from 'vitest';
import { rankMemories, type Memory } from '../src';

const memory = (id: string, content: string, createdAt: string | null): Memory => ({
  id,
  content,
  namespace: 'preferences',
  source: 'chat',
  createdAt,
});

describe('rankMemories', () => {
  it('puts the memories sharing most of the query first, with their share as score', () => {
    const ranked = rankMemories('waterproof hiking boots', [
      memory('a', 'Likes bright colors', '2026-01-03T00:00:00.000Z'),
      memory('b', 'Needs waterproof boots for hiking', '2026-01-01T00:00:00.000Z'),
      memory('c', 'Wears size 10 boots', '2026-01-02T00:00:00.000Z'),
    ]);
    expect(ranked.map(({ id, score }) => [id, score])).toEqual([
      ['b', 1],
      ['c', 1 / 3],
      ['a', 0],
    ]);
  });

  it('breaks ties by recency, newest first, undated last, then by id', () => {
    const ranked = rankMemories('jacket size', [
      memory('old', 'Jacket size M', '2025-06-01T00:00:00.000Z'),
      memory('z-undated', 'Jacket size S', null),
      memory('new', 'Jacket size L', '2026-02-01T10:00:00+02:00'),
      memory('a-undated', 'Jacket size XL', null),
    ]);
    expect(ranked.map(({ id }) => id)).toEqual(['new', 'old', 'a-undated', 'z-undated']);
  });

  it('matches across case, accents and plurals, and ignores filler words', () => {
    const [first] = rankMemories('Show me some CAFÉ mugs', [
      memory('x', 'I collect cafe mug designs', null),
      memory('y', 'Show me everything', null),
    ]);
    expect(first).toMatchObject({ id: 'x', score: 1 });
  });

  it('keeps every memory, ordered by recency, for a query with no words to match', () => {
    const ranked = rankMemories('?', [
      memory('a', 'One', '2026-01-01T00:00:00.000Z'),
      memory('b', 'Two', '2026-01-02T00:00:00.000Z'),
    ]);
    expect(ranked.map(({ id, score }) => [id, score])).toEqual([
      ['b', 0],
      ['a', 0],
    ]);
  });

  it('leaves its input as it was', () => {
    const input = [memory('a', 'Slim fit', null), memory('b', 'Jeans slim fit', null)];
    const copy = structuredClone(input);
    rankMemories('slim fit jeans', input);
    expect(input).toEqual(copy);
  });
});
