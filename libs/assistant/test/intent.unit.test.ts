import { describe, expect, it } from 'vitest';
import { parseIntent } from '../src/offline/intent';
import { parseSearchRequest } from '../src/offline/search-request';

describe('parseSearchRequest', () => {
  it.each([
    ['shoes under $80', { maxPrice: 80 }],
    ['shoes under 80', { maxPrice: 80 }],
    ['shoes below 79.99 dollars', { maxPrice: 79.99 }],
    ['shoes for $1,200 or less', { maxPrice: 1200 }],
    ['shoes over $100', { minPrice: 100 }],
    ['shoes from $40', { minPrice: 40 }],
    ['shoes $60 and up', { minPrice: 60 }],
    ['shoes between $50 and $120', { minPrice: 50, maxPrice: 120 }],
    ['shoes between 120 and 50 dollars', { minPrice: 50, maxPrice: 120 }],
    ['shoes from $50 to $90', { minPrice: 50, maxPrice: 90 }],
    ['shoes $50-$90', { minPrice: 50, maxPrice: 90 }],
    ['shoes 50 to 90 usd', { minPrice: 50, maxPrice: 90 }],
    ['shoes at least $30 and at most $60', { minPrice: 30, maxPrice: 60 }],
  ])('reads the price limits of "%s"', (message, limits) => {
    const { input } = parseSearchRequest(message);
    expect(input).toEqual({ query: 'shoes', limit: 5, ...limits });
  });

  it.each([
    ['jeans in size 32', '32'],
    ['hoodie in medium', 'M'],
    ['hoodie in an extra large', 'XL'],
    ['trail shoes in 10.5', '10.5'],
    ['tee in XS', 'XS'],
  ])('reads the size of "%s"', (message, size) => {
    expect(parseSearchRequest(message).input.size).toBe(size);
  });

  it('does not take a count or a duration for a size', () => {
    expect(parseSearchRequest('socks in 3 colors').input.size).toBeUndefined();
  });

  it('keeps the longest colour and folds spellings', () => {
    expect(parseSearchRequest('heather grey hoodie').input).toMatchObject({
      query: 'hoodie',
      color: 'heather grey',
    });
    expect(parseSearchRequest('gray hoodie').input.color).toBe('grey');
    expect(parseSearchRequest('best rated hoodie').input.color).toBeUndefined();
  });

  it('recognises brands in any case and keeps unknown ones as query words', () => {
    expect(parseSearchRequest('new balance running shoes').input).toMatchObject({
      brand: 'New Balance',
      query: 'running shoes',
    });
    expect(parseSearchRequest('summit ridge boots').input).toEqual({ query: 'summit ridge boots', limit: 5 });
  });

  it.each([
    ['hi! I am looking for a warm winter jacket', 'warm winter jacket'],
    ['Hello, could you please find me some wool socks? Thanks!', 'wool socks'],
    ['also find me a gift for my dad who likes coffee', 'coffee'],
    ['a present for my sister who loves hiking', 'hiking'],
    ['boyfriend jeans', 'boyfriend jeans'],
  ])('keeps only the product words of "%s"', (message, query) => {
    expect(parseSearchRequest(message).input.query).toBe(query);
  });

  it.each([
    ['I need something to keep me warm', 'winter jacket'],
    ['anything for the rain?', 'rain jacket'],
    ['a gift for my brother, something for running', 'running shoes'],
  ])('searches for the product that meets the need in "%s"', (message, query) => {
    expect(parseSearchRequest(message)).toMatchObject({ input: { query }, namesProduct: true });
  });

  it('reads "cheaper" as a price relative to what was shown, unless an amount is said', () => {
    expect(parseSearchRequest('anything cheaper?')).toMatchObject({
      input: { query: '', limit: 5 },
      relativePrice: 'lower',
    });
    expect(parseSearchRequest('more expensive ones')).toMatchObject({ relativePrice: 'higher' });
    const withAmount = parseSearchRequest('something cheaper, under $80?');
    expect(withAmount.input).toEqual({ query: '', maxPrice: 80, limit: 5 });
    expect(withAmount.relativePrice).toBeUndefined();
  });

  it('tells a named product from bare limits', () => {
    expect(parseSearchRequest('boots under $90')).toMatchObject({ hasSubject: true, namesProduct: true });
    expect(parseSearchRequest('something in red under $90')).toMatchObject({
      hasSubject: false,
      namesProduct: false,
    });
  });
});

