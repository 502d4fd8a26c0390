import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseVariant, sizeKindOf, type VariantOffer } from '../src';

const saved = { topsSize: 'M' as const, bottomsSize: '32', footwearSize: '9' };
const hoodie: VariantOffer = {
  productName: 'Harbor & Pine Fleece Hoodie',
  category: 'apparel',
  sizes: ['XS', 'S', 'M', 'L', 'XL'],
  colors: ['Heather Grey'],
};
const jeans: VariantOffer = { ...hoodie, productName: 'Slim Jeans', sizes: ['28', '30', '32', '34'] };
const shoes: VariantOffer = {
  productName: 'Trail Runner',
  category: 'footwear',
  sizes: ['8', '8.5', '9', '10'],
  colors: ['Black'],
};

describe('the size and colour of an add from the chat', () => {
  it("takes the shopper's saved size for the kind of product when the product comes in it", () => {
    expect(chooseVariant(hoodie, {}, saved)).toEqual({ kind: 'add', size: 'M', color: 'Heather Grey' });
    expect(chooseVariant(jeans, {}, saved)).toMatchObject({ kind: 'add', size: '32' });
    expect(chooseVariant(shoes, {}, saved)).toMatchObject({ kind: 'add', size: '9' });
  });

  it('asks when the product does not come in the saved size', () => {
    const choice = chooseVariant({ ...hoodie, sizes: ['XL', 'XXL'] }, {}, saved);
    expect(choice).toMatchObject({ kind: 'ask', about: 'size', options: ['XL', 'XXL'] });
    expect(choice.kind === 'ask' && choice.message).toMatch(/saved size M.*XL, XXL/);
  });

  it('asks when no saved size applies to a product of several sizes', () => {
    expect(chooseVariant(hoodie, {}, null)).toMatchObject({ kind: 'ask', about: 'size' });
    const bag = { productName: 'Tote', category: 'accessories', sizes: ['Small', 'Large'], colors: [] };
    expect(chooseVariant(bag, {}, saved)).toMatchObject({ kind: 'ask', about: 'size' });
  });

  it('takes the only size of a product that has one', () => {
    const cap = { productName: 'Cap', category: 'accessories', sizes: ['One Size'], colors: [] };
    expect(chooseVariant(cap, {}, saved)).toEqual({ kind: 'add', size: 'One Size' });
  });

  it('takes a named size as the product spells it, and asks about one it does not come in', () => {
    expect(chooseVariant(hoodie, { size: 'l' }, saved)).toMatchObject({ kind: 'add', size: 'L' });
    expect(chooseVariant(hoodie, { size: 'XXXL' }, saved)).toMatchObject({ kind: 'ask', about: 'size' });
  });

  it('asks when several colours exist and none was named', () => {
    const choice = chooseVariant({ ...hoodie, colors: ['Navy', 'Olive'] }, {}, saved);
    expect(choice).toMatchObject({ kind: 'ask', about: 'color', options: ['Navy', 'Olive'] });
  });

  it('takes a named colour as the product spells it, and asks about one it does not come in', () => {
    const two = { ...hoodie, colors: ['Navy', 'Olive'] };
    expect(chooseVariant(two, { color: 'olive' }, saved)).toEqual({ kind: 'add', size: 'M', color: 'Olive' });
    expect(chooseVariant(two, { color: 'Pink' }, saved)).toMatchObject({ kind: 'ask', about: 'color' });
  });

  it('leaves size and colour unset only for a product that has neither', () => {
    const gift = { productName: 'Gift card', category: 'accessories', sizes: [], colors: [] };
    expect(chooseVariant(gift, {}, saved)).toEqual({ kind: 'add' });
  });

  it('never adds a product of sizes or colours without both chosen, whatever is named or saved', () => {
    const word = fc.constantFrom('XS', 'S', 'M', 'L', '9', '32', 'Navy', 'Olive', 'One Size', 'm');
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 4 }),
        fc.array(word, { maxLength: 3 }),
        fc.constantFrom('apparel', 'footwear', 'accessories'),
        fc.option(word, { nil: undefined }),
        fc.option(word, { nil: undefined }),
        fc.boolean(),
        (sizes, colors, category, size, color, hasSaved) => {
          const offer = { productName: 'P', category, sizes, colors };
          const choice = chooseVariant(offer, { size, color }, hasSaved ? saved : null);
          if (choice.kind === 'ask') return;
          expect(choice.size !== undefined).toBe(sizes.length > 0);
          expect(choice.color !== undefined).toBe(colors.length > 0);
          if (choice.size !== undefined) expect(sizes).toContain(choice.size);
          if (choice.color !== undefined) expect(colors).toContain(choice.color);
        },
      ),
    );
  });

  it('reads the kind of product from its category and size system', () => {
    expect(sizeKindOf(hoodie)).toBe('topsSize');
    expect(sizeKindOf(jeans)).toBe('bottomsSize');
    expect(sizeKindOf(shoes)).toBe('footwearSize');
    expect(sizeKindOf({ category: 'accessories', sizes: ['One Size'] })).toBeUndefined();
  });
});
