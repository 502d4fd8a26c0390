/** FNV-1a: a stable 32-bit seed from text, so the same search always yields the same listing. */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export interface Random {
  /** In [0, 1). */
  next(): number;
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
  alphanumeric(length: number): string;
  /** A new array in a random order (Fisher-Yates). */
  shuffle<T>(values: readonly T[]): T[];
}

/** mulberry32: small, fast, and identical on every platform, which Math.random is not asked to be. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[int(0, values.length - 1)] as T;
  const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const alphanumeric = (length: number) => Array.from({ length }, () => pick([...ALPHANUMERIC])).join('');
  const shuffle = <T>(values: readonly T[]): T[] => {
    const shuffled = [...values];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = int(0, i);
      [shuffled[i], shuffled[j]] = [shuffled[j] as T, shuffled[i] as T];
    }
    return shuffled;
  };
  return { next, int, pick, alphanumeric, shuffle };
}
