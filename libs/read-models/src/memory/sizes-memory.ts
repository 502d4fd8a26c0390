/** The sizes of onboarding step 3 as one memory text; every memory store records the same words. */
export function sizesMemoryText(sizes: {
  topsSize: string;
  bottomsSize: string;
  footwearSize: string;
}): string {
  return `Clothing sizes: tops ${sizes.topsSize}, bottoms ${sizes.bottomsSize}, footwear ${sizes.footwearSize}.`;
}