describe('parseIntent', () => {
  it.each([
    ['show me red running shoes under $80', 'search'],
    ['I want to buy running shoes', 'search'],
    ['anything in navy?', 'search'],
    ['add the second one in M', 'add'],
    ['put it in my cart', 'add'],
    ["I'll take the third one", 'add'],
    ['tell me more about the third one', 'details'],
    ['how much is the first one?', 'details'],
    ['show me the cheapest one', 'details'],
    ['what is in my cart?', 'view-cart'],
    ['show my basket', 'view-cart'],
    ['empty my cart', 'empty-cart'],
    ['remove everything', 'empty-cart'],
    ['remove the hoodie from my cart', 'remove'],
    ['check out the jacket', 'checkout'],
    ['buy it', 'checkout'],
    ['order the second one', 'checkout'],
    ['remember that I prefer slim fit', 'remember'],
    ['show me more', 'more-results'],
    ['Hello there', 'greeting'],
    ['thank you!', 'thanks'],
    ['what is the meaning of life?', 'off-topic'],
    ['more like the first one', 'similar'],
    ['something similar to it', 'similar'],
    ['something like a hoodie', 'search'],
    ['anything cheaper?', 'search'],
    ['from Nike?', 'search'],
    ['yes please', 'accept'],
    ['ok thanks', 'thanks'],
    ['I need a present for my sister', 'gift-question'],
    ['I need something to keep me warm', 'search'],
  ])('reads "%s" as %s', (message, kind) => {
    expect(parseIntent(message).kind).toBe(kind);
  });

  it("reads what to remember in the shopper's words", () => {
    expect(parseIntent('Please remember: my shoe size is 10.')).toEqual({
      kind: 'remember',
      fact: 'My shoe size is 10',
    });
  });

  it.each([
    ['/remember I prefer neutral sneakers', 'I prefer neutral sneakers'],
    ['/remember keep me under $150', 'Keep me under $150'],
    ['  /Remember: I prefer Nike running shoes.', 'I prefer Nike running shoes'],
    ['/remember', ''],
  ])("reads the frontend's memory command %j as the fact to remember, not a search", (message, fact) => {
    expect(parseIntent(message)).toEqual({ kind: 'remember', fact });
  });

  it('reads the size and colour wished for an added product', () => {
    expect(parseIntent('add it in size L and color blue')).toMatchObject({
      kind: 'add',
      target: { kind: 'pronoun' },
      wish: { size: 'L', color: 'blue' },
    });
  });

  it('reads "if possible" as a wish the nearest variant satisfies', () => {
    expect(parseIntent('add it in size L, black if possible')).toMatchObject({
      kind: 'add',
      target: { kind: 'pronoun' },
      wish: { size: 'L', color: 'black', soft: true },
    });
    expect(parseIntent('add it in black')).toMatchObject({ wish: { color: 'black' } });
    expect(parseIntent('add it in black')).not.toMatchObject({ wish: { soft: true } });
  });

  it.each([
    ['add the second one', { kind: 'position', index: 1 }],
    ['add #3', { kind: 'position', index: 2 }],
    ['add the last one', { kind: 'position', index: -1 }],
    ['add the cheapest one', { kind: 'superlative', by: 'cheapest' }],
    ['add the best rated one', { kind: 'superlative', by: 'best-rated' }],
    ['add that', { kind: 'pronoun' }],
    ['add to cart', { kind: 'none' }],
    ['add the merino beanie', { kind: 'words', terms: ['merino', 'beanie'], phrase: 'merino beanie' }],
  ])('reads the target of "%s"', (message, target) => {
    expect(parseIntent(message)).toMatchObject({ kind: 'add', target });
  });
});
