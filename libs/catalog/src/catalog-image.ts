import { createHash } from 'node:crypto';
import type { CatalogProduct } from './catalog-products';

/** Swatches of the catalogue's colour names; any other name gets a colour from its hash. */
const SWATCHES: Readonly<Record<string, string>> = {
  Black: '#222222',
  White: '#f4f4f4',
  'Heather Grey': '#b8b8b8',
  Navy: '#1f2d4d',
  Charcoal: '#3c3f44',
  Olive: '#6b7044',
  Khaki: '#c3b091',
  Tan: '#d2b48c',
  Rust: '#b7410e',
  'Forest Green': '#2e5e3a',
  Brown: '#6b4a2f',
  Red: '#c0392b',
  'Cobalt Blue': '#0047ab',
  'Sunflower Yellow': '#f4c430',
  Coral: '#ff7f50',
  Teal: '#2a8c8c',
  Indigo: '#33407a',
  'Light Wash': '#8fb3d9',
  'Stone Wash': '#7d93ad',
};

function swatch(color: string | undefined): string {
  if (color && SWATCHES[color]) return SWATCHES[color];
  const hue =
    createHash('sha256')
      .update(color ?? '')
      .digest()
      .readUInt16BE(0) % 360;
  return `hsl(${hue} 45% 45%)`;
}

/** Dark text on light swatches, light text on dark ones. */
function inkOn(background: string): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(background);
  if (!match) return '#ffffff';
  const [r, g, b] = match.slice(1).map((hex) => parseInt(hex, 16)) as [number, number, number];
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#222222' : '#ffffff';
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A placeholder picture of a catalogue product (SVG, a few hundred bytes): its first colour, its
 * type and its brand. The mock catalogue's own image addresses name a CDN that does not exist, so
 * a stack without internet serves these instead.
 */
export function catalogImageSvg(product: CatalogProduct): string {
  const background = swatch(product.colors[0]);
  const ink = inkOn(background);
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="320" viewBox="0 0 320 320">',
    `<rect width="320" height="320" fill="${background}"/>`,
    `<text x="160" y="165" font-family="sans-serif" font-size="34" font-weight="bold" fill="${ink}" text-anchor="middle">${escapeXml(product.productType)}</text>`,
    `<text x="160" y="205" font-family="sans-serif" font-size="18" fill="${ink}" text-anchor="middle">${escapeXml(product.brand)}</text>`,
    '</svg>',
  ].join('');
}
