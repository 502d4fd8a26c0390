import { DomainError } from '../domain-error';
import type { Sizes } from '../user/onboarding-fields';

/** What the catalogue says of the product being added. */
export interface VariantOffer {
  productName: string;
  category: string;
  sizes: readonly string[];
  colors: readonly string[];
}

/** What the shopper (through the assistant) named, if anything. */
export interface NamedVariant {
  size?: string;
  color?: string;
}

/** Which of the saved sizes a product is sized by. */
export type SizeKind = keyof Sizes;
/** The sizes the shopper saved at onboarding, as the profile reads them. */
export type SavedSizes = Record<SizeKind, string>;

export type VariantChoice =
  | { kind: 'add'; size?: string; color?: string }
  | { kind: 'ask'; about: 'size' | 'color'; options: string[]; message: string };

const LETTER_SIZES = new Set(['xxs', 'xs', 's', 'm', 'l', 'xl', 'xxl', 'xxxl']);
const FOOTWEAR = /shoe|footwear|sneaker|boot|sandal|trainer|loafer|slipper/i;

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The saved size a product is sized by: footwear by its category; clothing by its size system,
 * letters for tops and numbers (waists) for bottoms. Undefined when none applies ("One Size").
 */
export function sizeKindOf(offer: Pick<VariantOffer, 'category' | 'sizes'>): SizeKind | undefined {
  if (FOOTWEAR.test(offer.category)) return 'footwearSize';
  if (offer.sizes.length === 0) return undefined;
  if (offer.sizes.every((size) => LETTER_SIZES.has(size.trim().toLowerCase()))) return 'topsSize';
  if (offer.sizes.every((size) => /^\d+(\.\d+)?$/.test(size.trim()))) return 'bottomsSize';
  return undefined;
}

const ask = (about: 'size' | 'color', options: readonly string[], message: string): VariantChoice => ({
  kind: 'ask',
  about,
  options: [...options],
  message,
});

/**
 * The size and colour an add from the chat stores, or the question to ask instead. A named size or
 * colour must be one the product comes in. Without a size, the shopper's saved size for the
 * product's kind is taken when the product comes in it; a single size is taken as is; otherwise
 * the shopper is asked. Without a colour, a single colour is taken and several are asked about. A
 * product without sizes or colours takes none, so only such a product is stored as "Default".
 */
export function chooseVariant(
  offer: VariantOffer,
  wish: NamedVariant,
  saved: SavedSizes | null,
): VariantChoice {
  const { productName, sizes, colors } = offer;
  let size: string | undefined;
  if (sizes.length > 0) {
    if (wish.size !== undefined) {
      size = sizes.find((candidate) => same(candidate, wish.size!));
      if (size === undefined)
        return ask(
          'size',
          sizes,
          `${productName} does not come in ${wish.size}; which size: ${sizes.join(', ')}?`,
        );
    } else {
      const kind = sizeKindOf(offer);
      const savedSize = kind && saved ? saved[kind] : undefined;
      size =
        (savedSize !== undefined ? sizes.find((candidate) => same(candidate, savedSize)) : undefined) ??
        (sizes.length === 1 ? sizes[0] : undefined);
      if (size === undefined) {
        const why =
          savedSize !== undefined
            ? `does not come in your saved size ${savedSize}`
            : 'comes in several sizes';
        return ask('size', sizes, `${productName} ${why}; which size: ${sizes.join(', ')}?`);
      }
    }
  }
  let color: string | undefined;
  if (colors.length > 0) {
    if (wish.color !== undefined) {
      color = colors.find((candidate) => same(candidate, wish.color!));
      if (color === undefined)
        return ask(
          'color',
          colors,
          `${productName} does not come in ${wish.color}; which colour: ${colors.join(', ')}?`,
        );
    } else if (colors.length === 1) {
      color = colors[0];
    } else {
      return ask(
        'color',
        colors,
        `${productName} comes in ${colors.join(', ')}; which colour would you like?`,
      );
    }
  }
  return { kind: 'add', ...(size !== undefined && { size }), ...(color !== undefined && { color }) };
}

/** The refusal of an add whose size or colour must be asked for: its message is the question. */
export const variantChoiceNeeded = (choice: Extract<VariantChoice, { kind: 'ask' }>) =>
  new DomainError('invalid', 'VARIANT_CHOICE_NEEDED', choice.message);
