export interface MemoryState {
  /** Keys (namespace plus folded fact) of everything remembered, so a repeat is recognised. */
  remembered: Set<string>;
}

export const initialMemoryState = (): MemoryState => ({ remembered: new Set() });

/** Case and spacing do not make a different fact: "Prefers  slim fit" repeats "prefers slim fit". */
export function memoryKey(namespace: string, fact: string): string {
  return `${namespace}\u0000${fact.replace(/\s+/g, ' ').trim().toLowerCase()}`;
}
